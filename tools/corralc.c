/* corralc — the compiler driver for managed C.
 *
 *   corralc [-O0..-O3] [-g] [-I DIR] [-D X[=Y]] [-c] [-o OUT] [-static|-shared]
 *           [-fsanitize=...] [-L DIR] [-l LIB] [-Wl,...] [--runtime=PATH]
 *           [-MD -MMD -MF -MT] [--target=TRIPLE] [pass options] FILE.c|FILE.ll|FILE.bc|FILE.o...
 *
 *   FILE.c ──clang -emit-llvm──> bitcode ─┐            (-c stops here: the .o
 *   FILE.ll / FILE.bc / bitcode .o ───────┤             is bitcode, linked later)
 *                                          └─> corral-opt (link, pass, codegen) -> managed.o
 *   managed.o ──llvm-objcopy: .llvm_stackmaps -> allocatable llvm_stackmaps──┐
 *   real .o / .a / -l ───────────────────────────────────────────────────────┴─> clang link
 *
 * Managed code is optimized after linking (like LTO), with references
 * non-integral, so no optimization turns a reference into an integer.
 * Tools are found where configure found them; corral-opt, the headers and
 * libcorral.a next to this executable (bin/, ../include, ../lib).
 */
#include "util.h"

#include "corral/abi.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOOL "corralc"

#ifndef CORRAL_CLANG_PATH
#error "CORRAL_CLANG_PATH must be defined by the build (configure-time clang)"
#endif
#ifndef CORRAL_OBJCOPY_PATH
#error "CORRAL_OBJCOPY_PATH must be defined by the build (configure-time llvm-objcopy)"
#endif

static const char usage_text[] =
    "usage: corralc [options] FILE.c|FILE.ll|FILE.bc|FILE.o... [-o OUTPUT]\n"
    "\n"
    "Compiles managed C (references are CORRAL_REF pointers, see corral.h) with\n"
    "safepoint polls and stackmaps, and links it with the corral runtime.\n"
    "\n"
    "  -c                 compile only: the output is LLVM bitcode (.o), linked later\n"
    "  -S                 stop after code generation: assembly\n"
    "  --emit-llvm        stop after the pass: LLVM IR text of the linked module\n"
    "  --emit-object      stop before linking: the managed inputs as one relocatable\n"
    "                     object (stackmap section renamed) for another link step, with\n"
    "                     libcorral.a (what corral_add_managed_executable does)\n"
    "  -o FILE            output (default a.out; with -c, FILE.o per input)\n"
    "  -O0 -O1 -O2 -O3 -Os -Oz   optimization level (default -O0)\n"
    "  -g -g0..-g3 -ggdb -ggdb3 -gline-tables-only   debug information\n"
    "  -I DIR, -D X[=Y], -U X, -include FILE, -std=..., -W..., -w, -march=CPU\n"
    "                     passed to clang (-march also to code generation)\n"
    "  -fwrapv -fno-strict-aliasing -fno-omit-frame-pointer -fPIC -fpic -fPIE -fpie\n"
    "                     passed to clang; managed code is always position-independent\n"
    "                     and keeps frame pointers\n"
    "  -fstack-protector[-strong|-all] -fstack-clash-protection -fcf-protection[=..]\n"
    "  -ftrivial-auto-var-init=.. -fzero-call-used-regs=.. -fexceptions -funwind-tables\n"
    "  -fvisibility=.. -fno-common -fno-plt -ffast-math -ffile-prefix-map=.. -pipe\n"
    "  -fdiagnostics-color -mtune=.. -mavx2 (and other -mEXT, -mno-EXT) -gdwarf-4 ..\n"
    "                     the flags distributions and build systems pass, to clang;\n"
    "                     -flto, -fopenmp, -fomit-frame-pointer, -m32 and a few others\n"
    "                     are errors that say why (docs/managed-c.md)\n"
    "  -rdynamic -pie -no-pie   passed to the linker\n"
    "  -MD -MMD -MP -MF FILE -MT TARGET -MQ TARGET   dependency files, as clang writes\n"
    "                     them; without -c, -MD writes STEM.d for each .c input (or\n"
    "                     all of them into the -MF file), its target the output\n"
    "  -static            link statically\n"
    "  -shared            link a shared library of managed code: it registers its\n"
    "                     stackmaps with corral_register_stackmaps when loaded, and\n"
    "                     takes the runtime from the program that loads it (which links\n"
    "                     libcorral.so); not unloaded by dlclose\n"
    "  -fsanitize=LIST    link with the sanitizer runtimes; managed code itself is\n"
    "                     not instrumented (statepoints and sanitizer instrumentation\n"
    "                     are not combined)\n"
    "  -L DIR, -l LIB, -Wl,ARGS, -pthread   passed to the linker\n"
    "  --runtime=PATH     runtime library or object to link instead of libcorral.a\n"
    "  --target=TRIPLE    compile and link for x86_64-linux-gnu or aarch64-linux-gnu\n"
    "                     (default the host); cross-linking needs that target's C\n"
    "                     library and liburcu, and its runtime from --runtime=PATH or\n"
    "                     ../lib/TRIPLE/libcorral.a next to corralc\n"
    "  --polls=KINDS --loop-poll-interval=K --poll-page=direct|got\n"
    "  --no-write-barrier no write barrier (it is on by default): the code must then\n"
    "                     only run with CORRAL_GC_GENERATIONAL=0\n"
    "  --satb-barrier     a deletion barrier before each reference store into the\n"
    "                     heap, for snapshot-at-the-beginning marking: logs the\n"
    "                     overwritten references while the collector asks\n"
    "                     (CORRAL_GC_VERIFY=satb checks it); off by default, passed\n"
    "                     to corral-opt\n"
    "  --report-poll-distance --max-poll-distance=N --leaf=F,.. --unmanaged=F,..\n"
    "  --managed=F,.. --externals-managed --no-default-leaves --allow-unpolled-loops\n"
    "  --gcroot=shadow-stack|promoted --keep-external-symbols\n"
    "                     passed to corral-opt (see corral-opt --help)\n"
    "  --whole-program    passed to corral-opt: the managed inputs are the whole\n"
    "                     program's (always so when corralc links an executable; give\n"
    "                     it with --emit-object for one)\n"
    "  --ref-tags=T,..    the reference tags of the program's tag scheme (V8's: 1), so\n"
    "                     a pointer offset of T bytes tags a reference (corral-opt)\n"
    "  -mllvm OPTION      an LLVM option for optimization and code generation\n"
    "  --keep-temps       keep the temporary directory (its path is printed)\n"
    "  -v                 print each command\n"
    "  -h, --help         this text\n"
    "\n"
    "Inputs: .c files are managed C. .ll, .bc and bitcode .o files (from corralc -c)\n"
    "are managed IR. Any other .o, .a or .so is plain code linked as it is: compile\n"
    "plain C (an interpreter, C libraries) with cc -c and pass the object; calls\n"
    "from managed code into it are unmanaged (GC transitions) unless declared\n"
    "CORRAL_LEAF, and it holds references only in handles.\n"
    "Any other option is an error that names it.\n";

typedef struct driver {
    string_list clang_flags;   /* -I -D -U -std -W... for compiling C */
    string_list pass_flags;    /* forwarded to corral-opt */
    int no_write_barrier;      /* --no-write-barrier: code only for CORRAL_GC_GENERATIONAL=0 */
    string_list link_flags;    /* -L -l -Wl, -static -fsanitize -pthread */
    string_list dependency_flags; /* -MD -MMD -MP -MT -MQ, for compiling C */
    const char *dependency_output; /* -MF FILE */
    string_list dependency_parts;  /* without -c: one temporary .d per source for -MF */
    string_list inputs;
    const char *output;
    const char *runtime;
    const char *march;
    const char *target;        /* --target=TRIPLE, NULL for the host */
    char optimize[4];          /* "-O0" .. "-O3", "-Os", "-Oz" */
    const char *debug;         /* the -g flag given last, NULL for none */
    int compile_only, assembly, emit_llvm, emit_object, verbose, keep_temps, is_static, shared;
    int dependency_file, dependency_target_named;
    char *exe_dir;
    char *temp_dir;
    string_list temp_files;
} driver;

static driver *cleanup_driver;

static __attribute__((format(printf, 1, 2))) void driver_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    print_message_line(TOOL ": error: ", format, args);
    va_end(args);
}

/* ---- temporary files */

static void remove_temps(void)
{
    driver *d = cleanup_driver;
    if (!d || !d->temp_dir)
        return;
    if (d->keep_temps) {
        fprintf(stderr, TOOL ": temporary files kept in %s\n", d->temp_dir);
        return;
    }
    for (size_t i = 0; i < d->temp_files.count; i++)
        unlink(d->temp_files.items[i]);
    rmdir(d->temp_dir);
}

static void remove_temps_on_signal(int signal_number)
{
    remove_temps();
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

static int make_temp_dir(driver *d)
{
    const char *base = getenv("TMPDIR");
    char *template = xasprintf("%s/corralc-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(template)) {
        driver_error("cannot create a temporary directory from '%s': %s", template,
                     strerror(errno));
        free(template);
        return -1;
    }
    d->temp_dir = template;
    cleanup_driver = d;
    atexit(remove_temps);
    signal(SIGINT, remove_temps_on_signal);
    signal(SIGTERM, remove_temps_on_signal);
    signal(SIGHUP, remove_temps_on_signal);
    return 0;
}

static char *temp_path(driver *d, const char *stem, const char *extension)
{
    char *path = xasprintf("%s/%zu-%s%s", d->temp_dir, d->temp_files.count, stem, extension);
    VEC_PUSH(d->temp_files, path);
    return path;
}

/* ---- running tools */

static void print_command(char *const *argv)
{
    for (size_t i = 0; argv[i]; i++) {
        const char *arg = argv[i];
        int plain = strpbrk(arg, " \t\n'\"\\$`*?;&|<>()") == NULL && *arg;
        fprintf(stderr, i ? " %s%s%s" : "%s%s%s", plain ? "" : "'", arg, plain ? "" : "'");
    }
    fputc('\n', stderr);
}

/* Runs argv (no shell) and waits. what names the step in error messages. */
static int run_command(const driver *d, string_list *argv, const char *what)
{
    VEC_PUSH(*argv, NULL);
    if (d->verbose)
        print_command(argv->items);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child < 0) {
        driver_error("fork for %s: %s", what, strerror(errno));
        return -1;
    }
    if (child == 0) {
        execv(argv->items[0], argv->items);
        fprintf(stderr, TOOL ": error: cannot run %s: %s\n", argv->items[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) {
            driver_error("waiting for %s: %s", what, strerror(errno));
            return -1;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status))
        driver_error("%s: %s was killed by signal %d (%s)", what, argv->items[0],
                     WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status) != 127)
        driver_error("%s failed (%s exited with status %d)", what, argv->items[0],
                     WEXITSTATUS(status));
    return -1;
}

static void push(string_list *list, const char *arg)
{
    VEC_PUSH(*list, xstrdup(arg));
}

static void push_all(string_list *list, const string_list *more)
{
    for (size_t i = 0; i < more->count; i++)
        push(list, more->items[i]);
}

/* ---- inputs */

typedef enum input_kind {
    INPUT_C,
    INPUT_IR,          /* .ll, .bc, or a bitcode .o from corralc -c */
    INPUT_LINKER,      /* a real object or library */
} input_kind;

static int is_bitcode_file(const char *path)
{
    unsigned char magic[4] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, magic, sizeof magic);
    close(fd);
    if (got != 4)
        return 0;
    int raw = magic[0] == 'B' && magic[1] == 'C' && magic[2] == 0xC0 && magic[3] == 0xDE;
    int wrapped = magic[0] == 0xDE && magic[1] == 0xC0 && magic[2] == 0x17 && magic[3] == 0x0B;
    return raw || wrapped;
}

static const char *extension_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    return dot ? dot : "";
}

static int classify_input(const char *path, input_kind *kind)
{
    struct stat info;
    if (stat(path, &info) != 0) {
        driver_error("%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(info.st_mode)) {
        driver_error("%s: not a regular file", path);
        return -1;
    }
    const char *ext = extension_of(path);
    if (strcmp(ext, ".c") == 0)
        *kind = INPUT_C;
    else if (strcmp(ext, ".ll") == 0 || strcmp(ext, ".bc") == 0)
        *kind = INPUT_IR;
    else if (strcmp(ext, ".o") == 0)
        *kind = is_bitcode_file(path) ? INPUT_IR : INPUT_LINKER;
    else if (strcmp(ext, ".a") == 0 || strcmp(ext, ".so") == 0 || strstr(path, ".so."))
        *kind = INPUT_LINKER;
    else {
        driver_error("%s: unrecognized input file type: expected .c, .ll, .bc, .o, .a or .so",
                     path);
        return -1;
    }
    return 0;
}

/* ---- steps */

static char *stem_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return xstrndup(base, dot ? (size_t)(dot - base) : strlen(base));
}

/* Without -c the object is a temporary: name the dependency file after the
 * source (STEM.d, like cc), or gather every source's into the -MF file
 * (one file a build system can read), and name the output as the target. */
static void push_dependency_flags(driver *d, string_list *argv, const char *source)
{
    push_all(argv, &d->dependency_flags);
    if (!d->dependency_file || d->compile_only) {
        if (d->dependency_output) {
            push(argv, "-MF");
            push(argv, d->dependency_output);
        }
        return;
    }
    char *stem = stem_of(source);
    char *file = d->dependency_output ? xstrdup(temp_path(d, stem, ".d")) : xasprintf("%s.d", stem);
    if (d->dependency_output)
        push(&d->dependency_parts, file);
    push(argv, "-MF");
    push(argv, file);
    free(file);
    free(stem);
    if (!d->dependency_target_named) {
        push(argv, "-MT");
        push(argv, d->output ? d->output : "a.out");
    }
}

/* --target=TRIPLE for clang and corral-opt alike. */
static void push_target(const driver *d, string_list *argv)
{
    if (!d->target)
        return;
    char *flag = xasprintf("--target=%s", d->target);
    push(argv, flag);
    free(flag);
}

static int compile_c(driver *d, const char *source, const char *output)
{
    string_list argv = {0};
    push(&argv, CORRAL_CLANG_PATH);
    push_target(d, &argv);
    push(&argv, "-emit-llvm");
    push(&argv, "-c");
    push(&argv, "-fno-builtin");
    push(&argv, "-fno-discard-value-names");
    push(&argv, "-D__CORRAL_MANAGED__");
    char *include = xasprintf("-I%s/../include", d->exe_dir);
    push(&argv, include);
    free(include);
    push(&argv, d->optimize);
    /* Optimization runs in corral-opt, after references become non-integral. */
    push(&argv, "-Xclang");
    push(&argv, strcmp(d->optimize, "-O0") == 0 ? "-disable-O0-optnone" : "-disable-llvm-passes");
    if (d->debug)
        push(&argv, d->debug);
    if (d->march) {
        char *flag = xasprintf("-march=%s", d->march);
        push(&argv, flag);
        free(flag);
    }
    push_all(&argv, &d->clang_flags);
    push_dependency_flags(d, &argv, source);
    push(&argv, "-o");
    push(&argv, output);
    push(&argv, source);
    char *what = xasprintf("compiling %s", source);
    int status = run_command(d, &argv, what);
    free(what);
    string_list_free(&argv);
    return status;
}

static const char *corral_opt_level(const driver *d)
{
    if (strcmp(d->optimize, "-Os") == 0 || strcmp(d->optimize, "-Oz") == 0)
        return "-O2";
    return d->optimize;
}

static int starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* A pass flag the command line gave: FLAG itself, or FLAG followed by a value. */
static int has_pass_flag(const driver *d, const char *flag)
{
    for (size_t i = 0; i < d->pass_flags.count; i++)
        if (starts_with(d->pass_flags.items[i], flag))
            return 1;
    return 0;
}

/* whole_program: the inputs are every managed function of the executable
 * being linked (the pass may then treat external functions as its own). */
static int run_pass(driver *d, const string_list *ir_inputs, const char *output, const char *emit,
                    int whole_program)
{
    string_list argv = {0};
    char *tool = xasprintf("%s/corral-opt", d->exe_dir);
    push(&argv, tool);
    free(tool);
    push_target(d, &argv);
    push(&argv, corral_opt_level(d));
    push(&argv, emit);
    if (d->march) {
        char *flag = xasprintf("--mcpu=%s", d->march);
        push(&argv, flag);
        free(flag);
    }
    /* A shared library reaches libcorral.so's polling page through the GOT. */
    if (d->shared && !has_pass_flag(d, "--poll-page="))
        push(&argv, "--poll-page=got");
    push_all(&argv, &d->pass_flags);
    if (whole_program && !has_pass_flag(d, "--whole-program"))
        push(&argv, "--whole-program");
    /* On by default: whether the collector is generational is chosen when
     * the program runs (CORRAL_GC_GENERATIONAL), and then every store needs it. */
    if (!d->no_write_barrier)
        push(&argv, "--write-barrier");
    push(&argv, "-o");
    push(&argv, output);
    push_all(&argv, ir_inputs);
    int status = run_command(d, &argv, "the corral pass");
    string_list_free(&argv);
    return status;
}

/* The linker defines __start_/__stop_ symbols only for allocatable
 * sections with C-identifier names. */
static int rename_stackmap_section(driver *d, const char *object)
{
    string_list argv = {0};
    push(&argv, CORRAL_OBJCOPY_PATH);
    push(&argv, "--rename-section");
    push(&argv, ".llvm_stackmaps=llvm_stackmaps,alloc,load,contents,data");
    push(&argv, object);
    int status = run_command(d, &argv, "renaming the stackmap section");
    string_list_free(&argv);
    return status;
}

static char *default_runtime(const driver *d)
{
    if (d->target)
        return xasprintf("%s/../lib/%s/libcorral.a", d->exe_dir, d->target);
    return xasprintf("%s/../lib/libcorral.a", d->exe_dir);
}

/* A shared library's constructor registers the library's own stackmap
 * section: __start_/__stop_ are hidden (the link makes them so), so they
 * name this library's section, not the program's or another library's. */
static const char registration_source[] =
    "/* Written by corralc -shared. */\n"
    "extern const char __start_" CORRAL_ABI_STACKMAP_SECTION "[]\n"
    "    __attribute__((weak, visibility(\"hidden\")));\n"
    "extern const char __stop_" CORRAL_ABI_STACKMAP_SECTION "[]\n"
    "    __attribute__((weak, visibility(\"hidden\")));\n"
    "int corral_register_stackmaps(const void *section, unsigned long size, const char *origin);\n"
    "void abort(void);\n"
    "__attribute__((constructor)) static void corral_register_library_stackmaps(void)\n"
    "{\n"
    "    const char *start = __start_" CORRAL_ABI_STACKMAP_SECTION ";\n"
    "    const char *stop = __stop_" CORRAL_ABI_STACKMAP_SECTION ";\n"
    "    unsigned long size = (unsigned long)(stop - start);\n"
    "    if (start && stop > start &&\n"
    "        corral_register_stackmaps(start, size, CORRAL_LIBRARY) != 0)\n"
    "        abort(); /* corral_register_stackmaps printed why */\n"
    "}\n";

/* The library's name as a C string literal, for messages about its tables. */
static char *library_name_define(const driver *d)
{
    const char *output = d->output ? d->output : "a.out";
    const char *slash = strrchr(output, '/');
    const char *name = slash ? slash + 1 : output;
    if (strpbrk(name, "\"\\") || !*name)
        name = "shared library";
    return xasprintf("-DCORRAL_LIBRARY=\"%s\"", name);
}

static int compile_registration(driver *d, const char *object)
{
    char *source = temp_path(d, "register-stackmaps", ".c");
    FILE *file = fopen(source, "w");
    if (!file || fputs(registration_source, file) < 0 || fclose(file) != 0) {
        driver_error("cannot write %s: %s", source, strerror(errno));
        return -1;
    }
    string_list argv = {0};
    push(&argv, CORRAL_CLANG_PATH);
    push_target(d, &argv);
    push(&argv, "-c");
    push(&argv, "-fPIC");
    push(&argv, "-O1");
    char *define = library_name_define(d);
    push(&argv, define);
    free(define);
    push(&argv, "-o");
    push(&argv, object);
    push(&argv, source);
    int status = run_command(d, &argv, "compiling the stackmap registration");
    string_list_free(&argv);
    return status;
}

/* A program links the runtime; a shared library links none unless
 * --runtime names one: it uses the loading program's libcorral.so. */
static int push_runtime(const driver *d, string_list *argv)
{
    if (d->shared && !d->runtime)
        return 0;
    char *runtime = d->runtime ? xstrdup(d->runtime) : default_runtime(d);
    if (access(runtime, R_OK) != 0) {
        driver_error("runtime library '%s': %s; build libcorral (the corral_static target) "
                     "or pass --runtime=PATH",
                     runtime, strerror(errno));
        free(runtime);
        return -1;
    }
    push(argv, runtime);
    push(argv, "-lurcu");
    push(argv, "-lurcu-cds");
    push(argv, "-lurcu-common"); /* needed when linking liburcu statically */
    free(runtime);
    return 0;
}

/* -shared: the registration constructor, hidden start/stop symbols, and no
 * unloading (the registry keeps the library's tables). */
static int push_shared_flags(driver *d, string_list *argv, int has_managed_code)
{
    push(argv, "-shared");
    push(argv, "-Wl,-z,start-stop-visibility=hidden");
    push(argv, "-Wl,-z,nodelete");
    if (!has_managed_code)
        return 0;
    char *object = temp_path(d, "register-stackmaps", ".o");
    if (compile_registration(d, object))
        return -1;
    push(argv, object);
    return 0;
}

static int link_program(driver *d, const char *managed_object, const string_list *objects)
{
    string_list argv = {0};
    int status = -1;
    push(&argv, CORRAL_CLANG_PATH);
    push_target(d, &argv);
    if (d->debug)
        push(&argv, d->debug);
    push(&argv, "-o");
    push(&argv, d->output ? d->output : "a.out");
    if (d->shared && push_shared_flags(d, &argv, managed_object != NULL))
        goto done;
    if (managed_object)
        push(&argv, managed_object);
    push_all(&argv, objects);
    push_all(&argv, &d->link_flags);
    if (push_runtime(d, &argv))
        goto done;
    push(&argv, "-lpthread");
    status = run_command(d, &argv, "linking");
done:
    string_list_free(&argv);
    return status;
}

static char *object_name_for(const char *source)
{
    const char *slash = strrchr(source, '/');
    const char *base = slash ? slash + 1 : source;
    const char *dot = strrchr(base, '.');
    size_t stem = dot ? (size_t)(dot - base) : strlen(base);
    return xasprintf("%.*s.o", (int)stem, base);
}

/* -c: each C or IR input becomes a bitcode object. */
static int compile_only(driver *d, const input_kind *kinds)
{
    size_t compilable = 0;
    for (size_t i = 0; i < d->inputs.count; i++)
        compilable += kinds[i] != INPUT_LINKER;
    if (d->output && compilable > 1) {
        driver_error("-o with -c and %zu inputs: give one input per -c, or no -o", compilable);
        return -1;
    }
    for (size_t i = 0; i < d->inputs.count; i++) {
        if (kinds[i] == INPUT_LINKER)
            continue;
        char *output = d->output ? xstrdup(d->output) : object_name_for(d->inputs.items[i]);
        int status = compile_c(d, d->inputs.items[i], output);
        free(output);
        if (status)
            return -1;
    }
    return 0;
}

/* Without -c, -MF FILE holds every source's rules, in input order. */
static int gather_dependencies(const driver *d)
{
    FILE *out = fopen(d->dependency_output, "w");
    if (!out) {
        driver_error("cannot write %s: %s", d->dependency_output, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < d->dependency_parts.count; i++) {
        FILE *in = fopen(d->dependency_parts.items[i], "r");
        char buffer[4096];
        size_t got;
        while (in && (got = fread(buffer, 1, sizeof buffer, in)) > 0)
            fwrite(buffer, 1, got, out);
        if (in)
            fclose(in);
    }
    if (fclose(out) != 0) {
        driver_error("cannot write %s: %s", d->dependency_output, strerror(errno));
        return -1;
    }
    return 0;
}

static int compile_and_link(driver *d, const input_kind *kinds)
{
    string_list ir_inputs = {0}, objects = {0};
    int status = -1;
    for (size_t i = 0; i < d->inputs.count; i++) {
        const char *input = d->inputs.items[i];
        if (kinds[i] == INPUT_C) {
            char *stem = stem_of(input);
            char *bitcode = temp_path(d, stem, ".bc");
            free(stem);
            if (compile_c(d, input, bitcode))
                goto done;
            push(&ir_inputs, bitcode);
        } else if (kinds[i] == INPUT_IR) {
            push(&ir_inputs, input);
        } else {
            push(&objects, input);
        }
    }
    if (d->dependency_parts.count && gather_dependencies(d))
        goto done;
    if (d->emit_llvm || d->assembly) {
        if (ir_inputs.count == 0) {
            driver_error("%s needs managed input (.c, .ll, .bc)", d->emit_llvm ? "--emit-llvm" : "-S");
            goto done;
        }
        const char *output = d->output ? d->output : (d->emit_llvm ? "a.ll" : "a.s");
        status = run_pass(d, &ir_inputs, output, d->emit_llvm ? "--emit=llvm" : "--emit=asm", 0);
        goto done;
    }
    if (d->emit_object) {
        if (objects.count > 0 || ir_inputs.count == 0) {
            driver_error("--emit-object takes managed inputs only (.c, .ll, .bc)%s%s",
                         objects.count ? "; not " : "", objects.count ? objects.items[0] : "");
            goto done;
        }
        const char *output = d->output ? d->output : "a.o";
        status = run_pass(d, &ir_inputs, output, "--emit=obj", 0) || rename_stackmap_section(d, output)
                     ? -1 : 0;
        goto done;
    }
    char *managed_object = NULL;
    if (ir_inputs.count > 0) {
        managed_object = temp_path(d, "managed", ".o");
        if (run_pass(d, &ir_inputs, managed_object, "--emit=obj", !d->shared) ||
            rename_stackmap_section(d, managed_object))
            goto done;
    }
    status = link_program(d, managed_object, &objects);
done:
    string_list_free(&ir_inputs);
    string_list_free(&objects);
    return status;
}

/* ---- command line */

static const char *const pass_options[] = {
    "--polls=", "--loop-poll-interval=", "--poll-page=", "--max-poll-distance=", "--leaf=",
    "--unmanaged=", "--managed=", "--gcroot=", "--ref-tags=",
};
static const char *const pass_switches[] = {
    "--report-poll-distance", "--externals-managed", "--no-default-leaves",
    "--allow-unpolled-loops", "--whole-program", "--satb-barrier", "--keep-external-symbols",
};

static int is_pass_option(const char *arg)
{
    for (size_t i = 0; i < sizeof pass_options / sizeof pass_options[0]; i++)
        if (starts_with(arg, pass_options[i]))
            return 1;
    for (size_t i = 0; i < sizeof pass_switches / sizeof pass_switches[0]; i++)
        if (strcmp(arg, pass_switches[i]) == 0)
            return 1;
    return 0;
}

/* -I DIR or -IDIR: pushes the flag (joined) and returns how many argv
 * entries it used, 0 when arg is not this flag, -1 when DIR is missing. */
static int joined_or_separate(const char *flag, int argc, char **argv, int i, string_list *into)
{
    size_t length = strlen(flag);
    if (strncmp(argv[i], flag, length) != 0)
        return 0;
    if (argv[i][length] != '\0') {
        push(into, argv[i]);
        return 1;
    }
    if (i + 1 >= argc) {
        driver_error("%s needs an argument", flag);
        return -1;
    }
    char *joined = xasprintf("%s%s", flag, argv[i + 1]);
    push(into, joined);
    free(joined);
    return 2;
}

static int is_optimization_flag(const char *arg)
{
    static const char *const levels[] = {"-O0", "-O1", "-O2", "-O3", "-Os", "-Oz"};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcmp(arg, levels[i]) == 0)
            return 1;
    return 0;
}

/* Front-end flags real builds pass (CMake's and Meson's defaults, the
 * hardening flags of Debian, Fedora and Ubuntu) that leave managed code
 * sound. Those that change code reach it as function attributes or module
 * flags (sspstrong, "probe-stack", cf-protection-branch, target-features),
 * which corral-opt's optimisation and code generation honour; the rest are
 * for the front end alone. Managed code is always PIC and keeps frame
 * pointers, so those flags only agree. test_corralc checks each reaches the
 * code; the managed *_hardened tests run under them. */
static const char *const clang_flags[] = {
    "-w", "-pedantic", "-Werror", "-pipe", "-m64",
    "-fwrapv", "-fno-wrapv", "-fno-strict-aliasing", "-fstrict-aliasing",
    "-fno-strict-overflow", "-fstrict-overflow", "-fno-delete-null-pointer-checks",
    "-fsigned-char", "-funsigned-char", "-fno-common", "-fcommon",
    "-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer",
    "-fPIC", "-fpic", "-fPIE", "-fpie", "-fno-plt", "-fplt",
    "-fno-semantic-interposition", "-fsemantic-interposition",
    "-fstack-protector", "-fstack-protector-strong", "-fstack-protector-all",
    "-fno-stack-protector", "-fstack-clash-protection", "-fno-stack-clash-protection",
    "-fcf-protection", "-fexceptions", "-fno-exceptions", "-funwind-tables", "-fno-unwind-tables",
    "-fasynchronous-unwind-tables", "-fno-asynchronous-unwind-tables",
    "-fno-inline", "-fno-inline-functions", "-finline-functions", "-fno-jump-tables",
    "-fjump-tables", "-fno-builtin", "-ffast-math", "-fno-fast-math", "-fno-math-errno",
    "-fmath-errno", "-ffinite-math-only", "-fno-finite-math-only", "-fno-trapping-math",
    "-ftrapping-math", "-fno-signed-zeros", "-freciprocal-math", "-fassociative-math",
    "-funsafe-math-optimizations", "-fno-unsafe-math-optimizations",
    "-fdiagnostics-color", "-fno-diagnostics-color", "-fcolor-diagnostics",
    "-fno-color-diagnostics", "-fansi-escape-codes", "-mno-red-zone", "-mred-zone",
    "-grecord-gcc-switches", "-gno-record-gcc-switches", "-grecord-command-line",
    "-gno-record-command-line", "-gcolumn-info", "-gno-column-info",
};
static const char *const clang_flag_prefixes[] = {
    "-std=", "-fvisibility=", "-fcf-protection=", "-ftrivial-auto-var-init=",
    "-fzero-call-used-regs=", "-ffp-contract=", "-ffile-prefix-map=", "-fdebug-prefix-map=",
    "-fmacro-prefix-map=", "-fdiagnostics-", "-fno-diagnostics-", "-fmessage-length=",
    "-fno-builtin-", "-mtune=",
};
/* Instruction-set extensions, given as -mEXT or -mno-EXT: clang writes them
 * into each function's target-features. */
static const char *const isa_extensions[] = {
    "sse", "sse2", "sse3", "ssse3", "sse4", "sse4.1", "sse4.2", "avx", "avx2", "avx512f",
    "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx512vnni", "fma", "f16c", "bmi", "bmi2",
    "lzcnt", "popcnt", "aes", "pclmul", "vpclmulqdq", "sha", "movbe", "adx", "rdrnd", "rdseed",
    "crc32", "cx16", "xsave", "gfni", "vaes", "outline-atomics",
};

static int is_isa_extension_flag(const char *arg)
{
    if (!starts_with(arg, "-m"))
        return 0;
    const char *extension = arg + (starts_with(arg, "-mno-") ? 5 : 2);
    return string_in(extension, isa_extensions, sizeof isa_extensions / sizeof isa_extensions[0]);
}

static int is_clang_flag(const char *arg)
{
    for (size_t i = 0; i < sizeof clang_flag_prefixes / sizeof clang_flag_prefixes[0]; i++)
        if (starts_with(arg, clang_flag_prefixes[i]))
            return 1;
    return (starts_with(arg, "-W") && !starts_with(arg, "-Wl,")) || is_isa_extension_flag(arg) ||
           string_in(arg, clang_flags, sizeof clang_flags / sizeof clang_flags[0]);
}

/* Flags real builds pass that managed code cannot take, each with why. */
static const char frame_pointers_kept[] =
    "the stack walker follows frame pointers, which managed code keeps";
static const char only_64_bit[] = "corral is for 64-bit targets";
static const char unrolled_by_pipeline[] =
    "corral-opt runs LLVM's optimisation pipeline, which unrolls loops from -O2 on; the flag "
    "has no effect there";
static const char vectorized_by_pipeline[] =
    "corral-opt runs LLVM's optimisation pipeline, which vectorizes loops from -O2 on; the flag "
    "has no effect there";
static const struct refused_flag {
    const char *prefix;
    const char *reason;
} refused_flags[] = {
    {"-fomit-frame-pointer", frame_pointers_kept},
    {"-momit-leaf-frame-pointer", frame_pointers_kept},
    {"-flto", "corralc links the managed inputs into one module before the pass and optimises "
              "it whole; leave -flto out of managed builds"},
    {"-fopenmp", "OpenMP runs parallel regions on threads the collector does not know; start "
                 "managed threads with corral_thread_create"},
    {"-fshort-enums", "it changes the layout of corral.h's structures, which libcorral was "
                      "built without"},
    {"-fsplit-stack", "split stacks break the frame chain the stack walker follows"},
    {"-m32", only_64_bit},
    {"-mx32", only_64_bit},
    {"-mbranch-protection=", "return addresses signed by pointer authentication are not found "
                             "in the stackmaps"},
    {"-funroll-loops", unrolled_by_pipeline},
    {"-fno-unroll-loops", unrolled_by_pipeline},
    {"-fvectorize", vectorized_by_pipeline},
    {"-fno-vectorize", vectorized_by_pipeline},
};

/* The reason ARG is refused, or NULL. -mbranch-protection=none and =bti
 * sign nothing. */
static const char *refusal_of(const char *arg)
{
    if (strcmp(arg, "-mbranch-protection=none") == 0 || strcmp(arg, "-mbranch-protection=bti") == 0)
        return NULL;
    for (size_t i = 0; i < sizeof refused_flags / sizeof refused_flags[0]; i++) {
        size_t length = strlen(refused_flags[i].prefix);
        const char *prefix = refused_flags[i].prefix;
        /* -flto also names -flto=thin; -fopenmp also -fopenmp-simd. */
        if (strncmp(arg, prefix, length) == 0 &&
            (prefix[length - 1] == '=' || arg[length] == '\0' || arg[length] == '=' ||
             arg[length] == '-'))
            return refused_flags[i].reason;
    }
    return NULL;
}

static int is_debug_flag(const char *arg)
{
    static const char *const flags[] = {
        "-g", "-g0", "-g1", "-g2", "-g3", "-ggdb", "-ggdb0", "-ggdb1", "-ggdb2", "-ggdb3",
        "-gline-tables-only", "-gdwarf", "-gdwarf-4", "-gdwarf-5",
    };
    return string_in(arg, flags, sizeof flags / sizeof flags[0]);
}

/* -MD -MMD -MP, and -MF -MT -MQ with their argument: returns argv entries
 * used, 0 when arg is none of them, -1 when an argument is missing. */
static int parse_dependency_flag(driver *d, int argc, char **argv, int i)
{
    const char *arg = argv[i];
    if (strcmp(arg, "-MD") == 0 || strcmp(arg, "-MMD") == 0 || strcmp(arg, "-MP") == 0) {
        d->dependency_file |= strcmp(arg, "-MP") != 0;
        push(&d->dependency_flags, arg);
        return 1;
    }
    if (strncmp(arg, "-MF", 3) == 0) {
        if (!arg[3] && i + 1 >= argc) {
            driver_error("-MF needs an argument");
            return -1;
        }
        d->dependency_output = arg[3] ? arg + 3 : argv[i + 1];
        return arg[3] ? 1 : 2;
    }
    int used = joined_or_separate("-MT", argc, argv, i, &d->dependency_flags);
    if (!used)
        used = joined_or_separate("-MQ", argc, argv, i, &d->dependency_flags);
    d->dependency_target_named |= used > 0;
    return used;
}

static int parse_one(driver *d, int argc, char **argv, int i)
{
    const char *arg = argv[i];
    int used;
    if ((used = joined_or_separate("-I", argc, argv, i, &d->clang_flags)) ||
        (used = joined_or_separate("-D", argc, argv, i, &d->clang_flags)) ||
        (used = joined_or_separate("-U", argc, argv, i, &d->clang_flags)) ||
        (used = joined_or_separate("-L", argc, argv, i, &d->link_flags)) ||
        (used = joined_or_separate("-l", argc, argv, i, &d->link_flags)) ||
        (used = parse_dependency_flag(d, argc, argv, i)))
        return used;
    if (strcmp(arg, "-include") == 0) {
        if (i + 1 >= argc) {
            driver_error("-include needs a file");
            return -1;
        }
        push(&d->clang_flags, arg);
        push(&d->clang_flags, argv[i + 1]);
        return 2;
    }
    if (strcmp(arg, "-mllvm") == 0) {
        if (i + 1 >= argc) {
            driver_error("-mllvm needs an LLVM option");
            return -1;
        }
        char *forwarded = xasprintf("--llvm-option=%s", argv[i + 1]);
        push(&d->pass_flags, forwarded);
        free(forwarded);
        return 2;
    }
    if (strcmp(arg, "-o") == 0) {
        if (i + 1 >= argc) {
            driver_error("-o needs a file name");
            return -1;
        }
        d->output = argv[i + 1];
        return 2;
    }
    if (is_optimization_flag(arg))
        snprintf(d->optimize, sizeof d->optimize, "%s", arg);
    else if (is_debug_flag(arg))
        d->debug = strcmp(arg, "-g0") == 0 || strcmp(arg, "-ggdb0") == 0 ? NULL : arg;
    else if (strcmp(arg, "-shared") == 0)
        d->shared = 1;
    else if (strcmp(arg, "-c") == 0)
        d->compile_only = 1;
    else if (strcmp(arg, "-S") == 0)
        d->assembly = 1;
    else if (strcmp(arg, "--emit-llvm") == 0 || strcmp(arg, "-emit-llvm") == 0)
        d->emit_llvm = 1;
    else if (strcmp(arg, "--emit-object") == 0)
        d->emit_object = 1;
    else if (strcmp(arg, "-v") == 0)
        d->verbose = 1;
    else if (strcmp(arg, "--keep-temps") == 0)
        d->keep_temps = 1;
    else if (strcmp(arg, "-static") == 0 && (d->is_static = 1))
        push(&d->link_flags, arg);
    else if (strcmp(arg, "-pthread") == 0 || strcmp(arg, "-rdynamic") == 0 ||
             strcmp(arg, "-pie") == 0 || strcmp(arg, "-no-pie") == 0 ||
             starts_with(arg, "-Wl,") || starts_with(arg, "-fsanitize="))
        push(&d->link_flags, arg);
    else if (strcmp(arg, "--write-barrier") == 0)
        d->no_write_barrier = 0; /* the default, accepted for older build files */
    else if (strcmp(arg, "--no-write-barrier") == 0)
        d->no_write_barrier = 1;
    else if (starts_with(arg, "--runtime="))
        d->runtime = arg + strlen("--runtime=");
    else if (starts_with(arg, "-march="))
        d->march = arg + strlen("-march=");
    else if (starts_with(arg, "--target="))
        d->target = arg + strlen("--target=");
    else if (is_pass_option(arg))
        push(&d->pass_flags, arg);
    else if (is_clang_flag(arg))
        push(&d->clang_flags, arg);
    else if (arg[0] == '-' && arg[1] != '\0') {
        const char *why = refusal_of(arg);
        if (why)
            driver_error("%s is not supported for managed code: %s", arg, why);
        else
            driver_error("unsupported option '%s' (see corralc --help)", arg);
        return -1;
    } else
        push(&d->inputs, arg);
    return 1;
}

/* Returns 0 to go on, 1 after --help, -1 on a usage error. */
static int parse_arguments(driver *d, int argc, char **argv)
{
    for (int i = 1; i < argc;) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_text, stdout);
            return 1;
        }
        int used = parse_one(d, argc, argv, i);
        if (used < 0)
            return -1;
        i += used;
    }
    if (d->inputs.count == 0) {
        driver_error("no input files (see corralc --help)");
        return -1;
    }
    if (d->compile_only + d->assembly + d->emit_llvm + d->emit_object + d->shared > 1) {
        driver_error("-c, -S, --emit-llvm, --emit-object and -shared are exclusive");
        return -1;
    }
    if (d->shared && d->is_static) {
        driver_error("-shared and -static are exclusive");
        return -1;
    }
    return 0;
}

static char *find_exe_dir(const char *argv0)
{
    char path[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0) {
        if (!realpath(argv0, path))
            return xstrdup(".");
        length = (ssize_t)strlen(path);
    }
    path[length] = '\0';
    char *slash = strrchr(path, '/');
    return slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
}

int main(int argc, char **argv)
{
    /* Static: the atexit cleanup reads it after main returns. */
    static driver d;
    snprintf(d.optimize, sizeof d.optimize, "-O0");
    int parsed = parse_arguments(&d, argc, argv);
    if (parsed != 0)
        return parsed > 0 ? 0 : 1;
    d.exe_dir = find_exe_dir(argv[0]);
    input_kind *kinds = xcalloc(d.inputs.count, sizeof *kinds);
    for (size_t i = 0; i < d.inputs.count; i++)
        if (classify_input(d.inputs.items[i], &kinds[i]))
            return 1;
    int status;
    if (d.compile_only)
        status = compile_only(&d, kinds);
    else
        status = make_temp_dir(&d) ? -1 : compile_and_link(&d, kinds);
    free(kinds);
    return status ? 1 : 0;
}
