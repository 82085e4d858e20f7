/* handshake.c — run an operation on one thread while it is stopped,
 * without stopping the world (HotSpot's thread-local handshakes).
 *
 *   requester                              target
 *   pending := 1 (seq_cst) [membarrier]    at a poll (MANAGED):
 *   poll +1                                  pending && CAS claim 0->1:
 *   loop:                                      run operation; done := 1
 *     state stopped? (seq_cst) -------+    leaving UNMANAGED/PARKED:
 *       CAS claim 0->1: run on behalf |      state := MANAGED (seq_cst), then
 *     done? -> finish                 +-->   pending? CAS claim 0->1: run it;
 *     park if a GC wants us                  lost the claim: back to stopped
 *   wait done; pending := 0; poll -1           until done, retry
 *
 * Exactly one side runs the operation: the claim. The requester reads the
 * target's state after publishing pending, and the target reads pending
 * after publishing MANAGED, so one of them sees the other and both then race
 * for the same claim; the target never runs managed code while the requester
 * holds it. While the
 * requester is MANAGED no collection body can run, so an operation never
 * races with the collector; it parks in its wait loop if one is requested.
 */
#include <sched.h>

#include "coordinator.h"
#include "fatal.h"
#include "thread.h"

/* One handshake at a time, process-wide: requesters serialise here. */
static pthread_mutex_t handshake_lock = PTHREAD_MUTEX_INITIALIZER;
/* Whether the requester holding handshake_lock has armed the poll. Writer and
 * reader: that requester, under the lock; a fork child (its only thread). */
static bool handshake_armed;

static void run_claimed(corral_thread *target)
{
    target->handshake_operation(target, target->handshake_context);
    atomic_store_explicit(&target->handshake_done, 1, memory_order_release);
}

static bool try_claim(corral_thread *target)
{
    uint32_t expected = 0;
    return atomic_compare_exchange_strong_explicit(&target->handshake_claim, &expected, 1,
                                                   memory_order_acq_rel, memory_order_acquire);
}

void thread_handshake_poll(corral_thread *self)
{
    if (atomic_load_explicit(&self->handshake_pending, memory_order_seq_cst) && try_claim(self))
        run_claimed(self);
}

bool thread_handshake_on_resume(corral_thread *self)
{
    if (!atomic_load_explicit(&self->handshake_pending, memory_order_seq_cst))
        return false;
    if (try_claim(self)) {
        run_claimed(self);
        return false;
    }
    return !atomic_load_explicit(&self->handshake_done, memory_order_acquire);
}

bool thread_handshake_running_on_behalf(corral_thread *self)
{
    return atomic_load_explicit(&self->handshake_pending, memory_order_seq_cst) &&
           !atomic_load_explicit(&self->handshake_done, memory_order_acquire);
}

/* A requester may hold handshake_lock while stopped (parked in its wait loop,
 * or waiting to resume): at fork time, a thread the child lacks. */
void thread_handshake_forget_in_child(corral_thread *survivor)
{
    if (pthread_mutex_trylock(&handshake_lock) != 0) {
        if (handshake_armed)
            poll_disarm();
        handshake_armed = false;
        pthread_mutex_init(&handshake_lock, NULL);
    } else {
        pthread_mutex_unlock(&handshake_lock);
    }
    if (survivor)
        atomic_store_explicit(&survivor->handshake_pending, 0, memory_order_relaxed);
}

/* A collection may be waiting for us while we wait for the target. */
static void park_if_collection_requested(corral_thread *self)
{
    if (gc_epoch_in_progress(atomic_load_explicit(&corral_gc_epoch, memory_order_acquire)))
        world_park_self(self);
}

void thread_handshake(corral_thread *self, corral_thread *target, handshake_fn operation,
                      void *context)
{
    if (target == self) {
        operation(self, context);
        return;
    }
    /* Lock while UNMANAGED: another requester may be parked for a GC while
     * holding it, and a MANAGED thread blocked here would hold up that GC. */
    thread_publish_stopped(self, THREAD_UNMANAGED);
    pthread_mutex_lock(&handshake_lock);
    thread_resume_managed(self);
    target->handshake_operation = operation;
    target->handshake_context = context;
    atomic_store_explicit(&target->handshake_done, 0, memory_order_relaxed);
    /* Release: a target that still sees the last handshake's pending flag
     * can win this claim before our pending store; its acquiring CAS must
     * then see the operation, context and done written above. */
    atomic_store_explicit(&target->handshake_claim, 0, memory_order_release);
    atomic_store_explicit(&target->handshake_pending, 1, memory_order_seq_cst);
    /* Our half of the Dekker pair in membarrier mode (see transition.c). */
    transition_coordinator_barrier();
    poll_arm();
    handshake_armed = true;
    for (unsigned spins = 0;; spins++) {
        if (atomic_load_explicit(&target->handshake_done, memory_order_acquire))
            break;
        uint32_t state = atomic_load_explicit(&target->state, memory_order_seq_cst);
        if (state != THREAD_MANAGED && try_claim(target)) {
            run_claimed(target);
            break;
        }
        park_if_collection_requested(self);
        if (spins > 64)
            sched_yield();
    }
    /* The claimant may still be finishing: wait for done before clearing. */
    while (!atomic_load_explicit(&target->handshake_done, memory_order_acquire))
        sched_yield();
    atomic_store_explicit(&target->handshake_pending, 0, memory_order_seq_cst);
    handshake_armed = false;
    poll_disarm();
    pthread_mutex_unlock(&handshake_lock);
}
