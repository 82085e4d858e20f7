/* thread.h — mutator threads: their state, the frames a collection must walk,
 * their handles, and the registry that lists them.
 *
 * States and transitions (every arrow is taken by the thread itself, except
 * that the coordinator only ever *reads* state):
 *
 *             attach (registers as UNMANAGED, then resumes)
 *                 |
 *                 v          resume_managed: publish MANAGED, re-read the GC
 *           +-----------+    epoch; if a collection runs, go back and wait
 *           | UNMANAGED | ---------------------------------------+
 *           | may block;|                                        |
 *           | handles   | <---------------------+                v
 *           | only      |  enter_unmanaged:     |           +---------+
 *           +-----------+  anchor, then release |           | MANAGED |
 *                          store of UNMANAGED   +---------- | polls,  |
 *                                                           | raw refs|
 *           +-----------+  poll slow path / GC request:     +---------+
 *           |  PARKED   | <------ anchor, then release store      ^
 *           | at a      |         of PARKED                       |
 *           | safepoint | ----------------------------------------+
 *           +-----------+  resume_managed after the GC epoch turns even
 *
 * The coordinator counts a thread as stopped when it reads (acquire)
 * UNMANAGED or PARKED; the release store that published that state also
 * published the anchor, so the walker sees the frames as they were left.
 * The StoreLoad race between "state = MANAGED" and "read the GC epoch" on
 * the way out is closed either by a fence on the mutator side or by the
 * coordinator's membarrier() after it sets the epoch (CORRAL_TRANSITION_FENCE).
 *
 * Managed stack segments: a thread's stack alternates between managed frames
 * (walkable through stackmaps) and C frames. Each entry into managed code
 * (attach from managed code, corral_call_managed, a thread started by
 * corral_thread_create) pushes a managed_segment recording the CFA of its
 * outermost managed frame; each exit to C (an unmanaged call's wrapper, a
 * runtime call that may collect) records an anchor: the return address, SP
 * and FP of the innermost managed frame. The walker walks from an anchor up
 * to the segment's outer CFA, then continues from the anchor that the
 * segment saved for the enclosing managed code.
 */
#ifndef CORRAL_THREAD_H
#define CORRAL_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <urcu/call-rcu.h>
#include <urcu/list.h>
#include <urcu/rculist.h>

#include "arch.h"
#include "vec.h"

enum thread_state {
    THREAD_MANAGED = 0,
    THREAD_UNMANAGED = 1,
    THREAD_PARKED = 2,
};

/* The state's name, for messages. */
static inline const char *thread_state_name(uint32_t state)
{
    return state == THREAD_MANAGED ? "MANAGED" : state == THREAD_UNMANAGED ? "UNMANAGED" : "PARKED";
}

/* The innermost managed frame at the call where managed code was left. */
typedef struct frame_anchor {
    uintptr_t return_address; /* 0: no managed frame to walk from */
    uintptr_t stack_pointer;  /* that frame's SP at the call */
    uintptr_t frame_pointer;  /* that frame's RBP */
} frame_anchor;

/* Lives on the C stack of the code that entered managed code. */
typedef struct managed_segment {
    struct managed_segment *previous;
    frame_anchor previous_anchor; /* where the enclosing managed code was left */
    bool previous_in_managed;
    uintptr_t outer_cfa;          /* CFA of this segment's outermost managed frame */
} managed_segment;

enum { HANDLE_BLOCK_SLOTS = 250 };

/* Written only by the owning thread while MANAGED; read by the collector
 * with the world stopped (the stop orders the writes before the reads). */
typedef struct handle_block {
    struct handle_block *older;
    struct handle_block *newer; /* kept for reuse after scopes close */
    uint32_t used;
    void *slots[HANDLE_BLOCK_SLOTS];
    /* Bit i set: slot i holds a tagged word (corral_handle_new_value). */
    uint64_t tagged[(HANDLE_BLOCK_SLOTS + 63) / 64];
} handle_block;

/* A derived pointer's slot and the slot of the base it points into. */
typedef struct root_pair {
    void **base;
    void **derived;
} root_pair;

/* Roots found on one thread's stack during a collection (GC-owned). */
typedef struct thread_roots {
    void ***bases;           /* addresses of base slots, each once */
    size_t base_count, base_capacity;
    root_pair *derived;
    size_t derived_count, derived_capacity;
    size_t frames;           /* managed frames walked */
    size_t shadow_stack_entries; /* gcroot frames on the shadow stack */
    size_t frame_root_entries; /* frames on the frame-root chain */
    size_t gcroot_promoted_frames; /* frames of gcroot code in promoted mode */
} thread_roots;

/* An object compiled code pins (src/call_pins.c): for one call
 * (frame_slot NULL), or until its frame returns (frame_slot: the word in
 * that frame that holds this entry's index). */
typedef struct call_pin {
    void *object; /* NULL once a frame pin's site let go of it */
    size_t *frame_slot;
} call_pin;
typedef VEC(call_pin) call_pin_stack;

typedef struct corral_thread {
    /* --- written by the owning thread; read by the coordinator and GC workers
     * after an acquire load of state saw UNMANAGED or PARKED. */
    _Atomic uint32_t state;
    frame_anchor anchor;
    managed_segment *segment; /* innermost managed segment, or NULL */
    managed_segment base_segment; /* the segment attach opens for a managed caller */
    bool in_managed_code;     /* owner only: the caller of a runtime entry is managed */
    handle_block *handles;    /* current (innermost) handle block */
    struct corral_tlab *tlab; /* the owner's TLS TLAB: the collector resets it */
    uint32_t handle_scope_depth;
    /* Objects compiled code pins for one call or for the rest of a frame
     * (src/call_pins.c): a stack, since such pins nest with the calls. The
     * collector reads them, like the handles, only once the thread is
     * stopped. */
    call_pin_stack call_pins;
    /* Stacks of this thread that switched away with managed frames on them
     * (stack_switch.c): walked like the running one. Linked and unlinked by
     * the owner while MANAGED; read by the collector once it is stopped. */
    struct cds_list_head suspended_stacks;
    uint64_t parked_at_ns;    /* when it last stopped (for TTSP) */
    /* The owner's corral_shadow_stack_head (a TLS variable, so its address is
     * taken at attach): the chain of gcroot frames the walker also visits. */
    struct corral_shadow_stack_entry **shadow_stack_head;
    /* The owner's corral_frame_roots_head, likewise: frames keeping
     * references in stack memory (polls/setjmp.c, polls/stack_roots.c). */
    struct corral_shadow_stack_entry **frame_roots_head;
    /* The references this thread's stores overwrote while the collector
     * asked (satb_log.h): written by the owner, flushed by the owner at
     * detach or by the collector once the thread is stopped. */
    struct satb_chunk *satb;

    /* --- identity, fixed after attach */
    unsigned id;              /* small number for logs: 1, 2, ... */
    pid_t tid;
    pthread_t pthread;
    char name[16];

    /* --- per-thread counters (owner writes, others read approximately) */
    uint64_t allocations;     /* allocation slow-path calls, for thread-alloc stress */

    /* --- handshakes (handshake.c): an operation run on this thread's behalf
     * while it is stopped, by itself at its next poll or by the requester if
     * it is UNMANAGED or PARKED. pending: written by the requester (seq_cst),
     * read by the thread at polls and when it leaves a stopped state
     * (seq_cst: the Dekker pair of its state store). claim: reset by the
     * requester (release: publishes operation, context and done), won by
     * whoever runs the operation first (acq_rel CAS). done: set after it ran
     * (release), reset by the requester before the claim. */
    _Atomic uint32_t handshake_pending;
    _Atomic uint32_t handshake_claim;
    _Atomic uint32_t handshake_done;
    void (*handshake_operation)(struct corral_thread *thread, void *context);
    void *handshake_context;

    /* --- registry: list link under registry_lock, reclaimed through RCU */
    struct cds_list_head link;
    struct rcu_head rcu;

    /* --- GC-owned while the world is stopped */
    thread_roots roots;
} corral_thread;

/* The calling thread's record, NULL when not attached. */
extern __thread corral_thread *corral_current_thread;

/* The collection epoch: odd while a collection runs. Writer: the coordinator
 * (seq_cst stores, then membarrier in that mode). Readers: threads leaving
 * UNMANAGED/PARKED (after publishing MANAGED), futex waiters, and
 * requesters, before they read what makes them want a collection
 * (world_epoch, acquire: that collection's writes are then visible). */
extern _Atomic uint32_t corral_gc_epoch;

static inline bool gc_epoch_in_progress(uint32_t epoch)
{
    return epoch & 1u;
}

/* --- registry (thread.c) */
int threads_init(bool use_membarrier);
/* New record, state UNMANAGED, published with the list's release order. */
corral_thread *thread_register_self(struct corral_tlab *tlab);
void thread_unregister_self(void);
/* Calls fn for every registered thread; the caller holds rcu_read_lock. */
#define threads_for_each(thread) \
    cds_list_for_each_entry_rcu(thread, &corral_thread_list, link)
extern struct cds_list_head corral_thread_list;
size_t threads_count_estimate(void);
typedef VEC(corral_thread *) thread_list;
/* Replaces list's contents with the registered threads, under the registry
 * lock; returns how many. The caller holds rcu_read_lock until it is done
 * with the records. */
size_t threads_snapshot(thread_list *list);
/* Frees what a thread record owns besides itself: its handle blocks and its
 * call-pin stack (at detach; in a fork child, for the threads left behind). */
void thread_free_handles_and_pins(corral_thread *thread);
/* fork.c: the registry lock is held across fork(); in the child, under it,
 * every record but survivor's (NULL: all) is removed and freed with its
 * handles and call pins: those threads do not exist there. */
void threads_registry_lock_for_fork(void);
void threads_registry_unlock_after_fork(void);
void threads_forget_others_in_child(corral_thread *survivor);

/* --- transitions (transition.c) */
/* From MANAGED: record the anchor then publish state (release). */
void thread_publish_stopped(corral_thread *thread, uint32_t state);
/* From UNMANAGED or PARKED: become MANAGED, waiting while a GC runs. */
void thread_resume_managed(corral_thread *thread);
/* Blocks until the epoch differs from epoch (futex). */
void gc_epoch_wait_change(uint32_t epoch);
void gc_epoch_wake_all(void);
/* How many threads the collection that ended at even_epoch passed over (woken
 * by the end of the one before, they found it begun) and that have not yet
 * run again (thread_resume_managed). The next collection waits for 0, so a
 * thread collecting back to back cannot starve them (coordinator.c). */
uint32_t gc_epoch_still_resuming(uint32_t even_epoch);
/* Blocks until that count is 0 or the epoch is no longer even_epoch. */
void gc_epoch_wait_resumed(uint32_t even_epoch);
/* fork child: the threads counted above do not exist there. */
void gc_epoch_forget_resuming_in_child(void);
bool transition_uses_membarrier(void);

/* Anchor of the caller of a noinline runtime function, from its own frame:
 * the caller's return address, its SP at the call (arch.h), its frame pointer
 * (the saved word at our frame address, on every architecture corral runs on). */
#define FRAME_ANCHOR_OF_CALLER()                                                       \
    ((frame_anchor){(uintptr_t)__builtin_return_address(0), FRAME_CALLER_SP(),          \
                    *(uintptr_t *)__builtin_frame_address(0)})

/* --- the thread API's internals (attach.c) */
/* Whether corral_init has run. Writer: corral_init, once, before it returns.
 * Readers: attach, and callback entries on C threads that may have started
 * before init (seq_cst: they then see what init set up). */
extern _Atomic bool corral_threads_ready;
/* Set by each of the collector's own threads (GC workers, the concurrent
 * marker and its helpers) at its start, read only by that thread: a trace
 * hook of managed code it runs through a callback entry must run there
 * unattached; attaching would wait for the very collection it works for. */
extern __thread bool thread_is_collector;
corral_thread *thread_require_attached(const char *call);
void transitions_set_hook(void (*hook)(corral_thread *self));

/* --- handshakes (handshake.c) */
typedef void (*handshake_fn)(corral_thread *thread, void *context);
/* Runs operation(target, context) while target is stopped, and returns after
 * it ran. Thread: attached and MANAGED, anchor recorded (it may park for a
 * collection while it waits). One handshake at a time, process-wide. */
void thread_handshake(corral_thread *self, corral_thread *target, handshake_fn operation,
                      void *context);
/* At a poll: run a handshake operation aimed at this thread, if any. */
void thread_handshake_poll(corral_thread *self);
/* While leaving a stopped state, after publishing MANAGED: runs a pending
 * handshake if this thread wins its claim; returns true when the requester
 * holds the claim (we must go back to stopped until it is done). */
bool thread_handshake_on_resume(corral_thread *self);
/* True while a handshake runs on this thread's behalf. */
bool thread_handshake_running_on_behalf(corral_thread *self);
/* In a fork child: drops a handshake whose requester was left behind. */
void thread_handshake_forget_in_child(corral_thread *survivor);

/* Debug/verifier check of a thread record; NULL when sound. */
const char *thread_check(const corral_thread *thread);

#endif /* CORRAL_THREAD_H */
