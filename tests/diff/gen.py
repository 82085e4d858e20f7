#!/usr/bin/env python3
"""gen.py — random managed-C programs for differential testing (scripts/difftest).

Each program holds references (objects, arrays, derived pointers to fields and
elements) across calls with many arguments, varargs calls, VLAs and a deep
recursion, and prints checksums. It includes diff_shim.h, so the same text
builds with corralc (references collected and moved) and with plain clang
(references are malloc'ed pointers); both builds must print the same lines.
Output depends only on --seed and --with, never on addresses.

Optional shapes, each named in --with to be generated (scripts/difftest names
every one but those its KNOWN_BUGS table lists for the level):
  many-args         calls with 7+ arguments (some on the stack)
  varargs-refs      references passed through a managed varargs call
  vla-overaligned   a VLA and an over-aligned local in one frame
  asm               inline assembly
  musttail          mutual musttail calls with references in the arguments
  indirect-varargs  a varargs function with a result called through a pointer
                    (the pass rejects it)
  pointer-loop      a loop that steps a derived pointer through an array,
                    calling and allocating inside it
  derived-select    a derived pointer chosen between two objects (select or
                    phi of different bases) held across a call
  indirect-call     generated functions called through a function pointer
  ref-slot          a derived pointer to a reference field or element held
                    across allocation, then stored through; a new object
                    stored into an older one
  pair              a struct of two references passed and returned by value
  chain             a list built in a loop and walked with allocation inside
  switch            references reassigned in the arms of a switch
  threads           1-3 more mutator threads run the same calls meanwhile
                    (each prints its total after the join)
  computed-goto     a threaded-code interpreter loop (goto *label, as VMs
                    dispatch) that allocates and calls between its labels
  cut               a new object (with a new child) hung on an older one, a
                    call or garbage, then the only path to it overwritten
                    (null, another reference, or a cmpxchg): the deletion
                    barrier must log what is cut (CORRAL_GC_VERIFY=satb)
  varargs-doubles   doubles (up to 9, past the 8 vector registers) through
                    a managed varargs call
  varargs-results   non-static varargs functions returning an __int128 (passed
                    after a reference and 0-4 ints) and a struct in memory,
                    references in "..."
  setjmp            setjmp with the function's references live across it,
                    then calls and garbage, and a longjmp back from 1-5
                    frames down
  slot-helpers      a pointer into a reference array that a static noinline
                    helper found with a loop (a phi of interior pointers),
                    returned and held across a call, then stored through;
                    pointer-to-pointer list insertion (link = &(*link)->r0);
                    a field's address passed to a static noinline helper
  headerless        in half the programs (by seed), the object type is
                    headerless (CORRAL_TYPE_HEADERLESS): no header, its first
                    reference at offset 0, its objects never moved
  ref-vectors       a new reference array, often large (8 KiB and up), given
                    a new object and older references with no safepoint
                    between (barriers
                    the pass elides), then filled by a loop the vectorizer
                    turns into vectors of references live across its poll,
                    copied by memcpy into a new array, and read back after
                    garbage (minor collections make it old while what it
                    holds ages); the copy, perhaps old by then, is given a
                    new object by libc's memcpy or memmove through (void *)
  atomics           the __atomic and __sync builtins on reference fields
                    (clang does them on integers): a compare-exchange loop
                    with garbage in it pushing a new object onto an older
                    one's r1, an exchange, an atomic load stored atomically,
                    and __sync_val_compare_and_swap with an allocation among
                    its arguments
  callbacks-in-memory  a function stdio calls from the struct of callbacks
                    fopencookie was given (the thread in C), allocating,
                    while a reference is live across the stream
  foreign-callers   managed code that C calls from threads and at times the
                    program did not arrange: rounds() in the notify function
                    of a SIGEV_THREAD timer (a thread glibc starts), in a
                    pthread_key destructor (after its thread detached), in
                    an atexit handler and in a destructor function (after
                    main returned)
  coroutines        rounds() in a generator on a stack of its own (getcontext,
                    makecontext), switched with main's by swapcontext after
                    each round while both stacks hold references and
                    collect
  c-strings         digits snprintf'd into a word array (an object) and parsed
                    back by C: a loop stepping through strtoull's end pointer
                    with garbage that may collect after each number, then
                    strchr's and strrchr's results and their offsets read
                    after more garbage
  stack-slots       references in stack memory: a stack array of references
                    filled by a helper through out-parameters and walked by
                    pointer, a struct of three references (in memory: sret
                    and byval on x86-64) made and summed by helpers, a
                    struct mixing integers and a reference, and in half a
                    variable-length array of references, each read after
                    something that may collect
  cleanups          a new object in a variable with __attribute__((cleanup)),
                    around a quarter of the statements that allocate; the
                    cleanup allocates and mixes the object's value into a
                    per-thread sum main prints (under -fexceptions, as
                    difftest_hardened builds them, the calls in its scope
                    may unwind into it)
"""
import argparse
import random
import sys

SHAPES = ["many-args", "varargs-refs", "vla-overaligned", "asm", "musttail", "indirect-varargs",
          "pointer-loop", "derived-select", "indirect-call", "ref-slot", "pair", "chain", "switch",
          "threads", "computed-goto", "varargs-doubles", "varargs-results", "setjmp", "headerless",
          "cut", "slot-helpers", "ref-vectors", "atomics", "stack-slots", "callbacks-in-memory",
          "foreign-callers", "coroutines", "c-strings", "cleanups"]
INT_TYPES = ["uint64_t", "int32_t", "uint8_t", "int16_t", "uint32_t", "int64_t"]


class Function:
    def __init__(self, name, params, refs):
        self.name, self.params, self.refs = name, params, refs  # params: [(type, name)]


class Generator:
    def __init__(self, seed, shapes):
        self.r = random.Random(seed)
        # Choices of parts added to a shape later, so that a seed's program
        # keeps everything it had before (and the time it takes).
        self.side = random.Random(seed * 3 + 2)
        self.cleanup_side = random.Random(seed * 5 + 3)  # the cleanups shape's own
        self.shapes = shapes
        self.functions = []
        self.out = []
        self.labels = 0  # computed-goto blocks so far: their labels are numbered
        self.function_count = 0  # set by program() before the functions are made

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
        kind = r.randrange(27)
        target = r.choice(env["scalars"][-4:])
        if kind == 0:
            # The cleanup's coin and values come from a stream of its own, so
            # the rest of the program is the same with the shape or without.
            side = self.cleanup_side
            cleanup = "cleanups" in self.shapes and side.random() < 0.6
            if cleanup:
                self.emit("{", depth)
                depth += 1
                self.emit("obj_ref held __attribute__((cleanup(diff_cleanup))) = diff_new_obj();",
                          depth)
                self.emit("held->v0 = UINT64_C(%d);" % side.randrange(1 << 20), depth)
            ref = r.choice(env["refs"])
            self.emit("%s = diff_new_obj();" % ref, depth)
            self.emit("%s->v0 = %s;" % (ref, self.expr(env)), depth)
            self.emit("%s->r0 = %s;" % (ref, r.choice(env["refs"])), depth)
            if cleanup:
                self.emit("held->r0 = %s;" % ref, depth)
                self.emit("diff_garbage(%d);" % side.randrange(1, 9), depth)
                depth -= 1
                self.emit("}", depth)
        elif kind in (1, 2, 3) and index > 0:
            self.emit("%s += %s;" % (target, self.call(env, index)), depth)
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
            if "varargs-doubles" in self.shapes:
                values = ["(double)(%s & 0xffff)" % self.expr(env, 1) for _ in range(r.randrange(1, 10))]
                self.emit("%s += diff_vdoubles(%d, %s);" % (target, len(values), ", ".join(values)), depth)
            if "indirect-varargs" in self.shapes:
                self.emit("%s += diff_format_indirect(%s);" % (target, self.expr(env, 1)), depth)
            if "varargs-results" in self.shapes:
                self.varargs_results(env, depth, target)
        elif kind == 9:
            self.emit("%s += diff_vla(%s, %s);" % (target, self.expr(env, 1), r.choice(env["refs"])), depth)
            if "setjmp" in self.shapes:
                self.setjmp_block(env, index, depth, target)
        elif kind == 10 and "musttail" in self.shapes and ("asm" not in self.shapes or r.randrange(2)):
            self.emit("%s += diff_tail_a(%s, %s, %s, %s, %s, %s, %s, %s);"
                      % (target, self.expr(env, 1), self.expr(env, 1), r.choice(env["refs"]),
                         self.expr(env, 1), self.expr(env, 1), self.expr(env, 1), self.expr(env, 1),
                         r.choice(env["refs"])), depth)
        elif kind == 10 and "asm" in self.shapes:
            self.emit("%s = diff_asm_add(%s, %d);" % (target, self.expr(env, 1), r.randrange(100)), depth)
        elif kind == 12 and "pointer-loop" in self.shapes and env["words"]:
            self.pointer_loop(env, index, depth, target)
        elif kind == 13 and "derived-select" in self.shapes:
            self.derived_select(env, index, depth, target)
        elif kind == 14 and "indirect-call" in self.shapes and index > 0:
            callee = self.functions[r.randrange(index)]
            signature = ", ".join([t for t, _ in callee.params] + ["obj_ref"] * callee.refs)
            self.emit("{", depth)
            self.emit("uint64_t (*volatile fp)(%s) = %s;" % (signature, callee.name), depth + 1)
            self.emit("%s += fp(%s);" % (target, self.call_args(callee, env)), depth + 1)
            self.emit("}", depth)
        elif kind == 15 and "ref-slot" in self.shapes:
            self.ref_slot(env, depth, target)
        elif kind == 16 and "pair" in self.shapes:
            a, b = r.choice(env["refs"]), r.choice(env["refs"])
            step = r.choice(["diff_pair_step", "diff_pair_step_inline"])
            self.emit("{", depth)
            self.emit("diff_pair pair = %s((diff_pair){%s, %s}, %s);" % (step, a, b, self.expr(env, 1)), depth + 1)
            self.emit("%s += pair.a->v0 ^ pair.b->v2;" % target, depth + 1)
            self.emit("%s = pair.b;" % a, depth + 1)
            self.emit("}", depth)
        elif kind == 17 and "chain" in self.shapes:
            self.chain(env, index, depth, target)
        elif kind == 18 and "switch" in self.shapes:
            x, y = r.choice(env["refs"]), r.choice(env["refs"])
            self.emit("switch (%s %% 4) {" % self.expr(env, 1), depth)
            self.emit("case 0: %s = %s; break;" % (x, y), depth)
            self.emit("case 1: %s = diff_new_obj(); %s->v0 = %s; %s->r0 = %s; break;" % (
                x, x, self.expr(env, 1), x, y), depth)
            if index > 0:
                self.emit("case 2: %s += %s; break;" % (target, self.call(env, index)), depth)
            self.emit("default: %s ^= %s->v2; break;" % (target, x), depth)
            self.emit("}", depth)
        elif kind == 19 and "computed-goto" in self.shapes:
            self.interpreter(env, index, depth, target)
        elif kind == 20 and "cut" in self.shapes:
            self.cut(env, index, depth, target)
        elif kind == 21 and "slot-helpers" in self.shapes:
            self.slot_helpers(env, index, depth, target)
        elif kind == 22 and "ref-vectors" in self.shapes:
            self.ref_vectors(env, index, depth, target)
        elif kind == 23 and "atomics" in self.shapes:
            self.atomics(env, depth, target)
        elif kind == 24 and "stack-slots" in self.shapes:
            self.stack_slots(env, index, depth, target)
        elif kind == 25 and "callbacks-in-memory" in self.shapes:
            self.emit("%s += diff_cookie(%s, %s);" % (target, self.expr(env, 1), r.choice(env["refs"])),
                      depth)
        elif kind == 26 and "c-strings" in self.shapes:
            self.c_strings(env, index, depth, target)
        elif kind == 11 and depth < 3:
            self.emit("if ((%s & 3) != 1) {" % self.expr(env, 1), depth)
            self.statement(env, index, depth + 1)
            self.emit("}", depth)
        else:
            self.emit("%s ^= %s;" % (target, self.expr(env)), depth)

    def call(self, env, index):
        """A call of an earlier generated function."""
        callee = self.functions[self.r.randrange(index)]
        return "%s(%s)" % (callee.name, self.call_args(callee, env))

    def safepoint(self, env, index):
        """A statement that may collect: a call of an earlier function, or garbage."""
        if index > 0 and self.r.randrange(2):
            return "(void)%s;" % self.call(env, index)
        return "diff_garbage(%d);" % self.r.randrange(1, 6)

    def pointer_loop(self, env, index, depth, target):
        """A derived pointer stepped through an array: a loop phi of derived pointers."""
        r = self.r
        name, length = r.choice(env["words"])
        if r.randrange(2):
            self.emit("for (uint64_t DIFF_REF *p = DIFF_WORDS(%s), *end = p + %d; p != end; p++) {" % (
                name, length), depth)
        else:
            self.emit("for (uint64_t DIFF_REF *p = DIFF_WORDS(%s) + %d; p-- != DIFF_WORDS(%s);) {" % (
                name, length, name), depth)
        self.emit("if ((*p & 3) == %d)" % r.randrange(4), depth + 1)
        if index > 0 and r.randrange(2):
            self.emit("%s ^= %s;" % (target, self.call(env, index)), depth + 2)
        else:
            self.emit("diff_garbage(%d);" % r.randrange(1, 4), depth + 2)
        self.emit("*p = *p * 5 + %s;" % target, depth + 1)
        self.emit("}", depth)

    def c_strings(self, env, index, depth, target):
        """Numbers written into an object as text and parsed back by C, whose
        pointers into it (strtoull's end, strchr's result) are read after
        garbage that may collect (not calls: generated functions call earlier
        ones, and more calls per function multiply the work): the pass pins
        the object for the frame."""
        r = self.r
        words = r.randrange(4, 9)
        values = ", ".join("(unsigned long long)(%s & 0xffff)" % self.expr(env, 1)
                           for _ in range(3))
        self.emit("{", depth)
        self.emit("arr_ref text = diff_new_words(%d);" % words, depth + 1)
        self.emit('snprintf((char *)DIFF_WORDS(text), %d, "%%llu,%%llu,%%llu", %s);'
                  % (words * 8, values), depth + 1)
        self.emit("char *end;", depth + 1)
        self.emit("for (char *p = (char *)DIFF_WORDS(text);; p = end + 1) {", depth + 1)
        self.emit("%s = %s * 1000003 + strtoull(p, &end, 10);" % (target, target), depth + 2)
        self.emit("diff_garbage(%d);" % r.randrange(1, 6), depth + 2)
        self.emit("if (*end != ',')", depth + 2)
        self.emit("break;", depth + 3)
        self.emit("}", depth + 1)
        self.emit("char *comma = strchr((char *)DIFF_WORDS(text), ',');", depth + 1)
        self.emit("diff_garbage(%d);" % r.randrange(1, 6), depth + 1)
        self.emit("%s += (uint64_t)(comma - (char *)DIFF_WORDS(text)) * 7 + (uint64_t)comma[1];"
                  % target, depth + 1)
        if r.randrange(2):
            self.emit("char *last = strrchr((char *)DIFF_WORDS(text), ',');", depth + 1)
            self.emit("diff_garbage(%d);" % r.randrange(1, 6), depth + 1)
            self.emit("%s ^= (uint64_t)last[1] << %d;" % (target, r.randrange(8)), depth + 1)
        self.emit("}", depth)

    def field_address(self, env):
        """&(a word in an object or a word array), for a derived pointer."""
        r = self.r
        if env["words"] and r.randrange(3) == 0:
            name, length = r.choice(env["words"])
            return "&DIFF_WORDS(%s)[%d]" % (name, r.randrange(length))
        return "&%s->v%d" % (r.choice(env["refs"]), r.randrange(3))

    def setjmp_block(self, env, index, depth, target):
        """setjmp, then what may collect, then a longjmp back; afterwards the
        references live across the setjmp are read. Between setjmp and
        longjmp only a volatile local and the heap change: C leaves other
        locals changed there indeterminate."""
        r = self.r
        self.emit("{", depth)
        self.emit("jmp_buf jump;", depth + 1)
        self.emit("volatile uint64_t acc = %s;" % self.expr(env, 1), depth + 1)
        self.emit("int again = setjmp(jump);", depth + 1)
        self.emit("if (again == 0) {", depth + 1)
        for _ in range(r.randrange(1, 4)):
            choice = r.randrange(3)
            if choice == 0 and index > 0:
                self.emit("acc ^= %s;" % self.call(env, index), depth + 2)
            elif choice == 1:
                self.emit("%s->v%d ^= %s;" % (r.choice(env["refs"]), r.randrange(3), self.expr(env, 1)),
                          depth + 2)
            else:
                self.emit("diff_garbage(%d);" % r.randrange(1, 40), depth + 2)
        self.emit("diff_jump(jump, %d, acc);" % r.randrange(0, 5), depth + 2)
        self.emit("}", depth + 1)
        self.emit("%s += acc + (uint64_t)again * %s;" % (target, self.expr(env, 1)), depth + 1)
        self.emit("}", depth)

    def derived_select(self, env, index, depth, target):
        """A derived pointer whose base is one of two objects, live across a safepoint."""
        r = self.r
        self.emit("{", depth)
        if r.randrange(2):
            self.emit("uint64_t DIFF_REF *pick = (%s & 1) ? %s : %s;" % (
                self.expr(env, 1), self.field_address(env), self.field_address(env)), depth + 1)
        else:
            self.emit("uint64_t DIFF_REF *pick = %s;" % self.field_address(env), depth + 1)
            self.emit("if ((%s & 3) == 0)" % self.expr(env, 1), depth + 1)
            self.emit("pick = %s;" % self.field_address(env), depth + 2)
        self.emit(self.safepoint(env, index), depth + 1)
        self.emit("*pick += %s;" % target, depth + 1)
        self.emit("%s ^= *pick;" % target, depth + 1)
        self.emit("}", depth)

    def varargs_results(self, env, depth, target):
        """Non-static varargs calls with results: an __int128 after 1-5 other
        arguments (where clang splits it into two registers), a struct in memory."""
        r = self.r
        skip = r.randrange(5)
        ints = ["%d" % r.randrange(-50, 50) for _ in range(skip)]
        wide = "(unsigned __int128)(%s) << 64 | (%s)" % (self.expr(env, 1), self.expr(env, 1))
        args = [str(skip), r.choice(env["refs"])] + ints + [wide]
        self.emit("{", depth)
        self.emit("unsigned __int128 wide = diff_vwide(%s);" % ", ".join(args), depth + 1)
        self.emit("%s += (uint64_t)wide ^ (uint64_t)(wide >> 64);" % target, depth + 1)
        refs = [r.choice(env["refs"]) for _ in range(r.randrange(1, 4))]
        self.emit("diff_triple t = diff_vtriple(%d, %s);" % (len(refs), ", ".join(refs)), depth + 1)
        self.emit("%s += t.a ^ t.b ^ t.c;" % target, depth + 1)
        self.emit("}", depth)

    def ref_slot(self, env, depth, target):
        """Stores of references through derived pointers, and of new objects into older ones."""
        r = self.r
        a = r.choice(env["refs"])
        choice = r.randrange(3)
        self.emit("{", depth)
        if choice == 0 and env["ref_arrays"]:
            name, length = r.choice(env["ref_arrays"])
            k = r.randrange(length)
            self.emit("obj_ref DIFF_REF *slot = &DIFF_REFS(%s)[%d];" % (name, k), depth + 1)
            self.emit("diff_garbage(%d);" % r.randrange(1, 6), depth + 1)
            self.emit("*slot = diff_new_obj();", depth + 1)
            self.emit("(*slot)->v1 = %s;" % self.expr(env, 1), depth + 1)
            self.emit("diff_garbage(%d);" % r.randrange(1, 6), depth + 1)
            self.emit("%s += (*slot)->v1 ^ DIFF_REFS(%s)[%d]->v0;" % (target, name, k), depth + 1)
        elif choice == 1:
            self.emit("obj_ref DIFF_REF *slot = &%s->r1;" % a, depth + 1)
            self.emit("diff_garbage(%d);" % r.randrange(1, 6), depth + 1)
            self.emit("*slot = %s;" % r.choice(env["refs"]), depth + 1)
            self.emit("%s += %s->r1->v2 + (*slot == %s);" % (target, a, r.choice(env["refs"])), depth + 1)
        else:
            self.emit("%s->r1 = diff_new_obj();" % a, depth + 1)
            self.emit("%s->r1->v0 = %s;" % (a, self.expr(env, 1)), depth + 1)
            self.emit("diff_garbage(%d);" % r.randrange(1, 6), depth + 1)
            self.emit("%s += %s->r1->v0;" % (target, a), depth + 1)
        self.emit("}", depth)

    def cut(self, env, index, depth, target):
        """A young subgraph reachable through one field of an older object,
        then that field overwritten: the cut objects are found only through
        the deletion barrier's log (they are garbage here, which the SATB
        check reports all the same)."""
        r = self.r
        holder = r.choice(env["refs"])
        self.emit("{", depth)
        self.emit("obj_ref cut = diff_new_obj();", depth + 1)
        self.emit("cut->v0 = %s;" % self.expr(env, 1), depth + 1)
        self.emit("cut->r0 = diff_new_obj();", depth + 1)
        self.emit("cut->r0->v1 = %s;" % self.expr(env, 1), depth + 1)
        self.emit("%s->r1 = cut;" % holder, depth + 1)
        self.emit("}", depth)
        self.emit(self.safepoint(env, index), depth)
        self.emit("%s += %s->r1 ? %s->r1->v0 : UINT64_C(7);" % (target, holder, holder), depth)
        choice = r.randrange(3)
        if choice == 0:
            self.emit("%s->r1 = 0;" % holder, depth)
        elif choice == 1:
            self.emit("%s->r1 = %s;" % (holder, r.choice(env["refs"])), depth)
        else:
            # Whatever r1 holds now (a call above may have changed it), swapped for null.
            self.emit("{", depth)
            self.emit("obj_ref seen = %s->r1;" % holder, depth + 1)
            self.emit("%s ^= (uint64_t)__atomic_compare_exchange_n(&%s->r1, &seen, (obj_ref)0, 0, "
                      "__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);" % (target, holder), depth + 1)
            self.emit("}", depth)

    def slot_helpers(self, env, index, depth, target):
        """Interior pointers through calls: the pass inlines static helpers that
        return or receive one, and must follow a link pointer across a safepoint."""
        r = self.r
        self.emit("{", depth)
        if env["ref_arrays"] and r.randrange(2):
            name, _ = r.choice(env["ref_arrays"])
            self.emit("obj_ref DIFF_REF *slot = diff_fullest_slot(%s);" % name, depth + 1)
            self.emit(self.safepoint(env, index), depth + 1)
            self.emit("%s += *slot ? (*slot)->v0 : UINT64_C(3);" % target, depth + 1)
            self.emit("*slot = diff_new_obj();", depth + 1)
            self.emit("(*slot)->v1 = %s;" % self.expr(env, 1), depth + 1)
        else:
            self.emit("obj_ref DIFF_REF *link = &%s->r0;" % r.choice(env["refs"]), depth + 1)
            self.emit("for (int n = 0; *link && n < %d; n++)" % r.randrange(1, 5), depth + 1)
            self.emit("link = &(*link)->r%d;" % r.randrange(2), depth + 2)
            self.emit(self.safepoint(env, index), depth + 1)
            self.emit("obj_ref fresh = diff_new_obj();", depth + 1)
            self.emit("fresh->v0 = %s;" % self.expr(env, 1), depth + 1)
            self.emit("*link = fresh;", depth + 1)
        self.emit("diff_bump_field(&%s->v%d, %s);" % (r.choice(env["refs"]), r.randrange(3),
                                                     self.expr(env, 1)), depth + 1)
        self.emit("}", depth)

    def ref_vectors(self, env, index, depth, target):
        """References stored into a new array without barriers (elided: a new
        object and an older one, the new one reachable only through the array),
        by a vectorized loop, and by memcpy into another new array; read back
        after what may collect. 1024 references and up make a large object.
        Then the copy, perhaps old by then, is also given new objects
        by libc's memcpy or memmove through (void *), which corralc leaves as
        calls: only the barrier after the call remembers them (the
        collections before the reads that follow, and the verifier, see
        them)."""
        r = self.r
        # Large (half the time) only in the last function, which rounds()
        # alone calls: earlier ones are called by the later ones, so large
        # allocations there multiply (one seed allocated 11 GB).
        last = index == self.function_count - 1
        length = r.randrange(1024, 1400) if last and r.randrange(2) else r.randrange(2, 200)
        x, y = r.sample(env["refs"], 2) if len(env["refs"]) > 1 else env["refs"] * 2
        elided, vector = r.choice([(True, False), (False, True), (True, True)])
        self.emit("{", depth)
        self.emit("arr_ref vec;", depth + 1)
        self.emit("{", depth + 1)
        self.emit("obj_ref fresh = diff_new_obj();", depth + 2)
        self.emit("fresh->v0 = %s;" % self.expr(env, 1), depth + 2)
        self.emit("vec = diff_new_refs(%d);" % length, depth + 2)
        if elided:
            self.emit("DIFF_REFS(vec)[0] = fresh;", depth + 2)
            self.emit("DIFF_REFS(vec)[%d] = %s;" % (length - 1, y), depth + 2)
        self.emit("}", depth + 1)
        if vector:
            step = r.randrange(2, 4)
            self.emit("for (uint64_t i = 1; i < %d; i++)" % (length - 1), depth + 1)
            self.emit("DIFF_REFS(vec)[i] = (i %% %d == 0) ? %s : %s;" % (step, x, y), depth + 2)
        copied = r.randrange(1, length + 1)
        large_copy = last and length < 1024 and r.randrange(2) == 0
        self.emit("arr_ref copy = diff_new_refs(%d);" % (copied + 1024 if large_copy else copied), depth + 1)
        self.emit("__builtin_memcpy((char DIFF_REF *)DIFF_REFS(copy), (char DIFF_REF *)DIFF_REFS(vec), "
                  "%d * sizeof(obj_ref));" % copied, depth + 1)
        # Garbage, not a call: calls here would multiply the program's work.
        self.emit("diff_garbage(%d);" % r.randrange(1, 60), depth + 1)
        field = r.randrange(3)
        side = self.side
        count = side.randrange(1, min(copied, 8) + 1)
        self.emit("{", depth + 1)
        self.emit("obj_ref made = diff_new_obj();", depth + 2)
        self.emit("made->v%d = UINT64_C(%d);" % (field, side.randrange(1 << 20)), depth + 2)
        self.emit("arr_ref young = diff_new_refs(%d);" % count, depth + 2)
        self.emit("for (uint64_t i = 0; i < %d; i++)" % count, depth + 2)
        self.emit("DIFF_REFS(young)[i] = i %% 2 ? %s : made;" % side.choice(env["refs"]), depth + 3)
        self.emit("%s((void *)&DIFF_REFS(copy)[%d], (const void *)DIFF_REFS(young), "
                  "%d * sizeof(obj_ref));" % (side.choice(["memcpy", "memmove"]),
                                              side.randrange(copied - count + 1), count),
                  depth + 2)
        self.emit("}", depth + 1)
        read = "(DIFF_REFS(%s)[i] ? DIFF_REFS(%s)[i]->v%d : UINT64_C(1))"
        self.emit("for (uint64_t i = 0; i < %d; i += %d)" % (length, r.randrange(1, 7)), depth + 1)
        self.emit("%s = diff_mix(%s, %s);" % (target, target, read % ("vec", "vec", field)), depth + 2)
        self.emit("for (uint64_t i = 0; i < %d; i++)" % copied, depth + 1)
        self.emit("%s = %s * 31 + %s;" % (target, target, read % ("copy", "copy", field)), depth + 2)
        self.emit("}", depth)

    def atomics(self, env, depth, target):
        """Atomic builtins on reference fields, with safepoints between an
        operand's read and the operation: a compare-exchange loop (garbage in
        it, not a call, which could change the field every time), and
        __sync_val_compare_and_swap with an allocation among its arguments."""
        r = self.r
        holder, other = r.choice(env["refs"]), r.choice(env["refs"])
        self.emit("{", depth)
        self.emit("obj_ref fresh = diff_new_obj();", depth + 1)
        self.emit("fresh->v0 = %s;" % self.expr(env, 1), depth + 1)
        self.emit("obj_ref seen = __atomic_load_n(&%s->r1, __ATOMIC_ACQUIRE);" % holder, depth + 1)
        self.emit("do {", depth + 1)
        self.emit("fresh->r0 = seen;", depth + 2)
        self.emit("diff_garbage(%d);" % r.randrange(1, 6), depth + 2)
        self.emit("} while (!__atomic_compare_exchange_n(&%s->r1, &seen, fresh, %d, __ATOMIC_RELEASE, "
                  "__ATOMIC_RELAXED));" % (holder, r.randrange(2)), depth + 1)
        self.emit("%s += %s->r1->v0 + (%s->r1->r0 == seen);" % (target, holder, holder), depth + 1)
        choice = r.randrange(3)
        if choice == 0:
            self.emit("obj_ref was = __atomic_exchange_n(&%s->r0, %s, __ATOMIC_SEQ_CST);" % (holder, other),
                      depth + 1)
            self.emit("diff_garbage(%d);" % r.randrange(1, 6), depth + 1)
            self.emit("%s ^= was ? was->v%d : UINT64_C(9);" % (target, r.randrange(3)), depth + 1)
        elif choice == 1:
            self.emit("__atomic_store_n(&%s->r1, __atomic_load_n(&%s->r0, __ATOMIC_ACQUIRE), "
                      "__ATOMIC_RELEASE);" % (other, holder), depth + 1)
        else:
            self.emit("obj_ref current = %s->r1;" % holder, depth + 1)
            self.emit("obj_ref before = __sync_val_compare_and_swap(&%s->r1, current, diff_new_obj());"
                      % holder, depth + 1)
            self.emit("%s->r1->v1 = %s;" % (holder, self.expr(env, 1)), depth + 1)
            self.emit("%s += (before == current) + %s->r1->v1;" % (target, holder), depth + 1)
        self.emit("}", depth)

    def stack_slots(self, env, index, depth, target):
        """References in stack memory the pass keeps in a frame the collector
        updates: an array written through out-parameters, a struct of three
        references in memory, a struct of integers and a reference, and in
        half of them a variable-length array of references. Half the
        helpers are called through pointers, which keeps the memory at -O2."""
        r = self.r

        def helper(name):
            return name + ("_indirect" if r.randrange(2) else "")
        length = r.randrange(2, 9)
        self.emit("{", depth)
        self.emit("obj_ref slots[%d];" % length, depth + 1)
        self.emit("for (int i = 0; i < %d; i++)" % length, depth + 1)
        self.emit("slots[i] = %s;" % r.choice(env["refs"]), depth + 2)
        self.emit("%s(&slots[%d], %s);" % (helper("diff_make_into"), r.randrange(length),
                                           self.expr(env, 1)), depth + 1)
        self.emit("diff_ref_triple triple = %s(%s, %s);" % (
            helper("diff_ref_triple_make"), r.choice(env["refs"]), self.expr(env, 1)), depth + 1)
        self.emit("diff_tagged tagged = {%s, slots[%d], %s};" % (
            self.expr(env, 1), r.randrange(length), self.expr(env, 1)), depth + 1)
        variable = r.randrange(2)
        if variable:  # a variable-length array of references
            self.emit("uint64_t vlen = (%s) %% 5 + 1;" % self.expr(env, 1), depth + 1)
            self.emit("obj_ref vla[vlen];", depth + 1)
            self.emit("for (uint64_t i = 0; i < vlen; i++)", depth + 1)
            self.emit("%s(&vla[i], %s + i);" % (helper("diff_make_into"), self.expr(env, 1)), depth + 2)
        self.emit(self.safepoint(env, index), depth + 1)
        if variable:
            self.emit("for (uint64_t i = 0; i < vlen; i++)", depth + 1)
            self.emit("%s = diff_mix(%s, vla[i]->v%d);" % (target, target, r.randrange(3)), depth + 2)
        self.emit("%s += %s(triple) + %s(tagged);" % (
            target, helper("diff_ref_triple_sum"), helper("diff_tagged_sum")), depth + 1)
        self.emit("for (obj_ref *p = slots; p < slots + %d; p++)" % length, depth + 1)
        self.emit("%s = diff_mix(%s, *p ? (*p)->v%d : UINT64_C(7));" % (target, target, r.randrange(3)),
                  depth + 2)
        self.emit("%s ^= triple.c->v%d + tagged.node->v%d;" % (target, r.randrange(3), r.randrange(3)),
                  depth + 1)
        self.emit("}", depth)

    def interpreter(self, env, index, depth, target):
        """A threaded-code loop (goto *label): indirectbr cycles with references live around them."""
        r = self.r
        self.labels += 1
        n = self.labels
        code = [r.randrange(3) for _ in range(r.randrange(1, 24))] + [3]
        self.emit("{", depth)
        self.emit("static const void *const ops%d[] = {&&add%d, &&alloc%d, &&call%d, &&end%d};" % (n, n, n, n, n),
                  depth + 1)
        self.emit("static const uint8_t code%d[] = {%s};" % (n, ", ".join(map(str, code))), depth + 1)
        self.emit("const uint8_t *pc%d = code%d;" % (n, n), depth + 1)
        self.emit("obj_ref cur%d = %s;" % (n, r.choice(env["refs"])), depth + 1)
        self.emit("uint64_t made%d = 0;" % n, depth + 1)
        self.emit("goto *ops%d[*pc%d++];" % (n, n), depth + 1)
        self.emit("add%d:" % n, depth)
        self.emit("%s = %s * 31 + cur%d->v0;" % (target, target, n), depth + 1)
        self.emit("goto *ops%d[*pc%d++];" % (n, n), depth + 1)
        self.emit("alloc%d: {" % n, depth)
        self.emit("obj_ref node = diff_new_obj();", depth + 1)
        self.emit("node->v0 = %s + made%d++;" % (target, n), depth + 1)
        self.emit("node->r0 = cur%d;" % n, depth + 1)
        self.emit("cur%d = node;" % n, depth + 1)
        self.emit("goto *ops%d[*pc%d++];" % (n, n), depth + 1)
        self.emit("}", depth)
        self.emit("call%d:" % n, depth)
        self.emit(self.safepoint(env, index), depth + 1)
        self.emit("goto *ops%d[*pc%d++];" % (n, n), depth + 1)
        self.emit("end%d:" % n, depth)
        # Only the nodes made here: older objects' r0 fields may form cycles.
        self.emit("for (uint64_t k = 0; k < made%d; k++, cur%d = cur%d->r0)" % (n, n, n), depth + 1)
        self.emit("%s = diff_mix(%s, cur%d->v0);" % (target, target, n), depth + 2)
        self.emit("}", depth)

    def chain(self, env, index, depth, target):
        """A list built in a loop and walked with allocation in the walk: reference loop phis."""
        r = self.r
        self.emit("{", depth)
        self.emit("obj_ref head = 0;", depth + 1)
        self.emit("for (uint64_t i = 0; i < %d; i++) {" % r.randrange(1, 40), depth + 1)
        self.emit("obj_ref node = diff_new_obj();", depth + 2)
        self.emit("node->r0 = head;", depth + 2)
        self.emit("node->v0 = %s + i * %d;" % (target, r.randrange(1, 1000)), depth + 2)
        self.emit("if (i %% %d == 0)" % r.randrange(2, 9), depth + 2)
        self.emit(self.safepoint(env, index), depth + 3)
        self.emit("head = node;", depth + 2)
        self.emit("}", depth + 1)
        self.emit("for (obj_ref node = head; node; node = node->r0) {", depth + 1)
        self.emit("%s = diff_mix(%s, node->v0);" % (target, target), depth + 2)
        self.emit("if ((node->v0 & 3) == %d)" % r.randrange(4), depth + 2)
        self.emit("diff_garbage(1);", depth + 3)
        self.emit("}", depth + 1)
        self.emit("}", depth)

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

    def rounds(self):
        """rounds(salt, print): calls the last functions a few times, printing each result when asked."""
        r = self.r
        self.out.append("static uint64_t rounds(uint64_t salt, int print)")
        self.out.append("{")
        self.emit("uint64_t total = 0;")
        # Several rounds, so the collector thread gets to run during the calls.
        self.emit("for (uint64_t round = 0; round < %d; round++) {" % r.randrange(2, 6))
        for f in self.functions[-3:]:
            env = {"scalars": ["round"], "refs": ["root"], "derived": [], "words": [], "ref_arrays": []}
            self.emit("{", 2)
            self.emit("obj_ref root = diff_new_obj();", 3)
            self.emit("root->v1 = UINT64_C(%d) + round + salt * 977;" % r.randrange(1 << 30), 3)
            self.emit("uint64_t v = %s(%s);" % (f.name, self.call_args(f, env)), 3)
            self.emit("if (print)", 3)
            self.emit('printf("%s = %%016llx\\n", (unsigned long long)v);' % f.name, 4)
            self.emit("total = total * 1000003 + v;", 3)
            self.emit("}", 2)
        self.emit("}")
        self.emit("return total;")
        self.out.append("}")
        self.out.append("")

    def program(self, seed):
        r = self.r
        self.out.append("/* generated: tests/diff/gen.py --seed %d --with=%s */" % (seed, ",".join(self.shapes)))
        if "callbacks-in-memory" in self.shapes:
            self.out.append("#define _GNU_SOURCE 1 /* fopencookie */")
        for shape in self.shapes:  # diff_helpers.h adds the helpers these shapes call
            self.out.append("#define DIFF_WITH_%s 1" % shape.upper().replace("-", "_"))
        # A coin of its own, so the rest of the program is the same either way.
        if "headerless" in self.shapes and random.Random(seed * 2 + 1).random() < 0.5:
            self.out.append("#define DIFF_HEADERLESS_OBJ 1")
        if "foreign-callers" in self.shapes or "coroutines" in self.shapes:  # helpers call rounds()
            self.out.append("#include <stdint.h>")
            self.out.append("static uint64_t rounds(uint64_t salt, int print);")
        self.out.append('#include "diff_helpers.h"')
        if "c-strings" in self.shapes or "ref-vectors" in self.shapes:
            self.out.append("#include <string.h>")
        self.out.append("")
        self.function_count = r.randrange(4, 10)
        for i in range(self.function_count):
            self.function(i)
        self.rounds()
        threads = r.randrange(1, 4) if "threads" in self.shapes else 0
        if threads:
            self.out.append("static uint64_t thread_totals[%d];" % threads)
            self.out.append("static void *mutator(void *index)")
            self.out.append("{")
            self.emit("uintptr_t t = (uintptr_t)index;")
            self.emit("thread_totals[t] = rounds(t + 1, 0);")
            self.emit("return 0;")
            self.out.append("}")
            self.out.append("")
        self.out.append("int main(void)")
        self.out.append("{")
        self.emit("diff_start();")
        foreign = "foreign-callers" in self.shapes
        if foreign:
            self.emit("atexit(diff_at_exit);")
        if threads:
            self.emit("pthread_t threads[%d];" % threads)
            self.emit("for (uintptr_t t = 0; t < %d; t++)" % threads)
            self.emit("diff_thread_start(&threads[t], mutator, (void *)t);", 2)
        self.emit("uint64_t total = rounds(0, 1);")
        depth = r.randrange(200, 3000)
        self.emit("uint64_t deep = diff_recurse(%d, diff_new_obj(), UINT64_C(%d), 1, 2, 3);" % (depth, r.randrange(1 << 30)))
        self.emit('printf("recurse(%d) = %%016llx\\n", (unsigned long long)deep);' % depth)
        if threads:
            self.emit("for (int t = 0; t < %d; t++) {" % threads)
            self.emit("pthread_join(threads[t], 0);", 2)
            self.emit('printf("thread %d = %016llx\\n", t, (unsigned long long)thread_totals[t]);', 2)
            self.emit("}")
        if foreign:
            self.emit("uint64_t timer = diff_rounds_on_timer_thread(%d);" % r.randrange(1, 1000))
            self.emit("uint64_t destructor = diff_rounds_in_key_destructor(%d);" % r.randrange(1, 1000))
            self.emit('printf("timer thread = %016llx, key destructor = %016llx\\n", '
                      '(unsigned long long)timer, (unsigned long long)destructor);')
        if "coroutines" in self.shapes:
            self.emit("uint64_t fiber = diff_rounds_on_fiber(%d);" % r.randrange(1, 1000))
            self.emit('printf("fiber = %016llx\\n", (unsigned long long)fiber);')
        if "cleanups" in self.shapes:
            self.emit('printf("cleaned = %016llx\\n", (unsigned long long)diff_cleaned);')
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
