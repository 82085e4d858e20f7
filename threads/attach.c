/* attach.c — the thread API: attach/detach, GC transitions for C code and
 * for the pass's unmanaged-call wrappers, entering managed code from C. */
#include <corral.h>
#include <corral/jit.h>
#include <corral/shadow_stack.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "coordinator.h"
#include "entry.h"
#include "fatal.h"
#include "satb_log.h"
#include "stack_switch.h"
#include "stackmap/registry.h"
#include "walker.h"

_Atomic bool corral_threads_ready;
/* Stress hook run on both sides of every managed<->unmanaged transition,
 * with the thread MANAGED and its anchor recorded. Set at init. */
static void (*transition_hook)(corral_thread *self);

void transitions_set_hook(void (*hook)(corral_thread *self))
{
    transition_hook = hook;
}

corral_thread *thread_require_attached(const char *call)
{
    corral_thread *self = corral_current_thread;
    if (!self)
        CORRAL_FATAL("%s: the calling thread is not attached (call corral_thread_attach first)",
                     call);
    return self;
}

static uint32_t thread_state(const corral_thread *self)
{
    return atomic_load_explicit(&self->state, memory_order_relaxed);
}

/* A thread that exits attached would stay MANAGED in the registry and hold
 * up every later collection: this key's destructor detaches it at its exit.
 * Written once (pthread_once); the value is the thread's own record. */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* A thread the runtime started attached for its start routine
 * (managed_thread_main) lets the routine attach and detach itself once more,
 * as a routine written for plain pthread_create does: that inner pair does
 * nothing. Only the thread itself reads and writes these. */
static _Thread_local bool started_attached; /* in managed_thread_main, around the routine */
static _Thread_local bool routine_attached; /* the routine's own attach, not yet detached */

/* C threads the program never attached (a C library's thread pool, a
 * pthread_key destructor running after the thread detached) may call a
 * managed callback. Its entry attaches them (corral_callback_needs_entry)
 * and they stay attached, UNMANAGED, until they exit, as cgo keeps the M of
 * a C thread (golang/go#51676): attaching per call would pay a registration,
 * an unregistration and a deferred free each time (1.9 us, against 15 ns
 * for the callback). Only the thread itself reads and writes these flags.
 *
 *   not attached --(a callback's entry: register UNMANAGED, arm exit_key)--> attached
 *        ^                                                                  for callbacks
 *        +--(exit_key's destructor, without the warning; corral_thread_detach)--+  |
 *                                                                                  |
 *   attached, the program's <--(corral_thread_attach, in C between callbacks)------+
 *
 * A callback from a key destructor that runs after exit_key's (the thread
 * already detached) attaches for that call only: corral_call_managed
 * detaches as it returns, since no other destructor would.
 */
static _Thread_local bool attached_for_callbacks;
static _Thread_local bool exit_key_destructor_ran; /* with the above: attached after it */

static void detach_at_thread_exit(void *record)
{
    corral_thread *self = record;
    exit_key_destructor_ran = true;
    /* Started by the runtime, its routine ended by pthread_exit or a
     * cancellation; or attached by a callback's entry: nothing to warn of. */
    if (!attached_for_callbacks && !started_attached) {
        fflush(stdout);
        fprintf(stderr,
                "corral: warning: %s (tid %d) exited without corral_thread_detach; detached it "
                "at its exit\n",
                self->name, (int)self->tid);
    }
    corral_current_thread = self; /* thread-local storage outlives key destructors */
    /* Out of UNMANAGED first: a collection may be walking the segments we drop. */
    if (thread_state(self) == THREAD_UNMANAGED)
        thread_resume_managed(self);
    self->segment = NULL; /* pthread_exit may leave from a nested segment */
    started_attached = routine_attached = false; /* else detach would skip the routine's pair */
    corral_thread_detach();
}

static void create_exit_key(void)
{
    if (pthread_key_create(&exit_key, detach_at_thread_exit) != 0)
        CORRAL_FATAL("pthread_key_create for the thread-exit detach failed");
}

static void detach_at_exit_if_attached(corral_thread *self)
{
    pthread_once(&exit_key_once, create_exit_key);
    if (pthread_setspecific(exit_key, self) != 0)
        CORRAL_FATAL("pthread_setspecific for the thread-exit detach failed");
}

/* Registers the calling thread, UNMANAGED, with a fresh TLAB (ours until
 * the record is published: reset first) and the exit key armed. */
static corral_thread *attach_unmanaged(void)
{
    corral_thread_tlab = (corral_tlab){0};
    corral_thread *self = thread_register_self(&corral_thread_tlab);
    detach_at_exit_if_attached(self);
    return self;
}

CORRAL_RUNTIME_ENTRY int corral_thread_attach(void)
{
    frame_anchor caller = FRAME_ANCHOR_OF_CALLER();
    if (!corral_threads_ready) {
        corral_set_error("corral_thread_attach: corral_init has not run");
        return CORRAL_ERROR_STATE;
    }
    corral_thread *self = corral_current_thread;
    if (self && attached_for_callbacks && !self->segment) {
        attached_for_callbacks = false; /* in C between callbacks: now the program's to detach */
    } else if (self) {
        if (started_attached && !routine_attached) {
            routine_attached = true;
            return 0;
        }
        corral_set_error("corral_thread_attach: %s is already attached", self->name);
        return CORRAL_ERROR_STATE;
    } else {
        self = attach_unmanaged();
    }
    /* Wait out a collection in progress before touching our own record. */
    thread_resume_managed(self);
    /* Called from managed code: every managed frame now on the stack (up to
     * the C code that called main, or that called a managed function) is one
     * segment, so the caller may return before the thread detaches. */
    uintptr_t outer_cfa = walker_outermost_managed_cfa(caller);
    if (outer_cfa) {
        self->base_segment = (managed_segment){.outer_cfa = outer_cfa};
        self->segment = &self->base_segment;
        self->in_managed_code = true;
    }
    return 0;
}

CORRAL_RUNTIME_ENTRY void corral_thread_detach(void)
{
    corral_thread *self = corral_current_thread;
    if (!self) {
        corral_set_error("corral_thread_detach: the calling thread is not attached");
        return;
    }
    if (routine_attached) {
        routine_attached = false; /* the start routine's own pair: managed_thread_main detaches */
        return;
    }
    if (thread_state(self) == THREAD_UNMANAGED)
        thread_resume_managed(self);
    CORRAL_CHECK(!self->segment || self->segment == &self->base_segment,
                 "corral_thread_detach: %s detaches from inside corral_call_managed", self->name);
    /* The unused TLAB tail stays unusable until the next collection compacts
     * it. The record may outlive this thread in a collector's snapshot, so it
     * must not point at our thread-local storage any more. */
    corral_thread_tlab = (corral_tlab){0};
    self->tlab = NULL;
    self->shadow_stack_head = NULL; /* the two chains' heads are ours too */
    self->frame_roots_head = NULL;
    satb_log_flush(self); /* a collection reads what we logged after we left */
    stack_switch_forget_all(self);
    thread_free_handles_and_pins(self);
    self->segment = NULL;
    self->anchor = (frame_anchor){0};
    self->in_managed_code = false;
    thread_publish_stopped(self, THREAD_UNMANAGED);
    pthread_setspecific(exit_key, NULL);
    attached_for_callbacks = false;
    thread_unregister_self();
}

void corral_enter_unmanaged(void)
{
    corral_thread *self = thread_require_attached("corral_enter_unmanaged");
    if (thread_state(self) != THREAD_MANAGED)
        CORRAL_FATAL("corral_enter_unmanaged: %s is already UNMANAGED", self->name);
    thread_publish_stopped(self, THREAD_UNMANAGED);
}

void corral_leave_unmanaged(void)
{
    corral_thread *self = thread_require_attached("corral_leave_unmanaged");
    if (thread_state(self) != THREAD_UNMANAGED)
        CORRAL_FATAL("corral_leave_unmanaged: %s is not UNMANAGED (left twice?)", self->name);
    thread_resume_managed(self);
}

void *corral_segment_call(void *(*fn)(void *), void *arg, uintptr_t *outer_cfa);

void *corral_call_managed(void *(*fn)(void *), void *arg)
{
    corral_thread *self = thread_require_attached("corral_call_managed");
    if (thread_state(self) != THREAD_UNMANAGED)
        CORRAL_FATAL("corral_call_managed: %s must be UNMANAGED (call it from C code that "
                     "does not hold raw references)",
                     self->name);
    /* Become MANAGED first: while UNMANAGED a collection may be reading the
     * very anchor and segment list we are about to change. */
    thread_resume_managed(self);
    managed_segment segment = {
        .previous = self->segment,
        .previous_anchor = self->anchor,
        .previous_in_managed = self->in_managed_code,
    };
    self->segment = &segment;
    self->anchor = (frame_anchor){0};
    self->in_managed_code = true;
    void *result = corral_segment_call(fn, arg, &segment.outer_cfa);
    self->segment = segment.previous;
    self->anchor = segment.previous_anchor;
    self->in_managed_code = segment.previous_in_managed;
    thread_publish_stopped(self, THREAD_UNMANAGED);
    /* Attached by a callback after its exit key's destructor (in a later
     * key's): nothing else would detach it. */
    if (exit_key_destructor_ran && attached_for_callbacks && !self->segment)
        corral_thread_detach();
    return result;
}

/* The thread leaves managed code for good: UNMANAGED, with no managed
 * frames for a collection to walk (its handles stay roots). */
static void drop_managed_frames(corral_thread *self)
{
    if (thread_state(self) != THREAD_MANAGED)
        thread_resume_managed(self); /* a collection may be walking them */
    self->segment = NULL;
    self->anchor = (frame_anchor){0};
    self->in_managed_code = false;
    thread_publish_stopped(self, THREAD_UNMANAGED);
}

CORRAL_RUNTIME_ENTRY void corral_main_returns(void)
{
    frame_anchor main_frame = FRAME_ANCHOR_OF_CALLER();
    corral_thread *self = corral_current_thread;
    /* Only main as the outermost managed frame: not a recursive call of it,
     * nor a main run by corral_call_managed (an inner segment). */
    if (!self || self->segment != &self->base_segment ||
        walker_frame_cfa(main_frame) != self->base_segment.outer_cfa)
        return;
    drop_managed_frames(self);
}

/* The exit unwinds the managed frames while the thread is UNMANAGED: were
 * they still listed, a collection could walk them as they are overwritten. */
void corral_pthread_exit(void *value)
{
    if (corral_current_thread)
        drop_managed_frames(corral_current_thread);
    pthread_exit(value);
}

/* Entries of a frame chain in frames the unwinding has left (below the
 * landing pad's stack pointer): no ret or resume popped them. */
static void drop_unwound_entries(corral_shadow_stack_entry **head, uintptr_t live)
{
    while (*head && (uintptr_t)*head < live)
        *head = (*head)->next;
}

/* A managed landing pad runs while the stack unwinds: pthread_exit dropped
 * the managed frames (above), or the thread left managed code at the call
 * that unwound and the wrapper's own pad brought it back without frames.
 * The pad's frame and its callers are whole: the thread runs managed code
 * in them again, its chains and segments cut to what is still on the stack
 * (MANAGED first: only a MANAGED thread changes its own records). A thread
 * the unwinding then takes out of managed code altogether stays MANAGED
 * until it exits (collections wait for its exit key's detach). */
CORRAL_RUNTIME_ENTRY void corral_landing_pad_entered(void *stack_pointer)
{
    frame_anchor pad = FRAME_ANCHOR_OF_CALLER();
    corral_thread *self = corral_current_thread;
    if (!self)
        return;
    int saved_errno = errno;
    if (thread_state(self) != THREAD_MANAGED)
        thread_resume_managed(self);
    uintptr_t live = (uintptr_t)stack_pointer;
    drop_unwound_entries(self->frame_roots_head, live);
    drop_unwound_entries(self->shadow_stack_head, live);
    while (self->segment && self->segment != &self->base_segment &&
           (uintptr_t)self->segment < live)
        self->segment = self->segment->previous;
    if (!self->segment) {
        uintptr_t outer_cfa = walker_outermost_managed_cfa(pad);
        if (outer_cfa) {
            self->base_segment = (managed_segment){.outer_cfa = outer_cfa};
            self->segment = &self->base_segment;
        }
    }
    self->anchor.return_address = 0;
    self->in_managed_code = true;
    errno = saved_errno;
}

void corral_thrd_exit(int result)
{
    if (corral_current_thread)
        drop_managed_frames(corral_current_thread);
    thrd_exit(result);
}

int corral_callback_needs_entry(void)
{
    corral_thread *self = corral_current_thread;
    if (self)
        return thread_state(self) == THREAD_UNMANAGED;
    /* Before init only C runs; a collector thread runs trace hooks unattached. */
    if (!corral_threads_ready || thread_is_collector)
        return 0;
    attach_unmanaged();
    attached_for_callbacks = true;
    return 1;
}

/* Both transitions keep errno: the wrapper calls them around the C callee,
 * whose errno its managed caller reads afterwards. */
void corral_transition_to_unmanaged_at(void *return_address, void *frame_address,
                                       void *stack_pointer)
{
    corral_thread *self = corral_current_thread;
    if (!self)
        return; /* e.g. corral_init or printf before the main thread attaches */
    int saved_errno = errno;
    CORRAL_DEBUG_REQUIRE(self->in_managed_code && thread_state(self) == THREAD_MANAGED,
                         "%s: unmanaged call from code that is not running managed (%s)",
                         self->name, thread_state_name(thread_state(self)));
    uintptr_t wrapper_fp = (uintptr_t)frame_address;
    self->anchor = (frame_anchor){(uintptr_t)return_address, (uintptr_t)stack_pointer,
                                  *(uintptr_t *)wrapper_fp};
    self->in_managed_code = false;
    if (transition_hook)
        transition_hook(self);
    thread_publish_stopped(self, THREAD_UNMANAGED);
    errno = saved_errno;
}

/* The two-argument form, for wrappers on architectures where the CFA is
 * always the frame address + 16 (x86-64); elsewhere (AArch64) a wrapper must
 * pass its SP at entry (llvm.sponentry) to the _at form. */
void corral_transition_to_unmanaged(void *return_address, void *frame_address)
{
    uintptr_t stack_pointer = frame_caller_sp_from_fp((uintptr_t)frame_address);
    if (!stack_pointer && corral_current_thread)
        CORRAL_FATAL("corral_transition_to_unmanaged: on " ARCH_NAME " the caller's SP is not "
                     "frame address + 16: call corral_transition_to_unmanaged_at(return "
                     "address, frame address, llvm.sponentry())");
    corral_transition_to_unmanaged_at(return_address, frame_address, (void *)stack_pointer);
}

void corral_transition_to_managed(void)
{
    corral_thread *self = corral_current_thread;
    if (!self)
        return;
    int saved_errno = errno;
    thread_resume_managed(self);
    if (transition_hook)
        transition_hook(self);
    self->anchor.return_address = 0;
    self->in_managed_code = true;
    errno = saved_errno;
}

typedef struct thread_start {
    void *(*start)(void *);
    void *arg;
} thread_start;

static void *managed_thread_main(void *boxed)
{
    thread_start start = *(thread_start *)boxed;
    free(boxed);
    if (corral_thread_attach() != 0)
        CORRAL_FATAL("corral_thread_create: attach failed: %s", corral_last_error());
    corral_enter_unmanaged();
    started_attached = true;
    void *result = corral_call_managed(start.start, start.arg);
    started_attached = routine_attached = false;
    corral_thread_detach();
    return result;
}

/* Starts a thread that runs start(arg) as managed code; 0 or an error number,
 * as pthread_create. */
static int create_managed_thread(void *thread_id, const pthread_attr_t *attr,
                                 void *(*start)(void *), void *arg)
{
    thread_start *boxed = malloc(sizeof *boxed);
    if (!boxed)
        return ENOMEM;
    *boxed = (thread_start){start, arg};
    int error = pthread_create((pthread_t *)thread_id, attr, managed_thread_main, boxed);
    if (error)
        free(boxed);
    return error;
}

int corral_thread_create(void *thread_id, void *(*start)(void *), void *arg)
{
    int error = create_managed_thread(thread_id, NULL, start, arg);
    if (error == ENOMEM)
        return CORRAL_ERROR_NO_MEMORY;
    if (error) {
        corral_set_error("corral_thread_create: pthread_create: %s", strerror(error));
        return CORRAL_ERROR_STATE;
    }
    return 0;
}

int corral_pthread_create(void *thread_id, const void *attr, void *(*start)(void *), void *arg)
{
    return create_managed_thread(thread_id, attr, start, arg);
}

static int thrd_result(int error)
{
    return error == 0 ? thrd_success : error == ENOMEM ? thrd_nomem : thrd_error;
}

int corral_thrd_create(void *thread_id, void *(*start)(void *), void *arg)
{
    /* glibc's thrd_t is a pthread_t, and thrd_join a pthread_join. */
    _Static_assert(sizeof(thrd_t) == sizeof(pthread_t), "thrd_t is a pthread_t");
    return thrd_result(create_managed_thread(thread_id, NULL, start, arg));
}

/* Managed code is what the registered stackmaps have records of. A managed
 * function without any makes no call and has no poll: it never meets the
 * collector, and may run unattached. */
static bool is_managed_function(const void *start)
{
    uintptr_t address = (uintptr_t)start;
    return address && stackmap_registry_nearest_function(address, NULL, NULL) == address;
}

int corral_pthread_create_any(void *thread_id, const void *attr, void *(*start)(void *), void *arg)
{
    if (is_managed_function((const void *)start))
        return create_managed_thread(thread_id, attr, start, arg);
    return pthread_create((pthread_t *)thread_id, attr, start, arg);
}

int corral_thrd_create_any(void *thread_id, int (*start)(void *), void *arg)
{
    if (!is_managed_function((const void *)start))
        return thrd_create((thrd_t *)thread_id, start, arg);
    /* The routine returns int; called as void *(*)(void *), its result's
     * low 32 bits are that int (x86-64 eax, AArch64 w0), and thrd_join
     * keeps only those. */
    void *(*as_pointer_routine)(void *) = (void *(*)(void *))(void (*)(void))start;
    return thrd_result(create_managed_thread(thread_id, NULL, as_pointer_routine, arg));
}
