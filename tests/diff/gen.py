#!/usr/bin/env python3
"""gen.py — random managed-C programs for differential testing (scripts/difftest).

Each program holds references (objects, arrays, derived pointers to fields and
elements) across calls with many arguments, varargs calls, VLAs and a deep
recursion, and prints checksums. It includes diff_shim.h, so the same text
builds with corralc (references collected and moved) and with plain clang
(references are malloc'ed pointers); both builds must print the same lines.
Output depends only on --seed and --with, never on addresses.

Shapes that hit known open bugs are off unless named in --with:
  many-args         calls with 7+ arguments (some on the stack)
  varargs-refs      references passed through a managed varargs call
  vla-overaligned   a VLA and an over-aligned local in one frame
  asm               inline assembly
  musttail          musttail calls
  indirect-varargs  a varargs function with a result called through a pointer
"""
import argparse
import random
import sys

SHAPES = ["many-args", "varargs-refs", "vla-overaligned", "asm", "musttail", "indirect-varargs"]
INT_TYPES = ["uint64_t", "int32_t", "uint8_t", "int16_t", "uint32_t", "int64_t"]


class Function:
    def __init__(self, name, params, refs):
        self.name, self.params, self.refs = name, params, refs  # params: [(type, name)]


class Generator:
    def __init__(self, seed, shapes):
        self.r = random.Random(seed)
        self.shapes = shapes
        self.functions = []
        self.out = []

    def emit(self, line, depth=1):
        self.out.append("    " * depth + line)

    # Expressions are uint64_t, so wrap-around is defined in both builds.
    def expr(self, env, depth=0):
        r = self.r
        choice = r.randrange(9 if depth < 2 else 4)
        if choice == 0 or (choice == 1 and not env["scalars"]) or (choice in (2, 5) and not env["refs"]):
            return "UINT64_C(%d)" % r.randrange(1 << 20)
        if choice == 1:
            return "(uint64_t)%s" % r.choice(env["scalars"])
        if choice == 2:
            return "%s->v%d" % (r.choice(env["refs"]), r.randrange(3))
        if choice == 3 and env["derived"]:
            return "*%s" % r.choice(env["derived"])
        if choice == 4 and env["words"]:
            name, length = r.choice(env["words"])
            return "DIFF_WORDS(%s)[%d]" % (name, r.randrange(length))
        if choice == 5:
            ref, field = r.choice(env["refs"]), r.randrange(2)
            return "(%s->r%d ? %s->r%d->v%d : UINT64_C(5))" % (ref, field, ref, field, r.randrange(3))
        op = r.choice(["+", "^", "*", "-", ">>", "<<"])
        a = self.expr(env, depth + 1)
        if op in (">>", "<<"):
            return "(%s %s %d)" % (a, op, r.randrange(1, 63))
        return "(%s %s %s)" % (a, op, self.expr(env, depth + 1))

    def max_args(self):
        return 10 if "many-args" in self.shapes else 6

    def call_args(self, callee, env):
        args = [self.expr(env, 1) for _ in callee.params]
        refs = [self.r.choice(env["refs"]) for _ in range(callee.refs)]
        return ", ".join(args + refs)

    def statement(self, env, index, depth):
        r = self.r
        kind = r.randrange(12)
        target = r.choice(env["scalars"][-4:])
        if kind == 0:
            ref = r.choice(env["refs"])
            self.emit("%s = diff_new_obj();" % ref, depth)
            self.emit("%s->v0 = %s;" % (ref, self.expr(env)), depth)
            self.emit("%s->r0 = %s;" % (ref, r.choice(env["refs"])), depth)
        elif kind in (1, 2, 3) and index > 0:
            callee = self.functions[r.randrange(index)]
            self.emit("%s += %s(%s);" % (target, callee.name, self.call_args(callee, env)), depth)
        elif kind == 4 and env["derived"]:
            self.emit("*%s += %s;" % (r.choice(env["derived"]), self.expr(env)), depth)
        elif kind == 5 and env["words"]:
            name, length = r.choice(env["words"])
            body = "DIFF_WORDS(%s)[i] = DIFF_WORDS(%s)[i] * 3 + i + %s;" % (name, name, target)
            self.emit("for (uint64_t i = 0; i < %d; i++)" % length, depth)
            self.emit(body, depth + 1)
        elif kind == 6 and env["words"]:
            name, length = r.choice(env["words"])
            self.emit("for (uint64_t i = 0; i < %d; i++) {" % length, depth)
            if index > 0 and r.randrange(2):
                callee = self.functions[r.randrange(index)]
                self.emit("if (i %% %d == 0)" % r.randrange(2, 9), depth + 1)
                self.emit("%s ^= %s(%s);" % (target, callee.name, self.call_args(callee, env)), depth + 2)
            self.emit("%s = %s * 31 + DIFF_WORDS(%s)[i];" % (target, target, name), depth + 1)
            self.emit("}", depth)
        elif kind == 7 and env["ref_arrays"]:
            name, length = r.choice(env["ref_arrays"])
            slot = r.randrange(length)
            self.emit("DIFF_REFS(%s)[%d] = %s;" % (name, slot, r.choice(env["refs"])), depth)
            self.emit("diff_garbage(%d);" % r.randrange(1, 40), depth)
            self.emit("%s += DIFF_REFS(%s)[%d]->v%d;" % (target, name, slot, r.randrange(3)), depth)
        elif kind == 8:
            count = r.randrange(1, 6)
            values = [self.expr(env, 1) for _ in range(count)]
            self.emit("%s += diff_vsum(%d, %s);" % (target, count, ", ".join(values)), depth)
            if "varargs-refs" in self.shapes:
                refs = [r.choice(env["refs"]) for _ in range(r.randrange(1, 4))]
                self.emit("%s += diff_vrefs(%d, %s);" % (target, len(refs), ", ".join(refs)), depth)
            if "indirect-varargs" in self.shapes:
                self.emit("%s += diff_format_indirect(%s);" % (target, self.expr(env, 1)), depth)
        elif kind == 9:
            self.emit("%s += diff_vla(%s, %s);" % (target, self.expr(env, 1), r.choice(env["refs"])), depth)
        elif kind == 10 and "asm" in self.shapes:
            self.emit("%s = diff_asm_add(%s, %d);" % (target, self.expr(env, 1), r.randrange(100)), depth)
        elif kind == 10 and "musttail" in self.shapes:
            self.emit("%s += diff_tail_a(%s, %s);" % (target, self.expr(env, 1), self.expr(env, 1)), depth)
        elif kind == 11 and depth < 3:
            self.emit("if ((%s & 3) != 1) {" % self.expr(env, 1), depth)
            self.statement(env, index, depth + 1)
            self.emit("}", depth)
        else:
            self.emit("%s ^= %s;" % (target, self.expr(env)), depth)

    def function(self, index):
        r = self.r
        refs = r.randrange(0, 4)
        count = r.randrange(1, self.max_args() - refs + 1)
        params = [(r.choice(INT_TYPES), "p%d" % i) for i in range(max(count, 1))]
        f = Function("f%d" % index, params, refs)
        decl = [t + " " + n for t, n in params] + ["obj_ref q%d" % i for i in range(refs)]
        inline = r.choice(["static", "static __attribute__((noinline))", "__attribute__((noinline))"])
        self.out.append("%s uint64_t %s(%s)" % (inline, f.name, ", ".join(decl)))
        self.out.append("{")
        env = {"scalars": [n for _, n in params], "refs": [], "derived": [], "words": [], "ref_arrays": []}
        for i in range(refs):
            env["refs"].append("q%d" % i)
        for i in range(r.randrange(1, 4)):
            self.emit("obj_ref o%d = diff_new_obj();" % i)
            self.emit("o%d->v%d = %s;" % (i, r.randrange(3), self.expr(env)))
            env["refs"].append("o%d" % i)
        for i in range(r.randrange(0, 3)):
            length = r.randrange(1, 48)
            self.emit("arr_ref w%d = diff_new_words(%d);" % (i, length))
            env["words"].append(("w%d" % i, length))
        if r.randrange(2):
            length = r.randrange(1, 8)
            self.emit("arr_ref a0 = diff_new_refs(%d);" % length)
            env["ref_arrays"].append(("a0", length))
        for i in range(r.randrange(0, 3)):
            if env["words"] and r.randrange(2):
                name, length = r.choice(env["words"])
                self.emit("uint64_t DIFF_REF *d%d = &DIFF_WORDS(%s)[%d];" % (i, name, r.randrange(length)))
            else:
                self.emit("uint64_t DIFF_REF *d%d = &%s->v%d;" % (i, r.choice(env["refs"]), r.randrange(3)))
            env["derived"].append("d%d" % i)
        for i in range(2):
            self.emit("uint64_t s%d = %s;" % (i, self.expr(env)))
            env["scalars"].append("s%d" % i)
        for _ in range(r.randrange(3, 12)):
            self.statement(env, index, 1)
        parts = ["s0", "s1"] + ["%s->v%d" % (ref, k) for ref in env["refs"] for k in range(3)]
        parts += ["*" + d for d in env["derived"]]
        parts += ["diff_sum_words(%s)" % name for name, _ in env["words"]]
        self.emit("uint64_t h = UINT64_C(%d);" % index)
        for part in parts:
            self.emit("h = diff_mix(h, %s);" % part)
        self.emit("return h;")
        self.out.append("}")
        self.out.append("")
        self.functions.append(f)

    def program(self, seed):
        r = self.r
        self.out.append("/* generated: tests/diff/gen.py --seed %d --with=%s */" % (seed, ",".join(self.shapes)))
        for shape in self.shapes:  # diff_helpers.h adds the helpers these shapes call
            self.out.append("#define DIFF_WITH_%s 1" % shape.upper().replace("-", "_"))
        self.out.append('#include "diff_helpers.h"')
        self.out.append("")
        for i in range(r.randrange(4, 10)):
            self.function(i)
        self.out.append("int main(void)")
        self.out.append("{")
        self.emit("diff_start();")
        self.emit("uint64_t total = 0;")
        # Several rounds, so the collector thread gets to run during the calls.
        self.emit("for (uint64_t round = 0; round < %d; round++) {" % r.randrange(2, 6))
        for f in self.functions[-3:]:
            env = {"scalars": ["round"], "refs": ["root"], "derived": [], "words": [], "ref_arrays": []}
            self.emit("{", 2)
            self.emit("obj_ref root = diff_new_obj();", 3)
            self.emit("root->v1 = UINT64_C(%d) + round;" % r.randrange(1 << 30), 3)
            self.emit("uint64_t v = %s(%s);" % (f.name, self.call_args(f, env)), 3)
            self.emit('printf("%s = %%016llx\\n", (unsigned long long)v);' % f.name, 3)
            self.emit("total = total * 1000003 + v;", 3)
            self.emit("}", 2)
        self.emit("}")
        depth = r.randrange(200, 3000)
        self.emit("uint64_t deep = diff_recurse(%d, diff_new_obj(), UINT64_C(%d), 1, 2, 3);" % (depth, r.randrange(1 << 30)))
        self.emit('printf("recurse(%d) = %%016llx\\n", (unsigned long long)deep);' % depth)
        self.emit("diff_stop();")
        self.emit('printf("checksum = %016llx\\n", (unsigned long long)(total ^ deep));')
        self.emit("return 0;")
        self.out.append("}")
        return "\n".join(self.out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--with", dest="shapes", default="", help="comma list of known-bug shapes, or all")
    args = parser.parse_args()
    shapes = SHAPES if args.shapes == "all" else [s for s in args.shapes.split(",") if s]
    for s in shapes:
        if s not in SHAPES:
            sys.exit("gen.py: --with: unknown shape '%s' (known: %s, all)" % (s, ", ".join(SHAPES)))
    sys.stdout.write(Generator(args.seed, sorted(shapes)).program(args.seed))


if __name__ == "__main__":
    main()
