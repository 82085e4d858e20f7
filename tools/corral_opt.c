/* corral-opt — runs the corral pass on LLVM IR and writes IR, bitcode,
 * assembly or an object file.
 *
 *   corral-opt [options] IN.ll|IN.bc... -o OUT
 *
 * Several inputs are linked into one module first, so calls between managed
 * files stay direct statepoint calls. Every error a user can cause is one
 * line "corral-opt: error: FILE: FUNCTION: reason" and exit status 1.
 */
#include "corral/safepoint_pass.h"
#include "emit.h"
#include "target.h"
#include "util.h"

#include <llvm-c/Core.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Support.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOOL "corral-opt"

static const char usage_text[] =
    "usage: corral-opt [options] INPUT.ll|INPUT.bc... [-o OUTPUT]\n"
    "\n"
    "Makes LLVM IR of managed code safe for the corral collector: gc \"coreclr\",\n"
    "safepoint polls, GC-transition wrappers for unmanaged calls, statepoints.\n"
    "\n"
    "output:\n"
    "  -o FILE                output file (default: standard output, IR text)\n"
    "  -S, --emit=llvm        LLVM IR text\n"
    "  --emit=bc              bitcode\n"
    "  --emit=asm             assembly for the target\n"
    "  -c, --emit=obj         object file for the target\n"
    "                         (default: from the output's extension: .ll .bc .s .o)\n"
    "  -O0 .. -O3             run LLVM's default<On> pipeline before the pass, and\n"
    "                         generate code at that level (default: sroa+mem2reg only,\n"
    "                         code generation at -O2)\n"
    "  --mcpu=CPU             target CPU for code generation (default the target's\n"
    "                         baseline: x86-64, generic; native)\n"
    "  --target=TRIPLE        x86_64-linux-gnu or aarch64-linux-gnu, for inputs with no\n"
    "                         target triple (default the host); an input with another\n"
    "                         architecture's triple is an error\n"
    "\n"
    "polls:\n"
    "  --polls=KINDS          loop,return,precall,entry, all or none (default loop,return)\n"
    "  --loop-poll-interval=K counted loops poll every K iterations (default 1000;\n"
    "                         1 polls every iteration)\n"
    "  --poll-page=direct|got direct: one PC-relative compare, runtime linked\n"
    "                         statically (default); got: for libcorral.so\n"
    "  --report-poll-distance print each function's poll distance (and, with\n"
    "                         --write-barrier or --satb-barrier, its barriers\n"
    "                         inserted and elided)\n"
    "  --write-barrier        a card-marking write barrier after each reference\n"
    "                         store into the heap (for CORRAL_GC_GENERATIONAL=1)\n"
    "  --satb-barrier         a deletion barrier before each reference store into\n"
    "                         the heap, for snapshot-at-the-beginning marking: logs\n"
    "                         the overwritten references while the collector asks\n"
    "                         (CORRAL_GC_VERIFY=satb checks it); also before memset,\n"
    "                         memcpy and memmove into the heap (default off)\n"
    "  --ref-tags=T,U         the tags (1..7) references carry under the program's\n"
    "                         tag scheme (corral/tagged.h; V8's: 1): a pointer offset\n"
    "                         of T bytes on a reference tags it\n"
    "  --max-poll-distance=N  error when a function's poll distance exceeds N\n"
    "  --allow-unpolled-loops a loop without a poll is a warning (for measuring\n"
    "                         builds without polls; never for production)\n"
    "  --gcroot=MODE          where gc \"shadow-stack\" functions keep their\n"
    "                         llvm.gcroot roots: shadow-stack (a thread-local chain,\n"
    "                         the default) or promoted (stackmaps; docs/gcroot.md)\n"
    "\n"
    "calls:\n"
    "  --leaf=F,G             C functions called directly, no GC transition\n"
    "  --unmanaged=F,G        C functions called through a GC-transition wrapper\n"
    "  --managed=F,G          external functions compiled as managed code elsewhere\n"
    "  --externals-managed    every unmarked external function is managed code\n"
    "  --no-default-leaves    do not treat memcpy, strlen, sqrt... as leaf\n"
    "  --whole-program        the inputs are every managed function of an executable\n"
    "                         (corralc passes it when it links one): a varargs\n"
    "                         function with a result need not be static\n"
    "  --keep-external-symbols external managed functions keep their symbols (else\n"
    "                         each C can enter gets an entry under its name, so C\n"
    "                         in other files may call it by name)\n"
    "\n"
    "  --prepare=PIPELINE     LLVM pass pipeline run before the pass\n"
    "  --llvm-option=OPTION   an LLVM command-line option (e.g. -align-loops=64)\n"
    "  --stop-after=placement leave polls as calls of gc.safepoint_poll, make no\n"
    "                         statepoints (to inspect placement; not runnable)\n"
    "  -v                     print what is done\n"
    "  -h, --help             this text\n";

typedef struct tool_options {
    corral_polls_options polls;
    string_list inputs;
    string_list leaf, unmanaged, managed;
    string_list llvm_options; /* --llvm-option=..., for LLVM's own flags */
    const char *output;
    int output_kind;  /* -1: from the extension */
    int optimize;     /* -1: no -O given */
    const char *cpu;
    const char *target; /* --target=TRIPLE, NULL for the inputs' or the host's */
    int report_distance;
    int verbose;
    char *prepare_pipeline;
} tool_options;

/* ---- messages */

static const char *current_input = "(no input)";

static __attribute__((format(printf, 1, 2))) void tool_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    print_message_line(TOOL ": error: ", format, args);
    va_end(args);
}

/* LLVM's last resort: never a crash dump without saying which input. */
static void fatal_error_handler(const char *reason)
{
    fprintf(stderr, TOOL ": error: %s: LLVM fatal error: %s\n", current_input, reason);
    exit(1);
}

typedef struct diagnostic_state {
    const char *input;
    int errors;
} diagnostic_state;

static void diagnostic_handler(LLVMDiagnosticInfoRef info, void *context)
{
    diagnostic_state *state = context;
    LLVMDiagnosticSeverity severity = LLVMGetDiagInfoSeverity(info);
    if (severity == LLVMDSRemark || severity == LLVMDSNote)
        return;
    char *text = LLVMGetDiagInfoDescription(info);
    fprintf(stderr, TOOL ": %s: %s: %s\n", severity == LLVMDSError ? "error" : "warning",
            state->input, text);
    LLVMDisposeMessage(text);
    if (severity == LLVMDSError)
        state->errors++;
}

/* ---- command line */

static int parse_unsigned(const char *option, const char *text, unsigned long long *value)
{
    char *end;
    errno = 0;
    *value = strtoull(text, &end, 10);
    if (errno || end == text || *end != '\0' || text[0] == '-') {
        tool_error("%s='%s': expected a non-negative integer", option, text);
        return -1;
    }
    return 0;
}

/* "1" or "1,2": tags 1 to 7, into a mask of their bits. */
static int parse_ref_tags(const char *text, unsigned *tags)
{
    *tags = 0;
    for (const char *c = text;; c++) {
        if (*c < '1' || *c > '7' || (c[1] != ',' && c[1] != '\0')) {
            tool_error("--ref-tags=%s: expected tags 1 to 7 separated by commas (tag 0 "
                       "needs no offset)",
                       text);
            return -1;
        }
        *tags |= 1u << (*c - '0');
        if (*++c == '\0')
            return 0;
    }
}

static int parse_emit(const char *kind, tool_options *tool)
{
    static const struct {
        const char *name;
        output_kind kind;
    } kinds[] = {{"llvm", OUTPUT_IR_TEXT}, {"bc", OUTPUT_BITCODE}, {"asm", OUTPUT_ASSEMBLY},
                 {"obj", OUTPUT_OBJECT}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kind, kinds[i].name) == 0) {
            tool->output_kind = (int)kinds[i].kind;
            return 0;
        }
    tool_error("--emit=%s: expected llvm, bc, asm or obj", kind);
    return -1;
}

static const char *option_value(const char *arg, const char *name)
{
    size_t length = strlen(name);
    if (strncmp(arg, name, length) == 0 && arg[length] == '=')
        return arg + length + 1;
    return NULL;
}

static int parse_polls_option(const char *arg, tool_options *tool, int *handled)
{
    const char *value;
    unsigned long long number;
    *handled = 1;
    if ((value = option_value(arg, "--polls"))) {
        char message[256];
        if (corral_polls_parse_kinds(value, &tool->polls.poll_kinds, message, sizeof message)) {
            tool_error("--polls: %s", message);
            return -1;
        }
    } else if ((value = option_value(arg, "--loop-poll-interval"))) {
        if (parse_unsigned("--loop-poll-interval", value, &number))
            return -1;
        if (number == 0 || number > 1000000000ull) {
            tool_error("--loop-poll-interval=%s: expected 1 to 1000000000", value);
            return -1;
        }
        tool->polls.loop_poll_interval = (unsigned)number;
    } else if ((value = option_value(arg, "--poll-page"))) {
        if (strcmp(value, "direct") == 0)
            tool->polls.poll_page_access = CORRAL_POLL_PAGE_DIRECT;
        else if (strcmp(value, "got") == 0)
            tool->polls.poll_page_access = CORRAL_POLL_PAGE_GOT;
        else {
            tool_error("--poll-page=%s: expected direct or got", value);
            return -1;
        }
    } else if ((value = option_value(arg, "--max-poll-distance"))) {
        if (parse_unsigned("--max-poll-distance", value, &number))
            return -1;
        tool->polls.max_poll_distance = number;
    } else if ((value = option_value(arg, "--gcroot"))) {
        if (strcmp(value, "shadow-stack") == 0)
            tool->polls.gcroot_mode = CORRAL_GCROOT_SHADOW_STACK;
        else if (strcmp(value, "promoted") == 0)
            tool->polls.gcroot_mode = CORRAL_GCROOT_PROMOTED;
        else {
            tool_error("--gcroot=%s: expected shadow-stack or promoted", value);
            return -1;
        }
    } else if (strcmp(arg, "--allow-unpolled-loops") == 0) {
        tool->polls.allow_unpolled_loops = 1;
    } else if (strcmp(arg, "--write-barrier") == 0) {
        tool->polls.write_barrier = 1;
    } else if (strcmp(arg, "--satb-barrier") == 0) {
        tool->polls.satb_barrier = 1;
    } else if (strcmp(arg, "--whole-program") == 0) {
        tool->polls.whole_program = 1;
    } else if (strcmp(arg, "--keep-external-symbols") == 0) {
        tool->polls.keep_external_symbols = 1;
    } else if ((value = option_value(arg, "--ref-tags"))) {
        if (parse_ref_tags(value, &tool->polls.ref_tags))
            return -1;
    } else if (strcmp(arg, "--report-poll-distance") == 0) {
        tool->report_distance = 1;
    } else {
        *handled = 0;
    }
    return 0;
}

static int parse_call_option(const char *arg, tool_options *tool, int *handled)
{
    const char *value;
    *handled = 1;
    if ((value = option_value(arg, "--leaf")))
        string_list_add_csv(&tool->leaf, value);
    else if ((value = option_value(arg, "--unmanaged")))
        string_list_add_csv(&tool->unmanaged, value);
    else if ((value = option_value(arg, "--managed")))
        string_list_add_csv(&tool->managed, value);
    else if (strcmp(arg, "--externals-managed") == 0)
        tool->polls.externals_are_managed = 1;
    else if (strcmp(arg, "--no-default-leaves") == 0)
        tool->polls.no_default_leaf_functions = 1;
    else
        *handled = 0;
    return 0;
}

/* Returns 0 to go on, 1 to exit successfully (help), -1 on a usage error. */
static int parse_arguments(int argc, char **argv, tool_options *tool)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value;
        int handled = 0;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage_text, stdout);
            return 1;
        } else if (strcmp(arg, "-o") == 0) {
            if (++i == argc) {
                tool_error("-o needs a file name");
                return -1;
            }
            tool->output = argv[i];
        } else if (strcmp(arg, "-S") == 0) {
            tool->output_kind = OUTPUT_IR_TEXT;
        } else if (strcmp(arg, "-c") == 0) {
            tool->output_kind = OUTPUT_OBJECT;
        } else if ((value = option_value(arg, "--emit"))) {
            if (parse_emit(value, tool))
                return -1;
        } else if (arg[0] == '-' && arg[1] == 'O' && arg[2] >= '0' && arg[2] <= '3' && !arg[3]) {
            tool->optimize = arg[2] - '0';
        } else if ((value = option_value(arg, "--mcpu"))) {
            tool->cpu = value;
        } else if ((value = option_value(arg, "--target"))) {
            if (target_of_triple(value) == TARGET_UNSUPPORTED) {
                tool_error("--target=%s: expected x86_64-linux-gnu or aarch64-linux-gnu", value);
                return -1;
            }
            tool->target = value;
        } else if ((value = option_value(arg, "--prepare"))) {
            tool->polls.prepare_pipeline = value;
        } else if ((value = option_value(arg, "--llvm-option"))) {
            VEC_PUSH(tool->llvm_options, xstrdup(value));
        } else if ((value = option_value(arg, "--stop-after"))) {
            if (strcmp(value, "placement") != 0) {
                tool_error("--stop-after=%s: expected placement", value);
                return -1;
            }
            tool->polls.stop_after_placement = 1;
        } else if (strcmp(arg, "-v") == 0) {
            tool->verbose = 1;
        } else if (parse_polls_option(arg, tool, &handled) != 0) {
            return -1;
        } else if (handled) {
            continue;
        } else if (parse_call_option(arg, tool, &handled), handled) {
            continue;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            tool_error("unknown option '%s' (see corral-opt --help)", arg);
            return -1;
        } else {
            VEC_PUSH(tool->inputs, xstrdup(arg));
        }
    }
    if (tool->inputs.count == 0) {
        tool_error("no input files: expected LLVM IR (.ll) or bitcode (.bc) (see --help)");
        return -1;
    }
    return 0;
}

static output_kind output_kind_from_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && strcmp(dot, ".bc") == 0)
        return OUTPUT_BITCODE;
    if (dot && strcmp(dot, ".o") == 0)
        return OUTPUT_OBJECT;
    if (dot && strcmp(dot, ".s") == 0)
        return OUTPUT_ASSEMBLY;
    return OUTPUT_IR_TEXT;
}

/* ---- inputs */

static bool is_bitcode(const unsigned char *bytes, size_t size)
{
    static const unsigned char raw[] = {'B', 'C', 0xc0, 0xde};
    static const unsigned char wrapper[] = {0xde, 0xc0, 0x17, 0x0b};
    return size >= 4 && (memcmp(bytes, raw, 4) == 0 || memcmp(bytes, wrapper, 4) == 0);
}

/* LLVM 19's bitcode reader is not hardened: some malformed bitcode crashes it
 * (tests/stress/fuzz_findings/bitcode_reader_segv.bc). Bitcode is read once in a
 * child first, so such input gets an error instead of taking the tool down. */
enum { TRIAL_PARSED = 0, TRIAL_PARSE_ERROR = 3 }; /* the trial child's exit statuses */

static bool bitcode_crashes_reader(LLVMMemoryBufferRef buffer)
{
    const unsigned char *bytes = (const unsigned char *)LLVMGetBufferStart(buffer);
    size_t size = LLVMGetBufferSize(buffer);
    if (!is_bitcode(bytes, size))
        return false;
    fflush(NULL);
    pid_t child = fork();
    if (child < 0)
        return false; /* no trial read: the real one runs unguarded */
    if (child == 0) {
        /* The child's own messages (a parse error, a crash report) would repeat the
         * parent's: it only answers through its exit status. */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        LLVMContextRef context = LLVMContextCreate();
        LLVMMemoryBufferRef copy =
            LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)bytes, size, "trial");
        LLVMModuleRef module = NULL;
        char *message = NULL;
        _exit(LLVMParseIRInContext(context, copy, &module, &message) ? TRIAL_PARSE_ERROR
                                                                      : TRIAL_PARSED);
    }
    int status;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            return false;
    /* A signal, or another status: a sanitizer's report of the crash exits with 1. */
    return !WIFEXITED(status) ||
           (WEXITSTATUS(status) != TRIAL_PARSED && WEXITSTATUS(status) != TRIAL_PARSE_ERROR);
}

/* LLVM 19's text parser is not hardened either, and not even deterministic
 * on some malformed IR: an inline asm constraint with a bare '@'
 * (fuzz_findings/inline_asm_constraint_abort.ll) reads past its string and
 * either fails to parse or throws std::length_error, so a trial read in a
 * child proves nothing. The parse runs under handlers that name the input
 * and exit instead. */
static char parser_crash_message[1024];
static size_t parser_crash_length;
static const int parser_crash_signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define PARSER_CRASH_SIGNALS (sizeof parser_crash_signals / sizeof parser_crash_signals[0])
static struct sigaction parser_saved_actions[PARSER_CRASH_SIGNALS];

static void parser_crashed(int signal)
{
    (void)signal;
    /* Async-signal-safe: the message was formatted before the parse. */
    ssize_t written = write(STDERR_FILENO, parser_crash_message, parser_crash_length);
    (void)written;
    _exit(1);
}

static void guard_parser(const char *path)
{
    snprintf(parser_crash_message, sizeof parser_crash_message,
             TOOL ": error: %s: malformed LLVM IR: LLVM 19's IR parser crashes on it (it does "
                  "not check every construct, e.g. inline asm constraints); expected IR that "
                  "llvm-as-19 accepts\n",
             path);
    parser_crash_length = strlen(parser_crash_message); /* truncated for a very long path */
    fflush(NULL);
    struct sigaction guard = {.sa_handler = parser_crashed};
    sigemptyset(&guard.sa_mask);
    for (size_t i = 0; i < PARSER_CRASH_SIGNALS; i++)
        sigaction(parser_crash_signals[i], &guard, &parser_saved_actions[i]);
}

static void unguard_parser(void)
{
    for (size_t i = 0; i < PARSER_CRASH_SIGNALS; i++)
        sigaction(parser_crash_signals[i], &parser_saved_actions[i], NULL);
}

static LLVMModuleRef read_module(LLVMContextRef context, const char *path)
{
    LLVMMemoryBufferRef buffer = NULL;
    char *message = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buffer, &message)) {
        tool_error("%s: cannot read: %s", path, message ? message : "unknown error");
        LLVMDisposeMessage(message);
        return NULL;
    }
    if (LLVMGetBufferSize(buffer) == 0) {
        tool_error("%s: empty file: expected LLVM IR (.ll) or bitcode (.bc)", path);
        LLVMDisposeMemoryBuffer(buffer);
        return NULL;
    }
    if (bitcode_crashes_reader(buffer)) {
        tool_error("%s: malformed bitcode: LLVM's bitcode reader crashes on it; expected "
                   "bitcode written by LLVM 19 (clang-19 -emit-llvm, corralc)",
                   path);
        LLVMDisposeMemoryBuffer(buffer);
        return NULL;
    }
    LLVMModuleRef module = NULL;
    /* LLVMParseIRInContext takes the buffer and reads text or bitcode. */
    guard_parser(path);
    int rejected = LLVMParseIRInContext(context, buffer, &module, &message);
    unguard_parser();
    if (rejected) {
        size_t line = strcspn(message ? message : "", "\n");
        tool_error("%s: not valid LLVM IR or bitcode: %.*s", path, (int)line,
                   message ? message : "parse error");
        LLVMDisposeMessage(message);
        return NULL;
    }
    return module;
}

/* Which input each function came from, for messages after linking. */
typedef struct origin_table {
    string_list functions;    /* names of defined functions */
    VEC(const char *) inputs; /* the input each came from */
    string_list names;        /* per input, the name messages use */
} origin_table;

/* Bitcode from clang (corralc's temporaries, -c objects) is named after
 * its C source, which is what the author knows; text IR after itself. */
static const char *display_name(origin_table *table, LLVMModuleRef module, const char *path)
{
    size_t length = 0;
    const char *source = LLVMGetSourceFileName(module, &length);
    size_t path_length = strlen(path);
    int is_text = path_length > 3 && strcmp(path + path_length - 3, ".ll") == 0;
    char *name = (!is_text && source && length > 0) ? xstrndup(source, length) : xstrdup(path);
    VEC_PUSH(table->names, name);
    return name;
}

static void origins_add(origin_table *table, LLVMModuleRef module, const char *input)
{
    for (LLVMValueRef function = LLVMGetFirstFunction(module); function;
         function = LLVMGetNextFunction(function)) {
        if (LLVMIsDeclaration(function))
            continue;
        size_t length = 0;
        const char *name = LLVMGetValueName2(function, &length);
        VEC_PUSH(table->functions, xstrndup(name, length));
        VEC_PUSH(table->inputs, input);
    }
}

static const char *origin_of(const origin_table *table, const char *function, const char *fallback)
{
    if (function)
        for (size_t i = 0; i < table->functions.count; i++)
            if (strcmp(table->functions.items[i], function) == 0)
                return table->inputs.items[i];
    return fallback;
}

static LLVMModuleRef read_and_link(LLVMContextRef context, const tool_options *tool,
                                   diagnostic_state *diagnostics, origin_table *origins)
{
    LLVMModuleRef linked = NULL;
    for (size_t i = 0; i < tool->inputs.count; i++) {
        const char *path = tool->inputs.items[i];
        current_input = path;
        diagnostics->input = path;
        if (tool->verbose)
            fprintf(stderr, TOOL ": reading %s\n", path);
        LLVMModuleRef module = read_module(context, path);
        if (!module) {
            if (linked)
                LLVMDisposeModule(linked);
            return NULL;
        }
        const char *name = display_name(origins, module, path);
        origins_add(origins, module, name);
        current_input = name;
        diagnostics->input = name;
        if (!linked) {
            linked = module;
            continue;
        }
        /* LLVMLinkModules2 destroys module; errors go to the diagnostic handler. */
        if (LLVMLinkModules2(linked, module) || diagnostics->errors) {
            tool_error("%s: cannot link with %s (see the messages above)", path,
                       tool->inputs.items[0]);
            LLVMDisposeModule(linked);
            return NULL;
        }
    }
    return linked;
}

/* ---- output */

static void print_distance_report(const corral_polls_result *result, const origin_table *origins,
                                  const corral_polls_options *options)
{
    for (size_t i = 0; i < result->function_count; i++) {
        const corral_polls_function_report *report = &result->functions[i];
        const char *file = origin_of(origins, report->function, result->input_name);
        if (report->poll_distance == UINT64_MAX)
            fprintf(stderr, "%s: %s: poll distance unbounded%s\n", file, report->function,
                    report->nopoll ? " (nopoll)" : "");
        else
            fprintf(stderr, "%s: %s: poll distance %llu (%u polls, %u strip-mined loops)%s\n",
                    file, report->function, (unsigned long long)report->poll_distance,
                    report->polls_inserted, report->loops_strip_mined,
                    report->nopoll ? " (nopoll)" : "");
        if (options->write_barrier)
            fprintf(stderr, "%s: %s: %u write barriers, %u elided\n", file, report->function,
                    report->barriers_inserted, report->barriers_elided);
        if (options->satb_barrier)
            fprintf(stderr, "%s: %s: %u deletion barriers, %u elided\n", file,
                    report->function, report->deletion_barriers_inserted,
                    report->deletion_barriers_elided);
        if (report->frame_pins)
            fprintf(stderr, "%s: %s: %u frame pins\n", file, report->function,
                    report->frame_pins);
        if (report->gcroot_roots != CORRAL_GCROOT_ROOTS_NONE)
            fprintf(stderr, "%s: %s: gcroot roots %s\n", file, report->function,
                    report->gcroot_roots == CORRAL_GCROOT_ROOTS_PROMOTED
                        ? "promoted to stack-map references"
                        : "in a shadow-stack frame");
    }
    if (result->max_poll_distance_function)
        fprintf(stderr, "%s: module: max poll distance %llu in %s\n", result->input_name,
                (unsigned long long)result->max_poll_distance, result->max_poll_distance_function);
}

static void print_diagnostics(const corral_polls_result *result, const origin_table *origins)
{
    for (size_t i = 0; i < result->diagnostic_count; i++) {
        const corral_polls_diagnostic *d = &result->diagnostics[i];
        const char *severity = d->severity == CORRAL_POLLS_ERROR ? "error" : "warning";
        const char *file = origin_of(origins, d->function, result->input_name);
        if (d->function)
            fprintf(stderr, TOOL ": %s: %s: %s: %s\n", severity, file, d->function, d->message);
        else
            fprintf(stderr, TOOL ": %s: %s: %s\n", severity, file, d->message);
    }
}

static const char *prepare_pipeline_for(int optimize)
{
    static const char *const pipelines[] = {
        "always-inline,function(sroa,mem2reg)", "default<O1>", "default<O2>", "default<O3>"};
    return optimize < 0 ? NULL : pipelines[optimize];
}

/* LLVM's own flags (code generation tuning, debugging output). */
static void apply_llvm_options(const string_list *options)
{
    if (options->count == 0)
        return;
    const char **argv = xcalloc(options->count + 1, sizeof *argv);
    argv[0] = TOOL;
    for (size_t i = 0; i < options->count; i++)
        argv[i + 1] = options->items[i];
    LLVMParseCommandLineOptions((int)options->count + 1, argv, NULL);
    free(argv);
}

/* --target: names the triple of a module that has none, and refuses one
 * built for another architecture (its data layout and ABI would be wrong). */
static int apply_target(LLVMModuleRef module, const char *triple)
{
    const char *own = LLVMGetTarget(module);
    if (!own || !*own) {
        LLVMSetTarget(module, triple);
        return 0;
    }
    if (target_of_triple(own) != target_of_triple(triple)) {
        tool_error("%s: the input's target triple is '%s', not the --target=%s architecture",
                   current_input, own, triple);
        return -1;
    }
    return 0;
}

static int run_tool(tool_options *tool)
{
    LLVMContextRef context = LLVMContextCreate();
    diagnostic_state diagnostics = {.input = tool->inputs.items[0]};
    LLVMContextSetDiagnosticHandler(context, diagnostic_handler, &diagnostics);
    origin_table origins = {0};
    int status = 1;
    LLVMTargetMachineRef tm = NULL;
    LLVMModuleRef module = read_and_link(context, tool, &diagnostics, &origins);
    if (!module)
        goto done;
    current_input = origins.names.items[0];
    diagnostics.input = current_input;
    if (tool->target && apply_target(module, tool->target))
        goto done;

    output_kind kind = tool->output_kind >= 0 ? (output_kind)tool->output_kind
                                              : output_kind_from_name(tool->output);
    if ((kind == OUTPUT_OBJECT || kind == OUTPUT_BITCODE) && strcmp(tool->output, "-") == 0) {
        tool_error("binary output needs a file: add -o FILE");
        goto done;
    }
    char *error = NULL;
    unsigned codegen_level = tool->optimize < 0 ? 2 : (unsigned)tool->optimize;
    /* The optimizer needs the target too (vector widths, costs). */
    if (kind == OUTPUT_OBJECT || kind == OUTPUT_ASSEMBLY || tool->optimize > 0) {
        tm = emit_create_target_machine(module, tool->cpu, codegen_level, &error);
        if (!tm) {
            tool_error("%s: %s", current_input, error);
            free(error);
            goto done;
        }
    }

    tool->polls.input_name = current_input;
    tool->polls.target_machine = tm;
    if (!tool->polls.prepare_pipeline)
        tool->polls.prepare_pipeline = prepare_pipeline_for(tool->optimize);
    corral_polls_result *result = NULL;
    if (tool->verbose)
        fprintf(stderr, TOOL ": running the pass on %s\n", current_input);
    int pass_status = corral_polls_run(module, &tool->polls, &result);
    print_diagnostics(result, &origins);
    if (tool->report_distance)
        print_distance_report(result, &origins, &tool->polls);
    corral_polls_result_free(result);
    if (pass_status != 0 || diagnostics.errors)
        goto done;

    if (tool->verbose)
        fprintf(stderr, TOOL ": writing %s\n", tool->output);
    if (emit_module(module, tm, kind, tool->output, &error) != 0) {
        tool_error("%s: cannot write output: %s", tool->output, error);
        free(error);
        goto done;
    }
    status = 0;
done:
    if (tm)
        LLVMDisposeTargetMachine(tm);
    if (module)
        LLVMDisposeModule(module);
    LLVMContextDispose(context);
    string_list_free(&origins.functions);
    string_list_free(&origins.names);
    free(origins.inputs.items);
    return status;
}

int main(int argc, char **argv)
{
    LLVMInstallFatalErrorHandler(fatal_error_handler);
    tool_options tool = {.output = "-", .output_kind = -1, .optimize = -1};
    corral_polls_options_init(&tool.polls);
    int parsed = parse_arguments(argc, argv, &tool);
    int status = parsed < 0 ? 1 : 0;
    if (parsed == 0) {
        tool.polls.leaf_functions = (const char *const *)tool.leaf.items;
        tool.polls.leaf_function_count = tool.leaf.count;
        tool.polls.unmanaged_functions = (const char *const *)tool.unmanaged.items;
        tool.polls.unmanaged_function_count = tool.unmanaged.count;
        tool.polls.managed_functions = (const char *const *)tool.managed.items;
        tool.polls.managed_function_count = tool.managed.count;
        apply_llvm_options(&tool.llvm_options);
        status = run_tool(&tool);
    }
    string_list_free(&tool.inputs);
    string_list_free(&tool.leaf);
    string_list_free(&tool.unmanaged);
    string_list_free(&tool.managed);
    string_list_free(&tool.llvm_options);
    return status;
}
