/* corral.h — the one header a program or VM embedding corral includes.
 *
 * corral is a precise, moving, multithreaded garbage collector for code
 * compiled through LLVM. Compiled ("managed") code holds references in
 * address space 1 and is made safe by the corral-opt pass (polls + stackmaps);
 * plain C code (interpreters, runtime glue) holds references in handles.
 *
 * Conventions in this header:
 *   - "may GC": the call can run a collection, so every reference a C caller
 *     holds outside a handle is stale afterwards. Managed code needs no care:
 *     the pass makes such calls statepoints.
 *   - "thread: attached" / "MANAGED": the state the calling thread must be in.
 *   - Functions returning int return 0 on success and a negative
 *     corral_status on failure, with corral_last_error() saying why.
 */
#ifndef CORRAL_H
#define CORRAL_H

#include <stddef.h>
#include <stdint.h>

#define CORRAL_VERSION_MAJOR 0
#define CORRAL_VERSION_MINOR 1
#define CORRAL_VERSION_PATCH 0
#define CORRAL_VERSION_STRING "0.1.0"
/* One comparable number: 10000*major + 100*minor + patch. */
#define CORRAL_VERSION (CORRAL_VERSION_MAJOR * 10000 + CORRAL_VERSION_MINOR * 100 + CORRAL_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif
/* What this header declares is exported from libcorral (it is built with
 * hidden visibility). */
#pragma GCC visibility push(default)

/* ---------------------------------------------------------------------------
 * References
 *
 * corralc defines __CORRAL_MANAGED__ when it compiles managed C. There a
 * reference is a pointer in address space 1, which the pass tracks; in plain C
 * (the runtime, interpreters) the qualifier vanishes and a reference is an
 * ordinary pointer that must live in a handle across any call that may GC.
 *   typedef struct node CORRAL_REF *noderef;
 */
#if defined(__CORRAL_MANAGED__)
#define CORRAL_REF __attribute__((address_space(1)))
#else
#define CORRAL_REF
#endif

/* A reference of unknown type. */
typedef void CORRAL_REF *corral_ref;

#include "corral/annotate.h"
#include "corral/tagged.h"

/* Marks a function declaration: calls to it are direct and need no GC
 * transition because it is short, never blocks and never reaches a safepoint
 * (the pass makes the call "gc-leaf-function"). */
#define CORRAL_LEAF CORRAL_ANNOTATE("corral_leaf")
/* Marks a function declaration as unmanaged C: managed callers reach it
 * through a GC-transition wrapper, so it may block without holding up a GC.
 * External functions with no managed definition are unmanaged by default. */
#define CORRAL_UNMANAGED CORRAL_ANNOTATE("corral_unmanaged")
/* Marks a managed function definition that the pass must leave without polls
 * (hand-verified short leaf code). */
#define CORRAL_NOPOLL CORRAL_ANNOTATE("corral_nopoll")
/* Marks a managed function definition that gets every kind of poll (loop,
 * return, pre-call, entry) whatever corral-opt's --polls says. */
#define CORRAL_POLL_ALL CORRAL_ANNOTATE("corral_poll_all")
/* Marks a runtime entry point that may collect: managed callers reach it by a
 * direct statepoint call (no transition); it takes no references. */
#define CORRAL_SAFEPOINT_CALL CORRAL_ANNOTATE("corral_safepoint")

/* ---------------------------------------------------------------------------
 * Object model
 *
 * Every object starts with a corral_header: a pointer to its corral_type.
 * Arrays (CORRAL_TYPE_ARRAY) follow it with a 64-bit element count, then the
 * elements start at type->size. References stored in the heap always point
 * to the start of an object; tagged fields and arrays hold words of the tag
 * scheme (corral/tagged.h): immediates, or references with their tag added.
 *
 * The one exception is a headerless type (CORRAL_TYPE_HEADERLESS): its
 * instances have no header at all (the struct holds only its fields) and
 * live in regions that hold that type alone, where the region, not the
 * object, records the type; they never move (docs/headerless.md).
 */
typedef struct corral_type corral_type;

typedef struct corral_header {
    const corral_type *type;
} corral_header;

typedef struct corral_array_header {
    corral_header header;
    uint64_t length;
} corral_array_header;

/* The visitor a trace hook calls once per reference slot of an object. */
typedef void (*corral_visit_fn)(void **slot, void *context);
/* Embedder hook for layouts a descriptor cannot express: call visit() on the
 * address of every reference field of object. Runs during a collection, on a
 * GC worker thread: it must not allocate, block, or call back into corral. */
typedef void (*corral_trace_fn)(void *object, corral_visit_fn visit, void *context);
/* Finalizer: runs after the world restarts, on the thread that collected,
 * once per dead finalizable object; the object memory is still readable. */
typedef void (*corral_finalize_fn)(void *object);

enum corral_type_flags {
    CORRAL_TYPE_ARRAY = 1u << 0,       /* length word at offset 8; elements at size */
    CORRAL_TYPE_REF_ARRAY = 1u << 1,   /* with ARRAY: every element is a reference */
    CORRAL_TYPE_PINNED = 1u << 2,      /* instances never move */
    CORRAL_TYPE_FINALIZABLE = 1u << 3, /* finalize() runs when an instance dies */
    CORRAL_TYPE_TAGGED_ARRAY = 1u << 4, /* with ARRAY: every element is a tagged word */
    /* No corral_header: the fields start at offset 0, instances live in
     * regions of their type alone and never move. Fixed-size types of at
     * most CORRAL_HEADERLESS_MAX_SIZE bytes, not ARRAY, PINNED or FINALIZABLE. */
    CORRAL_TYPE_HEADERLESS = 1u << 5,
};

/* The largest headerless type: a region (256 KiB) holds at least 256. */
#define CORRAL_HEADERLESS_MAX_SIZE 1024u

/* Checked by the heap verifier: a header that does not point at a descriptor
 * carrying this signature is reported as a corrupt object. */
#define CORRAL_TYPE_SIGNATURE UINT64_C(0xC022A17E5D7E5C01)

struct corral_type {
    uint64_t signature;          /* CORRAL_TYPE_SIGNATURE */
    const char *name;            /* for error reports and statistics */
    uint32_t size;               /* bytes of the fixed part, header (and length word) included */
    uint32_t element_size;       /* arrays: bytes per element; else 0 */
    uint32_t flags;              /* enum corral_type_flags */
    uint32_t ref_count;          /* entries in ref_offsets */
    const uint32_t *ref_offsets; /* byte offsets of reference fields in the fixed part */
    corral_trace_fn trace;       /* optional: used instead of ref_offsets */
    corral_finalize_fn finalize; /* with CORRAL_TYPE_FINALIZABLE */
    /* Fields holding tagged words, read under the process's tag scheme
     * (corral/tagged.h): immediates are skipped, references relocated with
     * their tag kept. Not with a trace hook. */
    uint32_t tagged_count;          /* entries in tagged_offsets */
    const uint32_t *tagged_offsets; /* byte offsets of tagged fields in the fixed part */
};

/* Declares a fixed-size type whose reference fields sit at the given offsets:
 *   static const uint32_t node_refs[] = {offsetof(struct node, left), ...};
 *   static const corral_type node_type =
 *       CORRAL_STRUCT_TYPE("node", struct node, node_refs);               */
#define CORRAL_STRUCT_TYPE(name_, ctype, offsets)                                          \
    {CORRAL_TYPE_SIGNATURE, name_, (uint32_t)sizeof(ctype), 0, 0,                          \
     (uint32_t)(sizeof(offsets) / sizeof((offsets)[0])), (offsets), 0, 0, 0, 0}
/* A fixed-size type whose reference fields are at ref_offsets and whose
 * tagged fields (corral/tagged.h) are at tagged_offsets_: either may be NULL
 * with a count of 0. */
#define CORRAL_TAGGED_STRUCT_TYPE(name_, ctype, ref_count_, ref_offsets_, tagged_count_,     \
                                  tagged_offsets_)                                         \
    {CORRAL_TYPE_SIGNATURE, name_, (uint32_t)sizeof(ctype), 0, 0, (ref_count_),          \
     (ref_offsets_), 0, 0, (tagged_count_), (tagged_offsets_)}
/* A headerless fixed-size type (CORRAL_TYPE_HEADERLESS): ctype has no
 * corral_header, its reference fields are at the given offsets:
 *   struct node { struct node CORRAL_REF *left, *right; };   16 bytes, not 24
 *   static const uint32_t node_refs[] = {offsetof(struct node, left), ...};
 *   static const corral_type node_type =
 *       CORRAL_HEADERLESS_STRUCT_TYPE("node", struct node, node_refs);     */
#define CORRAL_HEADERLESS_STRUCT_TYPE(name_, ctype, offsets)                               \
    {CORRAL_TYPE_SIGNATURE, name_, (uint32_t)sizeof(ctype), 0, CORRAL_TYPE_HEADERLESS,     \
     (uint32_t)(sizeof(offsets) / sizeof((offsets)[0])), (offsets), 0, 0, 0, 0}
/* A headerless type with no reference fields (a boxed number, say). */
#define CORRAL_HEADERLESS_LEAF_TYPE(name_, ctype)                                          \
    {CORRAL_TYPE_SIGNATURE, name_, (uint32_t)sizeof(ctype), 0, CORRAL_TYPE_HEADERLESS, 0, 0, \
     0, 0, 0, 0}
/* A fixed-size type with no reference fields. */
#define CORRAL_LEAF_TYPE(name_, ctype)                                                     \
    {CORRAL_TYPE_SIGNATURE, name_, (uint32_t)sizeof(ctype), 0, 0, 0, 0, 0, 0, 0, 0}
/* An array of references, an array of tagged words, and an array of plain
 * data elements. */
#define CORRAL_REF_ARRAY_TYPE(name_)                                                       \
    {CORRAL_TYPE_SIGNATURE, name_, (uint32_t)sizeof(corral_array_header), 8,               \
     CORRAL_TYPE_ARRAY | CORRAL_TYPE_REF_ARRAY, 0, 0, 0, 0, 0, 0}
#define CORRAL_TAGGED_ARRAY_TYPE(name_)                                                    \
    {CORRAL_TYPE_SIGNATURE, name_, (uint32_t)sizeof(corral_array_header), 8,               \
     CORRAL_TYPE_ARRAY | CORRAL_TYPE_TAGGED_ARRAY, 0, 0, 0, 0, 0, 0}
#define CORRAL_DATA_ARRAY_TYPE(name_, element_type)                                        \
    {CORRAL_TYPE_SIGNATURE, name_, (uint32_t)sizeof(corral_array_header),                  \
     (uint32_t)sizeof(element_type), CORRAL_TYPE_ARRAY, 0, 0, 0, 0, 0, 0}

/* ---------------------------------------------------------------------------
 * Start-up and shut-down
 */
typedef enum corral_status {
    CORRAL_OK = 0,
    CORRAL_ERROR_CONFIG = -1,        /* a CORRAL_* variable or option is invalid */
    CORRAL_ERROR_NO_MEMORY = -2,     /* could not reserve or commit memory */
    CORRAL_ERROR_STACKMAPS = -3,     /* a stackmap table is corrupt */
    CORRAL_ERROR_STATE = -4,         /* called in the wrong thread state or order */
} corral_status;

/* Options an embedder sets in code; every field is also a CORRAL_* variable,
 * and the environment wins. Zero means "use the default". */
typedef struct corral_options {
    size_t heap_min;           /* CORRAL_HEAP_MIN: initial heap size (bytes) */
    size_t heap_max;           /* CORRAL_HEAP_MAX: hard limit (bytes) */
    unsigned gc_threads;       /* CORRAL_GC_THREADS: GC workers, the collecting thread included */
    size_t tlab_size;          /* CORRAL_TLAB_SIZE: bytes per thread-local allocation buffer */
    size_t large_object_size;  /* CORRAL_LARGE_OBJECT_SIZE: objects this big go to the LOS */
    /* CORRAL_TLAB_ZERO: non-zero hands out zeroed TLABs, for a JIT whose own
     * allocation fast path writes only the header (corral/alloc.h). */
    int tlab_zero;
    /* The tag scheme of tagged fields, arrays and compiled-code values
     * (corral/tagged.h), copied at init; NULL: none (every word a reference,
     * and types with tagged slots are refused). No environment variable. */
    const struct corral_tag_scheme *tag_scheme;
} corral_options;

/* Initialises the collector once per process; options may be NULL.
 * Reads CORRAL_* from the environment, registers the stackmaps linked into the
 * program and starts the GC workers. On a bad CORRAL_* value it prints a
 * message naming the variable and returns CORRAL_ERROR_CONFIG; a tag scheme
 * that is not one (corral/tagged.h) is refused the same way. */
int corral_init(const corral_options *options);
/* Registers the stackmap section (.llvm_stackmaps contents, StackMap v3) of
 * code generated or loaded after corral_init: a JIT's module, a dlopen'ed
 * library of managed code. Call it before that code runs. origin names the
 * code in error messages. Returns 0, or CORRAL_ERROR_STACKMAPS with
 * corral_last_error() naming the offset and what is wrong. Any thread; a
 * MANAGED caller is UNMANAGED while it runs (a collection may move objects:
 * keep references in handles across it). */
int corral_register_stackmaps(const void *section, size_t size, const char *origin);
/* Last error message of this thread (never NULL). */
const char *corral_last_error(void);
/* Prints statistics if CORRAL_STATS=1; the process may exit afterwards.
 * Every thread but the caller must be detached. */
void corral_shutdown(void);

/* ---------------------------------------------------------------------------
 * Threads and GC transitions
 *
 * Every thread that touches the heap is attached. An attached thread is
 * MANAGED (it may hold raw references and must reach a poll soon), UNMANAGED
 * (it holds references only in handles and may block for as long as it
 * likes), or PARKED at a safepoint during a collection.
 */

/* Attaches the calling thread (state: MANAGED). Called from managed code, it
 * opens a managed stack segment at the caller's frame, so the caller and the
 * functions it calls are walked for roots. May block while a GC runs. */
CORRAL_SAFEPOINT_CALL int corral_thread_attach(void);
/* Detaches the calling thread: hands back its TLAB and handles. A thread
 * that exits attached is detached at its exit, with a warning. */
CORRAL_SAFEPOINT_CALL void corral_thread_detach(void);
/* Creates a thread that attaches, runs start(arg) as managed code and
 * detaches; like pthread_create. The caller may be in any state. */
int corral_thread_create(void *thread_id /* pthread_t * */, void *(*start)(void *), void *arg);
/* pthread_create for a start routine of managed code, with the same
 * arguments and result (0 or an error number): corral-opt calls it in place
 * of a direct pthread_create whose start routine the module defines. */
int corral_pthread_create(void *thread_id /* pthread_t * */, const void *attr /* pthread_attr_t * */,
                          void *(*start)(void *), void *arg);
/* C11's thrd_create for a start routine of managed code: corral-opt calls it
 * in place of a direct thrd_create whose start routine the module defines,
 * with start an adapter that returns the routine's int result as thrd_join
 * reads it back. Returns thrd_success, thrd_nomem or thrd_error. */
int corral_thrd_create(void *thread_id /* thrd_t * */, void *(*start)(void *), void *arg);
/* pthread_create and thrd_create for a start routine corral-opt cannot see:
 * chosen at run time, or defined in another file. A routine the registered
 * stackmaps have records of (managed code) runs as corral_pthread_create
 * would run it; any other starts as pthread_create (thrd_create) would.
 * corral-opt calls them in place of such a call. A routine started attached
 * may still attach and detach itself: that inner pair does nothing. */
int corral_pthread_create_any(void *thread_id /* pthread_t * */,
                              const void *attr /* pthread_attr_t * */, void *(*start)(void *),
                              void *arg);
int corral_thrd_create_any(void *thread_id /* thrd_t * */, int (*start)(void *), void *arg);
/* pthread_exit and thrd_exit for managed code (corral-opt calls them in
 * place of those): the thread first leaves managed code for good, dropping
 * its managed frames, which the exit unwinds; its handles stay roots until
 * it is detached at its exit. Any state; do not return. */
__attribute__((noreturn)) void corral_pthread_exit(void *value);
__attribute__((noreturn)) void corral_thrd_exit(int result);

/* ---------------------------------------------------------------------------
 * Switching stacks: coroutines, fibers, generators (docs/threads.md)
 *
 * A thread's managed frames belong to the stack it runs on. Code that
 * switches to another stack moves them aside first and takes them back when
 * it is switched to again; every collection walks the stacks set aside like
 * the running one. Call these from C reached through an unmanaged call (the
 * thread UNMANAGED), around the switch, on the same thread:
 *
 *   void my_switch(struct coro *from, struct coro *to) {   // plain C
 *       corral_suspended_stack saved;                      // on from's stack
 *       corral_stack_suspend(&saved, from);
 *       switch_stacks(&from->regs, &to->regs);             // returns when resumed
 *       corral_stack_resume(&saved);
 *   }
 *
 * A stack switched to for the first time has no managed frames: its function
 * enters managed code through corral_call_managed (or a callback entry).
 * corral-opt calls corral_swapcontext, corral_setcontext and corral_getcontext
 * in place of swapcontext, setcontext and getcontext in managed code.
 */
/* Room for the runtime's record of a stack set aside; lives on that stack. */
typedef struct corral_suspended_stack {
    uintptr_t opaque[20];
} corral_suspended_stack;
/* Sets the running stack's managed frames, frame-root chains and call pins
 * aside in *saved, under key (the embedder's name for the context: a
 * suspended stack already listed under key is forgotten). Thread: UNMANAGED,
 * or not attached (then nothing is recorded). */
void corral_stack_suspend(corral_suspended_stack *saved, const void *key);
/* Takes them back once the thread runs on that stack again: same thread, the
 * stack that switched here having set its own aside (or ended), and every
 * handle scope opened since the suspend closed. */
void corral_stack_resume(corral_suspended_stack *saved);
/* A suspended stack that will never run again (a generator abandoned before
 * it finished): no longer walked, so its memory may be freed or reused.
 * Any state; a key not listed is ignored. */
void corral_stack_forget(const void *key);
/* swapcontext, setcontext and getcontext for managed code (ucontext_t *):
 * swapcontext sets the running stack aside under save; setcontext abandons
 * it; a context getcontext saved here may only be made into a new one with
 * makecontext, not resumed. Managed code calls them directly (MANAGED); C
 * may call them UNMANAGED. */
CORRAL_SAFEPOINT_CALL int corral_swapcontext(void *save, const void *target);
CORRAL_SAFEPOINT_CALL int corral_setcontext(const void *target);
CORRAL_SAFEPOINT_CALL int corral_getcontext(void *context);

/* MANAGED -> UNMANAGED for plain C code about to block or run long. */
void corral_enter_unmanaged(void);
/* UNMANAGED -> MANAGED; blocks while a collection runs. */
void corral_leave_unmanaged(void);
/* From UNMANAGED C code: runs the managed function fn(arg) in a new managed
 * stack segment and returns its result; the thread is UNMANAGED again after. */
void *corral_call_managed(void *(*fn)(void *), void *arg);

/* ---------------------------------------------------------------------------
 * Allocation (thread: MANAGED; may GC)
 *
 * Memory is zeroed and the header (and array length) set. On exhaustion after
 * a full collection the out-of-memory handler runs; if it returns, the call
 * returns NULL. The inline fast paths are in corral/alloc.h.
 */
CORRAL_SAFEPOINT_CALL void CORRAL_REF *corral_alloc_slow(const corral_type *type, uint64_t length);

/* Writes every attached thread's state and managed frames (symbolised) to
 * fd, like a JVM's thread dump: each thread is stopped briefly by a
 * handshake while its stack is read; the world keeps running. Returns the
 * number of threads. Thread: MANAGED; may GC (it parks if one is requested). */
CORRAL_SAFEPOINT_CALL int corral_dump_threads(int fd);

/* Runs a full collection now. Thread: MANAGED; may GC. */
CORRAL_SAFEPOINT_CALL void corral_collect(void);
/* Runs a minor collection now (the objects allocated since the last
 * collection) with CORRAL_GC_GENERATIONAL=1, a full one without, or when
 * the old space has reached the heap limit. Thread: MANAGED; may GC. */
CORRAL_SAFEPOINT_CALL void corral_collect_young(void);

typedef void (*corral_oom_fn)(size_t request_bytes, size_t heap_bytes, size_t live_bytes);
/* Replaces the default handler (print heap figures, abort). */
void corral_set_oom_handler(corral_oom_fn handler);

/* ---------------------------------------------------------------------------
 * Roots held by C code. None of these may GC; all are gc-leaf for the pass.
 */
/* Handles: slots in the current handle scope of the calling thread, updated
 * when objects move. Scopes nest and must close in reverse order. */
typedef void **corral_handle;
typedef struct corral_handle_scope {
    void *block;   /* opaque: the block and index to return to */
    uint32_t index;
    uint32_t depth;
} corral_handle_scope;
CORRAL_LEAF corral_handle_scope corral_handle_scope_open(void);
CORRAL_LEAF void corral_handle_scope_close(corral_handle_scope scope);
CORRAL_LEAF corral_handle corral_handle_new(corral_ref object);

/* Global roots: addresses of variables that hold references. */
CORRAL_LEAF void corral_global_root_add(corral_ref *slot);
CORRAL_LEAF void corral_global_root_remove(corral_ref *slot);

/* The same roots for tagged words (corral/tagged.h), read under the declared
 * tag scheme: an immediate is left as it is, a reference is kept alive and
 * relocated with its tag. Read and write them as corral_value slots; a
 * tagged word in a plain handle or global is taken for a reference (the
 * verifier names it). Without a declared scheme these are fatal errors. */
typedef corral_value *corral_value_handle;
CORRAL_LEAF corral_value_handle corral_handle_new_value(corral_value value);
/* slot: 8-byte aligned; removed with corral_global_value_root_remove. */
CORRAL_LEAF void corral_global_value_root_add(corral_value *slot);
CORRAL_LEAF void corral_global_value_root_remove(corral_value *slot);

/* Weak handles: cleared (get returns NULL) once the target is unreachable. */
typedef struct corral_weak corral_weak;
CORRAL_LEAF corral_weak *corral_weak_new(corral_ref object);
CORRAL_LEAF corral_ref corral_weak_get(const corral_weak *weak);
CORRAL_LEAF void corral_weak_free(corral_weak *weak);

/* Pinning: a pinned object neither moves nor dies until unpinned; pins nest. */
CORRAL_LEAF void corral_pin(corral_ref object);
CORRAL_LEAF void corral_unpin(corral_ref object);
/* For managed code that keeps raw pointers into object in memory (a struct,
 * a global, a local whose address it passes on) while its caller holds the
 * pin: returns when object cannot move (pinned by corral_pin, large,
 * headerless, or of a pinned type) and dies naming it otherwise. corralc
 * accepts such stores in a function that calls this on the object, as it
 * does after a corral_pin there (docs/managed-c.md). */
CORRAL_LEAF void corral_require_pinned(corral_ref object);

/* ---------------------------------------------------------------------------
 * Statistics and the per-GC callback
 */
/* The phases of a collection, in order (see docs/performance.md). */
enum corral_gc_phase {
    CORRAL_GC_PHASE_ROOTS,   /* stack walks */
    CORRAL_GC_PHASE_MARK,
    CORRAL_GC_PHASE_PLAN,    /* live data per region, destinations, forwarding */
    CORRAL_GC_PHASE_UPDATE,  /* every reference rewritten */
    CORRAL_GC_PHASE_SLIDE,   /* objects copied to their destinations */
    CORRAL_GC_PHASE_FINISH,  /* free ranges, bitmaps */
    CORRAL_GC_PHASES
};

typedef struct corral_gc_info {
    uint64_t number;              /* 1 for the first collection */
    const char *cause;            /* "alloc", "explicit", "stress", "oom" */
    uint64_t ttsp_ns;             /* request -> every thread stopped */
    uint64_t pause_ns;            /* request -> threads released */
    uint64_t mark_ns, compact_ns; /* wall time of the two big phases */
    uint64_t heap_before, heap_after, live_bytes;
    uint64_t moved_bytes;
    unsigned workers;
    /* Per phase: wall time, total busy time of all workers (work), and the
     * longest piece no number of workers can split (span). */
    uint64_t phase_wall_ns[CORRAL_GC_PHASES];
    uint64_t phase_work_ns[CORRAL_GC_PHASES];
    uint64_t phase_span_ns[CORRAL_GC_PHASES];
    /* 1 for a minor collection (CORRAL_GC_GENERATIONAL=1): only the objects
     * allocated since the last collection were collected; live_bytes is then
     * the old space after it, promoted_bytes the young survivors it added.
     * 2 for the first pause of a concurrent minor collection
     * (CORRAL_GC_CONCURRENT=1): its roots were taken and its marking goes on
     * while the program runs; its second pause, which sweeps, reports 1
     * (and the pause, not the marking between). */
    int minor;
    uint64_t promoted_bytes;
} corral_gc_info;

/* Predicted speed-up of this collection's phases on `workers` workers,
 * from their work and span: sum(work) / sum(max(span, work / workers)).
 * With brent = 1, the more conservative Brent bound
 * sum(work) / sum(work / workers + span). */
double corral_gc_predicted_speedup(const corral_gc_info *info, unsigned workers, int brent);

typedef struct corral_stats {
    uint64_t collections; /* a concurrent minor one counts once, at its end */
    uint64_t pause_total_ns, pause_max_ns;
    uint64_t mark_total_ns, compact_total_ns;
    uint64_t ttsp_max_ns;
    uint64_t bytes_allocated;     /* handed to TLABs and large objects */
    uint64_t bytes_moved;
    uint64_t heap_bytes, live_bytes; /* after the last collection */
    /* Minor collections (counted in collections too) and their pauses; the
     * young survivors they made old. A concurrent one counts once; both its
     * pauses count in the pause totals. */
    uint64_t minor_collections;
    uint64_t minor_pause_total_ns, minor_pause_max_ns;
    uint64_t promoted_bytes;
    /* CORRAL_GC_CONCURRENT=1: allocations that reached their limit while
     * the marker marked and marked beside it until it was done (that
     * thread alone waited: not a pause), their time and what they marked. */
    uint64_t marking_assists;
    uint64_t assist_total_ns, assist_max_ns;
    uint64_t assist_marked_bytes;
} corral_stats;

void corral_get_stats(corral_stats *out);
/* Called after each collection on the collecting thread, world restarted. */
typedef void (*corral_gc_callback_fn)(const corral_gc_info *info, void *context);
void corral_set_gc_callback(corral_gc_callback_fn callback, void *context);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#include "corral/alloc.h"
#include "corral/barrier.h"
#include "corral/poll.h"

#endif /* CORRAL_H */
