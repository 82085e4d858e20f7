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
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fatal.h"
#include "fork.h"
#include "satb_log.h"

_Atomic uint32_t corral_gc_epoch;

/* Threads passed over: woken by the end of one collection, they found the
 * next one begun before they could run, and wait through it. By the parity
 * of that collection's number: slot (odd_epoch >> 1) & 1, so the next
 * collection (the other slot) counts apart. Writer: each such thread,
 * incremented before it waits again and decremented once it is MANAGED with
 * the epoch even (seq_cst: see resumer_waiters). Reader: the next requester,
 * before it takes the epoch (gc_epoch_wait_resumed, from world_collect). */
static _Atomic uint32_t threads_resuming[2];

/* Requesters asleep in gc_epoch_wait_resumed. Writer: each of them (seq_cst,
 * before it reads a slot); reader: the thread whose decrement empties a slot
 * (seq_cst, after it), which then wakes them: one of the two sees the other. */
static _Atomic uint32_t resumer_waiters;

static _Atomic uint32_t *resuming_slot(uint32_t odd_epoch)
{
    return &threads_resuming[(odd_epoch >> 1) & 1u];
}

static void count_resumed(_Atomic uint32_t *slot)
{
    if (atomic_fetch_sub_explicit(slot, 1, memory_order_seq_cst) == 1 &&
        atomic_load_explicit(&resumer_waiters, memory_order_seq_cst) != 0 &&
        syscall(SYS_futex, (uint32_t *)slot, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0) < 0)
        CORRAL_FATAL_ERRNO("futex wake on the resuming threads' count");
}

uint32_t gc_epoch_still_resuming(uint32_t even_epoch)
{
    return atomic_load_explicit(resuming_slot(even_epoch - 1), memory_order_seq_cst);
}

void gc_epoch_wait_resumed(uint32_t even_epoch)
{
    _Atomic uint32_t *slot = resuming_slot(even_epoch - 1);
    /* They usually wake within microseconds: spin that long first. */
    for (unsigned spins = 0; spins < 256; spins++) {
        if (atomic_load_explicit(slot, memory_order_seq_cst) == 0)
            return;
        arch_cpu_relax();
    }
    atomic_fetch_add_explicit(&resumer_waiters, 1, memory_order_seq_cst);
    for (;;) {
        uint32_t left = atomic_load_explicit(slot, memory_order_seq_cst);
        if (left == 0 || atomic_load_explicit(&corral_gc_epoch, memory_order_acquire) != even_epoch)
            break;
        /* The timeout notices an epoch that moved (fork's stop) without a wake. */
        long r = syscall(SYS_futex, (uint32_t *)slot, FUTEX_WAIT_PRIVATE, left,
                         &(struct timespec){0, 1000000}, NULL, 0);
        if (r != 0 && errno != EAGAIN && errno != EINTR && errno != ETIMEDOUT)
            CORRAL_FATAL_ERRNO("futex wait on the resuming threads' count");
    }
    atomic_fetch_sub_explicit(&resumer_waiters, 1, memory_order_seq_cst);
}

void gc_epoch_forget_resuming_in_child(void)
{
    atomic_store_explicit(&threads_resuming[0], 0, memory_order_relaxed);
    atomic_store_explicit(&threads_resuming[1], 0, memory_order_relaxed);
}

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
    _Atomic uint32_t *counted_in = NULL; /* the slot that counts us, while we wait */
    bool waited = false;
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
            /* Woken by the end of one collection only to find the next begun:
             * passed over. Counted, so the one after waits until we ran. */
            if (waited && counted_in != resuming_slot(epoch)) {
                if (counted_in)
                    count_resumed(counted_in);
                counted_in = resuming_slot(epoch);
                atomic_fetch_add_explicit(counted_in, 1, memory_order_seq_cst);
            }
            waited = true;
            gc_epoch_wait_change(epoch);
            continue;
        }
        /* Running again: the next collection may begin. */
        if (counted_in) {
            count_resumed(counted_in);
            counted_in = NULL;
        }
        if (!thread_handshake_on_resume(thread))
            return;
        /* A handshake operation runs on our behalf: stay stopped until done. */
        atomic_store_explicit(&thread->state, stopped_state, memory_order_release);
        while (thread_handshake_running_on_behalf(thread))
            sched_yield();
    }
}
