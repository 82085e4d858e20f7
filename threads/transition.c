/* transition.c — leaving a stopped state, and waiting on the GC epoch.
 *
 * Entering UNMANAGED or PARKED is a release store (thread_publish_stopped):
 * the anchor written before it is visible to the coordinator that reads the
 * state with acquire. Leaving is the delicate direction: the thread publishes
 * MANAGED and must then see whether a collection started meanwhile. That is a
 * StoreLoad (Dekker) pattern against the coordinator's "epoch = odd; read
 * every state". Two ways to close it (CORRAL_TRANSITION_FENCE):
 *   fence       the mutator's store is seq_cst (a locked xchg on x86-64);
 *   membarrier  the mutator's store is plain; the coordinator calls
 *               membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) after setting
 *               the epoch, which puts a full barrier in every running thread.
 *
 * What the two sides compile to, and why each is enough:
 *
 *              mutator (leaving)             coordinator (stopping)
 *   x86-64     xchg state; mov epoch          lock cmpxchg epoch; mov state
 *   AArch64    stlr state; ldar epoch         CAS acq_rel epoch (casal, or
 *                                              ldaxr/stlxr); ldar state
 *   membarrier str state;  ldar/mov epoch      CAS epoch; membarrier; loads
 *
 * On AArch64 no dmb is needed in fence mode: C11 seq_cst stores and loads map
 * to stlr and ldar, and an ldar is never satisfied before an earlier stlr of
 * the same thread is visible (ARMv8 release/acquire are RCsc), so the pair
 * forbids the StoreLoad reordering on both sides; an explicit
 * atomic_thread_fence(seq_cst) (dmb ish) between them would cost more and add
 * nothing. In membarrier mode the plain str may pass the ldar in hardware;
 * the coordinator's membarrier runs smp_mb (dmb ish) on every CPU running one
 * of our threads after the epoch store, which restores the order.
 * tests/threads/test_transition_race.c races both modes; docs/platforms.md.
 */
#include "thread.h"

#include <corral.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fatal.h"
#include "fork.h"
#include "satb_log.h"

_Atomic uint32_t corral_gc_epoch;

/* Written once at init, before any thread is attached. */
static bool use_membarrier;

static long membarrier(int command, unsigned flags)
{
    return syscall(SYS_membarrier, command, flags, 0);
}

int threads_init(bool membarrier_mode)
{
    fork_handlers_install();
    satb_log_init();
    use_membarrier = false;
    if (!membarrier_mode)
        return 0;
    long supported = membarrier(MEMBARRIER_CMD_QUERY, 0);
    if (supported < 0 || !(supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) {
        corral_set_error("CORRAL_TRANSITION_FENCE=membarrier: this kernel does not offer "
                         "MEMBARRIER_CMD_PRIVATE_EXPEDITED; use CORRAL_TRANSITION_FENCE=fence");
        return CORRAL_ERROR_CONFIG;
    }
    if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) != 0) {
        corral_set_error("membarrier registration failed: %s", strerror(errno));
        return CORRAL_ERROR_CONFIG;
    }
    use_membarrier = true;
    return 0;
}

bool transition_uses_membarrier(void)
{
    return use_membarrier;
}

/* The coordinator's half of the Dekker pattern in membarrier mode. */
void transition_coordinator_barrier(void)
{
    if (use_membarrier && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) != 0)
        CORRAL_FATAL_ERRNO("membarrier(PRIVATE_EXPEDITED)");
}

void thread_publish_stopped(corral_thread *thread, uint32_t state)
{
    atomic_store_explicit(&thread->state, state, memory_order_release);
}

void gc_epoch_wait_change(uint32_t epoch)
{
    while (atomic_load_explicit(&corral_gc_epoch, memory_order_acquire) == epoch) {
        long r = syscall(SYS_futex, (uint32_t *)&corral_gc_epoch, FUTEX_WAIT_PRIVATE, epoch,
                         NULL, NULL, 0);
        if (r != 0 && errno != EAGAIN && errno != EINTR)
            CORRAL_FATAL_ERRNO("futex wait on the GC epoch");
    }
}

void gc_epoch_wake_all(void)
{
    if (syscall(SYS_futex, (uint32_t *)&corral_gc_epoch, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL,
                0) < 0)
        CORRAL_FATAL_ERRNO("futex wake on the GC epoch");
}

void thread_resume_managed(corral_thread *thread)
{
    uint32_t stopped_state = atomic_load_explicit(&thread->state, memory_order_relaxed);
    CORRAL_DEBUG_ASSERT(stopped_state != THREAD_MANAGED, "thread %u resumes while MANAGED",
                        thread->id);
    for (;;) {
        uint32_t epoch;
        if (use_membarrier) {
            atomic_store_explicit(&thread->state, THREAD_MANAGED, memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst); /* the coordinator's membarrier orders us */
            epoch = atomic_load_explicit(&corral_gc_epoch, memory_order_acquire);
        } else {
            atomic_store_explicit(&thread->state, THREAD_MANAGED, memory_order_seq_cst);
            epoch = atomic_load_explicit(&corral_gc_epoch, memory_order_seq_cst);
        }
        if (gc_epoch_in_progress(epoch)) {
            /* A collection started: we may already count as stopped, so go
             * back before touching anything and wait for it to end. */
            atomic_store_explicit(&thread->state, stopped_state, memory_order_release);
            gc_epoch_wait_change(epoch);
            continue;
        }
        if (!thread_handshake_on_resume(thread))
            return;
        /* A handshake operation runs on our behalf: stay stopped until done. */
        atomic_store_explicit(&thread->state, stopped_state, memory_order_release);
        while (thread_handshake_running_on_behalf(thread))
            sched_yield();
    }
}
