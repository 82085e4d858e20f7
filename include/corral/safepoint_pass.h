/* corral/safepoint_pass.h — the corral-opt pass as a C library, for VMs that
 * build LLVM modules in memory (a JIT) and for the corral-opt tool itself.
 *
 * corral_polls_run() takes a module of managed code and makes it safe for the
 * collector:
 *   1. datalayout gets "ni:1" (references are non-integral pointers);
 *   2. a preparation pipeline (default: always-inline, sroa, mem2reg);
 *   3. every defined function gets gc "coreclr" and "frame-pointer"="all";
 *   4. each call is classified (managed, leaf, runtime safepoint, unmanaged);
 *      unmanaged calls are rerouted through GC-transition wrappers;
 *   5. polls of the selected kinds are inserted and inlined;
 *   6. RewriteStatepointsForGC makes every call that can reach a safepoint a
 *      statepoint with a stackmap record.
 * What it cannot make safe it rejects with a diagnostic naming the function
 * (see docs/polls.md and docs/managed-c.md for the rules).
 *
 * The library never installs an LLVM fatal-error handler and never exits.
 * It sets one process-wide LLVM option (-spp-rematerialization-threshold=0)
 * the first time it runs. Modules in different LLVMContexts may be processed
 * on different threads at the same time.
 */
#ifndef CORRAL_SAFEPOINT_PASS_H
#define CORRAL_SAFEPOINT_PASS_H

#include <stddef.h>
#include <stdint.h>

#include <llvm-c/TargetMachine.h>
#include <llvm-c/Types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where polls go; any subset. */
enum corral_poll_kind {
    CORRAL_POLL_LOOP = 1u << 0,    /* on every loop backedge (strip-mined counted loops) */
    CORRAL_POLL_RETURN = 1u << 1,  /* before every ret */
    CORRAL_POLL_PRECALL = 1u << 2, /* before calls that reach no safepoint (leaf, long intrinsics) */
    CORRAL_POLL_ENTRY = 1u << 3,   /* at function entry */
};
#define CORRAL_POLL_ALL_KINDS                                                              \
    (CORRAL_POLL_LOOP | CORRAL_POLL_RETURN | CORRAL_POLL_PRECALL | CORRAL_POLL_ENTRY)
/* The default mask; docs/polls.md gives the measurements behind it. */
#define CORRAL_POLL_DEFAULT_KINDS (CORRAL_POLL_LOOP | CORRAL_POLL_RETURN)

/* Function attributes (string attributes, no value) the pass reads on a
 * definition; the annotations CORRAL_ABI_ANNOTATION_NOPOLL and
 * CORRAL_POLLS_ANNOTATION_POLL_ALL set the same thing from C. */
#define CORRAL_POLLS_ATTRIBUTE_NOPOLL "corral-nopoll"      /* no polls at all */
#define CORRAL_POLLS_ATTRIBUTE_POLL_ALL "corral-poll-all"  /* every kind, whatever the mask */
#define CORRAL_POLLS_ANNOTATION_POLL_ALL "corral_poll_all"
/* A managed function that gets no barriers even with write_barrier or
 * satb_barrier: for measuring their cost (bench/barrier), never for real code. */
#define CORRAL_POLLS_ANNOTATION_NO_BARRIER "corral_no_barrier"

/* How compiled code reaches the polling page. */
typedef enum corral_poll_page_access {
    /* One PC-relative compare (`cmpq $0, corral_poll_page(%rip)`): the page
     * is declared hidden, so the runtime must be linked into the same
     * executable or shared object (libcorral.a). */
    CORRAL_POLL_PAGE_DIRECT = 0,
    /* Through the GOT: for code linked against libcorral.so, and for JIT
     * code whose distance to the page may exceed 2 GiB. */
    CORRAL_POLL_PAGE_GOT = 1,
} corral_poll_page_access;

/* How functions using @llvm.gcroot (gc "shadow-stack") keep their roots
 * (docs/gcroot.md). */
typedef enum corral_gcroot_mode {
    /* A thread-local chain of frames the collector walks and rewrites. */
    CORRAL_GCROOT_SHADOW_STACK = 0,
    /* The slots become SSA references RS4GC relocates: stackmap roots, no
     * pushes or pops. */
    CORRAL_GCROOT_PROMOTED = 1,
} corral_gcroot_mode;

typedef struct corral_polls_options {
    /* The input's name in diagnostics ("FILE"); NULL: the module identifier. */
    const char *input_name;
    /* Mask of enum corral_poll_kind. */
    unsigned poll_kinds;
    /* Counted loops poll every this many iterations (strip-mining);
     * 1 polls every iteration. */
    unsigned loop_poll_interval;
    corral_poll_page_access poll_page_access;
    /* Pass pipeline (LLVMRunPasses syntax) run first, after "ni:1" is set;
     * NULL: "always-inline,function(sroa,mem2reg)". corral-opt -O2 passes
     * "default<O2>". */
    const char *prepare_pipeline;
    /* Optional: the target the code is for, so the preparation pipeline
     * knows vector widths and costs (without it nothing is vectorized). */
    LLVMTargetMachineRef target_machine;
    /* Extra names treated as gc-leaf, unmanaged or managed, beyond
     * annotations. "Managed" names external functions compiled as managed
     * code elsewhere (another JIT module): plain statepoint calls. */
    const char *const *leaf_functions;
    size_t leaf_function_count;
    const char *const *unmanaged_functions;
    size_t unmanaged_function_count;
    const char *const *managed_functions;
    size_t managed_function_count;
    /* Non-zero: external functions with no annotation and not in a list are
     * managed rather than unmanaged (a JIT whose modules call each other). */
    int externals_are_managed;
    /* Non-zero: the built-in list of libc leaf functions is not used. */
    int no_default_leaf_functions;
    /* Non-zero: a function whose poll distance exceeds this is an error. */
    uint64_t max_poll_distance;
    /* Non-zero: a loop without a poll is a warning, not an error (for
     * measuring code built with fewer poll kinds; never for production). */
    int allow_unpolled_loops;
    /* Non-zero: stop after poll placement and the checks; polls stay calls
     * of gc.safepoint_poll and no statepoints are made. For tests and for
     * looking at where polls went; the module is not runnable. */
    int stop_after_placement;
    /* Non-zero: a write barrier after every reference store into the heap
     * (corral/abi.h), for CORRAL_GC_GENERATIONAL=1; barriers the pass can
     * prove unneeded are elided. */
    int write_barrier;
    /* Non-zero: a deletion barrier before every instruction that may
     * overwrite a reference in the heap (corral/abi.h), for
     * snapshot-at-the-beginning marking; stores into an object allocated
     * since the last safepoint are elided. Independent of write_barrier. */
    int satb_barrier;
    /* Where gcroot functions keep their roots (default shadow stack). */
    corral_gcroot_mode gcroot_mode;
    /* Bits 1..7: the tags references carry under the program's tag scheme
     * (corral/tagged.h; V8's: 1u << 1). A getelementptr of that many bytes
     * on a reference then tags it and is made a base of its own, so the
     * untagged reference need not stay live (under a scheme whose tag 0
     * marks immediates the walker would read it as one). 0: none. */
    unsigned ref_tags;
    /* Non-zero: the module holds every managed function of an executable
     * (corralc links one so), so no other managed code calls its external
     * functions and unmanaged code may not (docs/managed-c.md, rule 5). A
     * managed varargs function that returns a value and is only called
     * directly then passes its result through a thread-local variable even
     * when it is not static; its symbol leaves the object. */
    int whole_program;
    /* Zero (the default): an external managed function that C can enter
     * (no references in its signature, not varargs) gets an entry that
     * takes its symbol at the end of the pass, the function keeping an
     * internal name (corral.managed.F), so C in other files that calls it
     * by name, or finds it with dlsym, enters through the runtime. Non-zero:
     * external functions keep their symbols; such C must call them through
     * corral_call_managed. main and functions that attach themselves keep
     * theirs either way. */
    int keep_external_symbols;
} corral_polls_options;

/* Fills options with the defaults (poll kinds CORRAL_POLL_DEFAULT_KINDS,
 * loop_poll_interval 1000, direct page access). */
void corral_polls_options_init(corral_polls_options *options);

typedef enum corral_polls_severity {
    CORRAL_POLLS_ERROR = 0,
    CORRAL_POLLS_WARNING = 1,
} corral_polls_severity;

typedef struct corral_polls_diagnostic {
    corral_polls_severity severity;
    const char *function; /* NULL for the whole module */
    const char *message;  /* one line, no trailing newline */
} corral_polls_diagnostic;

/* Per managed function: the longest path, in IR instructions, that runs
 * without a poll or a statepoint (strip-mined loops count interval x body). */
typedef struct corral_polls_function_report {
    const char *function;
    uint64_t poll_distance;
    unsigned polls_inserted;
    unsigned loops_strip_mined;
    int nopoll; /* the function opted out of polls */
    unsigned barriers_inserted; /* with write_barrier: reference stores given a barrier */
    unsigned barriers_elided;   /* and those proven to need none (constant, fresh object) */
    unsigned deletion_barriers_inserted; /* with satb_barrier: overwrites given one */
    unsigned deletion_barriers_elided;   /* and those into a fresh object */
    /* Where a gcroot function's roots ended up: under --gcroot=promoted a
     * function whose slots cannot all be promoted keeps a frame. */
    enum {
        CORRAL_GCROOT_ROOTS_NONE = 0,   /* not a gcroot function */
        CORRAL_GCROOT_ROOTS_FRAME = 1,  /* a shadow-stack frame */
        CORRAL_GCROOT_ROOTS_PROMOTED = 2, /* SSA references in the stack maps */
    } gcroot_roots;
    /* Raw pointers into objects pinned until the function returns, since a
     * use may hand back a pointer into them (strchr, strtol's end). */
    unsigned frame_pins;
} corral_polls_function_report;

typedef struct corral_polls_result {
    const char *input_name;
    size_t error_count;
    size_t diagnostic_count;
    const corral_polls_diagnostic *diagnostics;
    size_t function_count;
    const corral_polls_function_report *functions;
    uint64_t max_poll_distance; /* over the module */
    const char *max_poll_distance_function;
    unsigned wrappers_created;  /* GC-transition wrappers for unmanaged callees */
} corral_polls_result;

/* Runs the pass on module. Returns 0 when the module is ready for code
 * generation, -1 when an error diagnostic was produced (the module may then
 * be half transformed: discard it). *result (always set, free it with
 * corral_polls_result_free) holds the diagnostics and the poll report.
 * options may be NULL for the defaults. */
int corral_polls_run(LLVMModuleRef module, const corral_polls_options *options,
                     corral_polls_result **result);

void corral_polls_result_free(corral_polls_result *result);

/* For a JIT, before it creates its target machine: registers the LLVM
 * targets corral generates code for (x86-64, AArch64) and returns the triple
 * of the machine this library was built for, the one the process runs on
 * (a static string). Use it instead of LLVMInitializeNativeTarget() and
 * LLVMGetDefaultTargetTriple(), which name the machine LLVM's headers or
 * library were configured for: in a cross build (the build machine's
 * headers) the native target is the build machine's. Any thread. */
const char *corral_polls_jit_target(void);

/* Parses a poll-kind list ("loop,return", "all", "none") into *mask.
 * Returns 0, or -1 naming the bad word in error (of error_size bytes). */
int corral_polls_parse_kinds(const char *text, unsigned *mask, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* CORRAL_SAFEPOINT_PASS_H */
