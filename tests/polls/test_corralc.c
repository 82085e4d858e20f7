/* test_corralc.c — the corralc driver: separate compilation (-c gives
 * bitcode, linked later), several managed files in one module, --emit-llvm,
 * -S, temporary files, and clear errors for a missing file, a bad flag, a
 * clang error, an unknown input and a managed-C rule violation, and calls
 * through declarations without a prototype across files, doubles through
 * managed varargs calls, and varargs functions with results across files. */
#include "ir_text.h"

static const char *write_source(const char *name, const char *text)
{
    const char *path = scratch_path(name);
    FILE *file = fopen(path, "w");
    if (!file)
        bail_out("cannot write %s: %s", path, strerror(errno));
    fputs(text, file);
    fclose(file);
    return path;
}

/* corralc with the fake runtime, in the scratch directory. */
static command_result corralc(const char *args)
{
    return run_command("cd %s && TMPDIR=%s %s --runtime=%s -I%s %s", scratch_dir, scratch_dir,
                    CORRALC, FAKE_RUNTIME, POLLS_TEST_DIR, args);
}

/* One ok(): corralc ARGS exits with status and prints expected; prints
 * what it said when not. */
static void check_corralc(const char *args, int status, const char *expected,
                          const char *description)
{
    command_result result = corralc(args);
    ok(result.status == status && strstr(result.output, expected), "%s", description);
    if (result.status != status || !strstr(result.output, expected))
        diag("%s", result.output);
    command_result_free(&result);
}

/* check_corralc at -O0..-O3: "-ON ARGS", described "-ON: WHAT". */
static void check_corralc_at_each_level(const char *args, int status, const char *expected,
                                        const char *what)
{
    for (int level = 0; level <= 3; level++) {
        char level_args[256], description[256];
        snprintf(level_args, sizeof level_args, "-O%d %s", level, args);
        snprintf(description, sizeof description, "-O%d: %s", level, what);
        check_corralc(level_args, status, expected, description);
    }
}

static const char main_source[] =
    "#include <corral.h>\n"
    "#include <stdio.h>\n"
    "long twice(long x);\n"
    "int main(void) {\n"
    "    long total = 0;\n"
    "    for (long i = 0; i < 1000; i++)\n"
    "        total += twice(i);\n"
    "    printf(\"total %ld\\n\", total);\n"
    "    return total == 999000 ? 0 : 1;\n"
    "}\n";

static const char helper_source[] = "long twice(long x) { return 2 * x; }\n";

static void test_separate_compilation(void)
{
    write_source("main.c", main_source);
    write_source("helper.c", helper_source);
    command_result result = corralc("-O2 -c helper.c -o helper.o");
    is_int(result.status, 0, "-c compiles one file");
    command_result_free(&result);
    char *bytes = read_file(scratch_path("helper.o"));
    ok(bytes && memcmp(bytes, "BC\xc0\xde", 4) == 0, "-c output is LLVM bitcode");
    free(bytes);
    result = corralc("-O2 main.c helper.o -o program && ./program");
    ok(result.status == 0 && strstr(result.output, "total 999000"),
       "a bitcode .o links with a .c file and runs");
    command_result_free(&result);
}

static void test_one_module(void)
{
    command_result result = corralc("-O0 --emit-llvm main.c helper.c -o linked.ll");
    is_int(result.status, 0, "--emit-llvm writes the processed module");
    command_result_free(&result);
    char *ir = read_file(scratch_path("linked.ll"));
    like_str(ir, "gc \"coreclr\"", "managed functions carry the gc strategy");
    like_str(ir, "elementtype(i64 (i64)) @corral.managed.twice",
             "a call into another managed file is a direct statepoint (to the function, not "
             "the entry that took its symbol for C)");
    ok(ir && !strstr(ir, "corral.unmanaged.twice"), "no wrapper for a managed callee");
    like_str(ir, "corral.unmanaged.printf", "printf goes through a wrapper");
    free(ir);

    result = corralc("-O2 -S main.c helper.c -o linked.s");
    char *text = read_file(scratch_path("linked.s"));
    ok(result.status == 0 && text && strstr(text, "cmpq\t$0, corral_poll_page(%rip)"),
       "-S writes assembly with the one-compare poll");
    free(text);
    command_result_free(&result);
}

static int count_temp_dirs(void)
{
    command_result result = run_command("ls -d %s/corralc-* 2>/dev/null | wc -l", scratch_dir);
    int count = atoi(result.output);
    command_result_free(&result);
    return count;
}

static void test_temporaries(void)
{
    command_result result = corralc("-O1 -v main.c helper.c -o program");
    ok(result.status == 0 && strstr(result.output, "corral-opt") &&
           strstr(result.output, "--rename-section") && strstr(result.output, "-emit-llvm"),
       "-v prints the clang, corral-opt, objcopy and link commands");
    command_result_free(&result);
    is_int(count_temp_dirs(), 0, "temporary files are removed");
    result = corralc("-O1 --keep-temps main.c helper.c -o program");
    ok(result.status == 0 && strstr(result.output, "temporary files kept in"),
       "--keep-temps says where the files are");
    command_result_free(&result);
    is_int(count_temp_dirs(), 1, "--keep-temps keeps them");
    command_result_free(&result);
    result = run_command("rm -rf %s/corralc-*", scratch_dir);
    command_result_free(&result);
}

static void test_errors(void)
{
    command_result result = corralc("no-such-file.c");
    ok(result.status == 1 && strstr(result.output, "corralc: error: no-such-file.c: No such file"),
       "a missing input is named");
    command_result_free(&result);

    result = corralc("-fomit-everything main.c");
    ok(result.status == 1 && strstr(result.output, "unsupported option '-fomit-everything'"),
       "an unsupported flag is named");
    command_result_free(&result);

    write_source("broken.c", "int main(void) { return undefined_name; }\n");
    result = corralc("broken.c -o broken");
    ok(result.status == 1 && strstr(result.output, "broken.c:1") &&
           strstr(result.output, "corralc: error: compiling broken.c failed"),
       "a clang error is shown and stops the build");
    command_result_free(&result);

    write_source("notes.txt", "hello\n");
    result = corralc("notes.txt");
    ok(result.status == 1 && strstr(result.output, "notes.txt: unrecognized input file type"),
       "an unknown input type is named");
    command_result_free(&result);

    result = corralc("");
    ok(result.status == 1 && strstr(result.output, "no input files"), "no inputs is an error");
    command_result_free(&result);

    write_source("escape.c",
                 "#include <corral.h>\n"
                 "void keep(corral_ref *slot);\n"
                 "void escapes(corral_ref r) { keep(&r); }\n");
    result = corralc("-O1 -c escape.c -o escape.o && TMPDIR=/tmp " CORRALC " escape.o -o escape");
    ok(result.status == 1 && strstr(result.output, "corral-opt: error:") &&
           strstr(result.output, "escapes: the address of stack slot '%r.addr', which holds "
                                 "references, is passed to unmanaged function 'keep'"),
       "a reference local whose address goes to plain C is rejected, naming the function, "
       "the variable and the callee");
    command_result_free(&result);

    result = run_command("cd %s && %s --runtime=/no/such/libcorral.a main.c helper.c -o program",
                      scratch_dir, CORRALC);
    ok(result.status == 1 && strstr(result.output, "runtime library '/no/such/libcorral.a'"),
       "a missing runtime library is named");
    command_result_free(&result);

    result = corralc("-c -o two.o main.c helper.c");
    ok(result.status == 1 && strstr(result.output, "-o with -c and 2 inputs"),
       "-c -o with two inputs is refused");
    command_result_free(&result);
}

/* corralc passes -fno-builtin, so clang never marks these returns_twice:
 * the pass must know them by name, at every optimisation level. The
 * setjmp family is supported (a direct leaf call, and the program recovers
 * through longjmp), and getcontext becomes the runtime's, which returns once
 * (threads/stack_switch.c); vfork is rejected. */
static void test_returns_twice(void)
{
    static const struct {
        const char *name, *header, *call;
        bool supported;
    } cases[] = {
        /* The name the call reaches after glibc's macros. */
        {"setjmp", "setjmp.h", "jmp_buf env; if ((setjmp)(env) == 0) longjmp(env, 1);", true},
        {"_setjmp", "setjmp.h", "jmp_buf env; if (setjmp(env) == 0) longjmp(env, 1);", true},
        {"__sigsetjmp", "setjmp.h",
         "sigjmp_buf env; if (sigsetjmp(env, 1) == 0) siglongjmp(env, 1);", true},
        /* __builtin_setjmp: an intrinsic without the returns_twice attribute. */
        {"llvm.eh.sjlj.setjmp", "stdint.h",
         "static void *env[5]; if (__builtin_setjmp(env) == 0) __builtin_longjmp(env, 1);", true},
        {"vfork", "unistd.h", "if (vfork() == 0) _exit(0);", false},
        {"getcontext", "ucontext.h", "ucontext_t context; getcontext(&context);", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512], args[64], expected[128];
        snprintf(text, sizeof text,
                 "#include <%s>\n#include <stdio.h>\n#include <unistd.h>\n"
                 "int main(void) { %s puts(\"recovered\"); return 0; }\n",
                 cases[i].header, cases[i].call);
        write_source("twice.c", text);
        snprintf(expected, sizeof expected, "call to '%s' returns twice", cases[i].name);
        for (int level = 0; level <= 3; level++) {
            snprintf(args, sizeof args, "-O%d twice.c -o twice && ./twice", level);
            command_result result = corralc(args);
            if (cases[i].supported) {
                if (!ok(result.status == 0 && strstr(result.output, "recovered"),
                        "-O%d: a call to %s compiles and the program runs on", level,
                        cases[i].name))
                    diag("%s", result.output);
            } else if (!ok(result.status == 1 && strstr(result.output, expected),
                           "-O%d: a call to %s is rejected", level, cases[i].name)) {
                diag("%s", result.output);
            }
            command_result_free(&result);
        }
    }
}

/* Shapes a statepoint cannot take are rejected with a message at every
 * level (they once produced invalid IR; see tests/diff/README.md). */
static void test_statepoint_shapes_rejected(void)
{
    static const struct {
        const char *what, *source, *expected;
    } cases[] = {
        {"a musttail call to unmanaged C",
         "#include <stdio.h>\n"
         "__attribute__((noinline)) int caller(const char *s) { __attribute__((musttail)) return puts(s); }\n"
         "int main(void) { return caller(\"x\") < 0; }\n",
         "caller: musttail call to unmanaged function 'puts'"},
        {"an indirect call of a varargs function with a result",
         "#include <stdio.h>\n"
         "static int (*volatile format)(char *, size_t, const char *, ...) = snprintf;\n"
         "int main(void) { char t[8]; return format(t, sizeof t, \"%d\", 1) != 1; }\n",
         "main: indirect call of a varargs function that returns a value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_source("shape.c", cases[i].source);
        for (int level = 0; level <= 3; level++) {
            char args[64];
            snprintf(args, sizeof args, "-O%d shape.c -o shape", level);
            command_result result = corralc(args);
            ok(result.status == 1 && strstr(result.output, cases[i].expected),
               "-O%d: %s is rejected with a message", level, cases[i].what);
            if (!strstr(result.output, cases[i].expected))
                diag("%s", result.output);
            command_result_free(&result);
        }
    }
}

/* A call through a declaration without a prototype has a varargs type;
 * the function defined in another file is called by its own type (K&R
 * promotions included), and a call that does not match it is rejected. */
static void test_unprototyped_calls(void)
{
    write_source("caller.c", "#include <stdio.h>\n"
                             "long scale();\n"
                             "int promoted();\n"
                             "int main(void) {\n"
                             "    char c = 3;\n"
                             "    long total = scale(20L, 2L) + promoted(c, 1.0f);\n"
                             "    printf(\"total %ld\\n\", total);\n"
                             "    return total == 44 ? 0 : 1;\n"
                             "}\n");
    write_source("callee.c", "long scale(long x, long k) { return x * k; }\n"
                             "int promoted(c, f) char c; float f; { return c + (f == 1.0f); }\n");
    write_source("bad_caller.c", "long scale();\n"
                                 "int main(void) { return (int)scale(2.5, 2L); }\n");
    check_corralc_at_each_level("caller.c callee.c -o unprototyped && ./unprototyped", 0,
                                "total 44", "calls through declarations without a prototype run");
    /* At -O1 and above the optimiser rewrites such a call itself (it passes
     * the double's bits as an integer) before the pass sees it. */
    check_corralc("-O0 bad_caller.c callee.c -o bad", 1,
                  "main: call of 'scale' through a declaration without a prototype, as "
                  "'i64 (double, i64, ...)', does not match its type 'i64 (i64, i64)'",
                  "-O0: one whose arguments do not match the definition is rejected by name");
}

/* Doubles through "..." of a managed varargs call reach the callee: on
 * x86-64 it reads them only when %al, which a statepoint leaves unset, is
 * not 0. An indirect such call is rejected. */
static void test_varargs_doubles(void)
{
    write_source("vdoubles.c", "#include <stdarg.h>\n"
                               "#include <stdio.h>\n"
                               "__attribute__((noinline)) void vsum(double *out, int n, ...) {\n"
                               "    va_list ap;\n"
                               "    va_start(ap, n);\n"
                               "    double s = 0;\n"
                               "    for (int i = 0; i < n; i++) s = s * 2 + va_arg(ap, double);\n"
                               "    va_end(ap);\n"
                               "    *out = s;\n"
                               "}\n"
                               "int main(void) {\n"
                               "    double s;\n"
                               "    vsum(&s, 9, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 0.5);\n"
                               "    printf(\"sum %g\\n\", s);\n"
                               "    return s != 1004.5;\n"
                               "}\n");
    write_source("vindirect.c", "void vsum(double *out, int n, ...);\n"
                                "void (*volatile pointer)(double *, int, ...) = vsum;\n"
                                "void vsum(double *out, int n, ...) { *out = n; }\n"
                                "int main(void) { double s; pointer(&s, 1, 2.0); return s != 1; }\n");
    check_corralc_at_each_level("vdoubles.c -o vdoubles && ./vdoubles", 0, "sum 1004.5",
                                "doubles through a managed varargs call reach the callee");
    check_corralc_at_each_level("vindirect.c -o vindirect", 1,
                                "main: indirect call of a varargs function with a "
                                "floating-point or vector argument",
                                "an indirect varargs call passing a double is rejected by name");
}

/* A varargs function with a result need not be static in an executable:
 * corralc links every managed file into the module the pass sees
 * (--whole-program). A shared library, or an object for another link
 * without --whole-program, still needs it static. */
static void test_whole_program_varargs(void)
{
    write_source("vlib.c", "#include <stdarg.h>\n"
                           "long vfold(int n, ...) {\n"
                           "    va_list ap;\n"
                           "    va_start(ap, n);\n"
                           "    long s = 0;\n"
                           "    for (int i = 0; i < n; i++) s = s * 10 + va_arg(ap, long);\n"
                           "    va_end(ap);\n"
                           "    return s;\n"
                           "}\n"
                           "double vscale(double k, ...) {\n"
                           "    va_list ap;\n"
                           "    va_start(ap, k);\n"
                           "    double x = va_arg(ap, double);\n"
                           "    va_end(ap);\n"
                           "    return k * x;\n"
                           "}\n");
    write_source("vmain.c", "#include <stdio.h>\n"
                            "long vfold(int n, ...);\n"
                            "double vscale(double k, ...);\n"
                            "int main(void) {\n"
                            "    long total = vfold(3, 1L, 2L, 3L) + (long)vscale(2.0, 21.0);\n"
                            "    printf(\"total %ld\\n\", total);\n"
                            "    return total != 165;\n"
                            "}\n");
    check_corralc_at_each_level("vmain.c vlib.c -o vprogram && ./vprogram", 0, "total 165",
                                "a program calls non-static varargs functions with results");
    check_corralc("-O2 -c vmain.c vlib.c && " CORRALC " --runtime=" FAKE_RUNTIME
                  " -O2 vmain.o vlib.o -o vprogram && ./vprogram",
                  0, "total 165", "and so does one compiled with -c and linked later");
    const char *rule = "vfold: a managed varargs function that returns a value must be static, "
                       "or not weak in a whole program";
    check_corralc("-O2 -shared vmain.c vlib.c -o vlib.so", 1, rule,
                  "a shared library's must be static");
    check_corralc("-O2 --emit-object vmain.c vlib.c -o vobject.o", 1, rule,
                  "--emit-object: must be static without --whole-program");
    check_corralc("-O2 --emit-object --whole-program vmain.c vlib.c -o vobject.o && "
                  "nm vobject.o | grep ' vfold$'",
                  0, " t vfold", "--emit-object --whole-program: accepted, the symbol is local");
}

/* Flags real builds pass are accepted, and dependency files are written
 * where cc would write them. */
static void test_build_flags(void)
{
    command_result result = corralc("-O2 -fPIC -fpie -fwrapv -fno-strict-aliasing -g3 -ggdb "
                                 "-fno-omit-frame-pointer -MD main.c helper.c -o flagged && "
                                 "./flagged");
    ok(result.status == 0 && strstr(result.output, "total 999000"),
       "-fPIC -fpie -fwrapv -fno-strict-aliasing -g3 -ggdb -fno-omit-frame-pointer -MD build "
       "a program that runs");
    if (result.status != 0)
        diag("%s", result.output);
    command_result_free(&result);
    char *dependencies = read_file(scratch_path("main.d"));
    ok(dependencies && strncmp(dependencies, "flagged: ", 9) == 0 &&
           strstr(dependencies, "corral.h"),
       "-MD without -c writes STEM.d naming the program and the headers");
    free(dependencies);

    result = corralc("-MD -MF all.deps main.c helper.c -o gathered");
    dependencies = read_file(scratch_path("all.deps"));
    ok(result.status == 0 && dependencies && strstr(dependencies, "gathered: main.c") &&
           strstr(dependencies, "gathered: helper.c"),
       "-MD -MF without -c gathers every source's rules into the one file");
    free(dependencies);
    command_result_free(&result);

    result = corralc("-c -MMD -MF helper.deps -MT helper-target.o helper.c -o helper.o");
    dependencies = read_file(scratch_path("helper.deps"));
    ok(result.status == 0 && dependencies && strstr(dependencies, "helper-target.o: helper.c"),
       "-c -MMD -MF -MT write the named file with the named target");
    free(dependencies);
    command_result_free(&result);

    result = corralc("-c -MD helper.c -o helper2.o");
    dependencies = read_file(scratch_path("helper2.d"));
    ok(result.status == 0 && dependencies && strstr(dependencies, "helper2.o: helper.c"),
       "-c -MD writes OUTPUT.d");
    free(dependencies);
    command_result_free(&result);

    result = corralc("-fomit-frame-pointer main.c helper.c");
    ok(result.status == 1 &&
           strstr(result.output, "-fomit-frame-pointer is not supported for managed code: the "
                                 "stack walker follows frame pointers"),
       "-fomit-frame-pointer is an error naming it and why");
    command_result_free(&result);
    result = corralc("-O2 -flto=thin main.c helper.c");
    ok(result.status == 1 && strstr(result.output, "-flto=thin is not supported for managed "
                                                   "code: corralc links the managed inputs"),
       "-flto=thin is an error saying why");
    command_result_free(&result);
    result = corralc("-O2 -fopenmp-simd main.c helper.c");
    ok(result.status == 1 && strstr(result.output, "-fopenmp-simd is not supported"),
       "-fopenmp-simd is an error");
    command_result_free(&result);

    result = corralc("-shared -static main.c helper.c");
    ok(result.status == 1 && strstr(result.output, "-shared and -static are exclusive"),
       "-shared with -static is refused");
    command_result_free(&result);

    result = corralc("-O1 --emit-object main.c helper.c -o managed.o && "
                     "nm managed.o | grep -c ' T \\(main\\|twice\\)$' && "
                     "readelf -S managed.o | grep -c ' llvm_stackmaps '");
    ok(result.status == 0 && strcmp(result.output, "2\n1\n") == 0,
       "--emit-object writes one object with both files' functions and the renamed section");
    if (result.status != 0)
        diag("%s", result.output);
    command_result_free(&result);

    result = corralc("--help");
    ok(result.status == 0 && strstr(result.output, "-shared") && strstr(result.output, "-MD") &&
           strstr(result.output, "plain C"),
       "--help documents -shared, dependency files and plain-C inputs");
    command_result_free(&result);
}

/* The flags of distributions' and build systems' defaults are accepted and
 * reach the code: each changes the assembly as it does under clang. */
static void test_hardening_flags(void)
{
    write_source("frames.c",
                 "void take(char *p, long n);\n"
                 "void frames(long n) { char buf[n]; take(buf, n); char fixed[9000]; "
                 "take(fixed, 9000); }\n"
                 "long triple(long *a, long n) { long s = 0; for (long i = 0; i < n; i++) "
                 "s += a[i] * 3; return s; }\n");
    const char *flags = "-fstack-protector-strong -fstack-clash-protection -fcf-protection "
                        "-mavx2 -fzero-call-used-regs=used-gpr -ftrivial-auto-var-init=pattern "
                        "-fexceptions -fasynchronous-unwind-tables -ffile-prefix-map=/x=. "
                        "-fdiagnostics-color=always -pipe -fno-plt -fvisibility=hidden "
                        "-fno-common -gdwarf-4 -grecord-gcc-switches -mtune=generic -m64";
    char command[1024];
    snprintf(command, sizeof command, "-O2 -S frames.c -o plain.s && cd %s && %s --runtime=%s "
             "%s -O2 -S frames.c -o hardened.s", scratch_dir, CORRALC, FAKE_RUNTIME, flags);
    command_result result = corralc(command);
    if (result.status == 0) {
        command_result_free(&result);
        result = run_command("cd %s && for p in __stack_chk_fail endbr64 'orq\t$0, (%%rsp)' ymm; "
                             "do echo \"$p $(grep -c \"$p\" plain.s) $(grep -c \"$p\" "
                             "hardened.s)\"; done", scratch_dir);
    }
    ok(result.status == 0 && strstr(result.output, "__stack_chk_fail 0 1") &&
           output_matches(result.output, "endbr64 0 [1-9]") &&
           strstr(result.output, "$0, (%rsp) 0 1") && output_matches(result.output, "ymm 0 [1-9]"),
       "hardening flags reach the code: a stack protector, endbr64, stack probes, AVX2");
    if (result.status != 0)
        diag("%s", result.output);
    command_result_free(&result);
}

static void test_pass_options(void)
{
    command_result result = corralc("-O2 --report-poll-distance --polls=loop,return,entry main.c helper.c -o program");
    ok(result.status == 0 && strstr(result.output, "main: poll distance"),
       "pass options are forwarded to corral-opt");
    command_result_free(&result);
}

int main(void)
{
    scratch_dir_make("polls-test");
    test_separate_compilation();
    test_one_module();
    test_temporaries();
    test_errors();
    test_pass_options();
    test_build_flags();
#if defined(__x86_64__)
    test_hardening_flags();
#else
    skip(1, "x86-64 flags (-fcf-protection, -mavx2)");
#endif
    test_returns_twice();
    test_statepoint_shapes_rejected();
    test_unprototyped_calls();
    test_varargs_doubles();
    test_whole_program_varargs();
    scratch_dir_remove();
    return done_testing();
}
