/* coordinator.c — one collection at a time, world stop and restart, TTSP. */
#include "coordinator.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <urcu.h>

#include "arch.h"
#include "fatal.h"

uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Snapshot of the threads of the current stop. Written by the coordinator
 * only, while it holds the epoch; read by GC workers during the body. */
static thread_list stopped_threads;

void world_park_self(corral_thread *self)
{
    self->parked_at_ns = monotonic_ns();
    thread_publish_stopped(self, THREAD_PARKED);
    thread_resume_managed(self);
}

static void cpu_relax(void)
{
    arch_cpu_relax();
}

/* Spins, then yields, then naps: with more mutators than cores the thread
 * we wait for needs our CPU to reach its poll. */
/* seq_cst: with the epoch CAS before it, this is the coordinator's half of
 * the Dekker pattern against thread_resume_managed (transition.c: a plain
 * mov on x86-64 after the locked CAS, ldar on AArch64 after the acq_rel CAS). */
static uint32_t read_state(corral_thread *thread)
{
    return atomic_load_explicit(&thread->state, memory_order_seq_cst);
}

/* After this long, a MANAGED thread is most likely blocked in C without
 * corral_enter_unmanaged (a deadlock if it waits for a thread that waits for
 * this collection): say so once, then keep waiting. */
#define STOP_WATCHDOG_NS (5ull * 1000 * 1000 * 1000)

/* True when the kernel no longer knows the thread's tid. */
static bool thread_is_gone(const corral_thread *thread)
{
    return syscall(SYS_tgkill, getpid(), thread->tid, 0) != 0 && errno == ESRCH;
}

static void warn_thread_not_stopping(const corral_thread *thread, uint64_t waited_ns)
{
    /* Waiting longer cannot help: say which thread, rather than hang. */
    if (thread_is_gone(thread))
        CORRAL_FATAL("%s (tid %d) no longer exists but is still attached and MANAGED: it ended "
                     "without corral_thread_detach and without running its exit destructor "
                     "(a raw exit system call?); the collection cannot finish",
                     thread->name, (int)thread->tid);
    fflush(stdout);
    fprintf(stderr,
            "corral: warning: waited %.1f s for %s (tid %d) to reach a safepoint; it is "
            "MANAGED: C code that blocks (a lock, a join, I/O) must call "
            "corral_enter_unmanaged() first, and managed code must not spin without polls\n",
            (double)waited_ns / 1e9, thread->name, (int)thread->tid);
}

static void wait_until_stopped(corral_thread *thread)
{
    uint64_t began = 0;
    bool warned = false;
    for (unsigned spins = 0; read_state(thread) == THREAD_MANAGED; spins++) {
        if (spins < 128) {
            cpu_relax();
        } else if (spins < 4096) {
            sched_yield();
        } else {
            nanosleep(&(struct timespec){0, 20000}, NULL);
            uint64_t now = monotonic_ns();
            if (!began)
                began = now;
            else if (!warned && now - began > STOP_WATCHDOG_NS) {
                warn_thread_not_stopping(thread, now - began);
                warned = true;
            }
        }
    }
}

/* Waits for every registered thread; the caller holds rcu_read_lock. */
static void stop_all_threads(stop_report *report)
{
    size_t count = threads_snapshot(&stopped_threads);
    for (size_t i = 0; i < count; i++) {
        corral_thread *thread = stopped_threads.items[i];
        uint64_t before = monotonic_ns();
        bool was_running = read_state(thread) == THREAD_MANAGED;
        wait_until_stopped(thread);
        if (was_running) {
            uint64_t waited = monotonic_ns() - before;
            if (waited >= report->slowest_wait_ns) {
                report->slowest_wait_ns = waited;
                report->slowest_thread = thread->id;
                report->slowest_site = thread->anchor.return_address;
            }
        }
    }
    report->thread_count = count;
    report->threads = stopped_threads.items;
    report->stopped_ns = monotonic_ns();
    report->ttsp_ns = report->stopped_ns - report->request_ns;
}

/* Returns when the stopped threads were released. */
static uint64_t coordinate(corral_thread *self, uint32_t odd_epoch, stopped_world_fn body,
                           void *context)
{
    stop_report report = {.request_ns = monotonic_ns(), .epoch = odd_epoch};
    /* The coordinator's own frames are walked like everyone else's. */
    self->parked_at_ns = report.request_ns;
    thread_publish_stopped(self, THREAD_PARKED);
    transition_coordinator_barrier();
    poll_arm();
    rcu_read_lock();
    stop_all_threads(&report);
    body(&report, context);
    rcu_read_unlock();
    poll_disarm();
    /* Become MANAGED before the epoch turns even: afterwards another
     * coordinator could otherwise count us as stopped while we run. */
    atomic_store_explicit(&self->state, THREAD_MANAGED, memory_order_relaxed);
    /* Read before the store: a thread that sees the epoch even runs after it. */
    uint64_t released_ns = monotonic_ns();
    atomic_store_explicit(&corral_gc_epoch, odd_epoch + 1, memory_order_seq_cst);
    gc_epoch_wake_all();
    return released_ns;
}

/* Moves the epoch from even to odd, waiting out a collection in progress. */
static uint32_t take_epoch(void)
{
    for (;;) {
        uint32_t epoch = atomic_load_explicit(&corral_gc_epoch, memory_order_acquire);
        if (gc_epoch_in_progress(epoch)) {
            gc_epoch_wait_change(epoch);
            continue;
        }
        if (atomic_compare_exchange_strong_explicit(&corral_gc_epoch, &epoch, epoch + 1,
                                                    memory_order_seq_cst, memory_order_acquire))
            return epoch + 1;
    }
}

uint32_t world_stop_for_fork(void)
{
    uint32_t odd_epoch = take_epoch();
    stop_report report = {.request_ns = monotonic_ns(), .epoch = odd_epoch};
    transition_coordinator_barrier();
    poll_arm();
    /* The read lock keeps the snapshot's records alive while we wait on them. */
    rcu_read_lock();
    stop_all_threads(&report);
    rcu_read_unlock();
    return odd_epoch;
}

void world_restart_after_fork(uint32_t odd_epoch)
{
    poll_disarm();
    atomic_store_explicit(&corral_gc_epoch, odd_epoch + 1, memory_order_seq_cst);
    gc_epoch_wake_all();
}

/* Fairness: a thread collecting back to back (a stress mode, an allocation
 * loop in a full heap) takes the epoch again within a microsecond of a
 * restart, before the threads it parked woke from the futex (tens of
 * microseconds on an idle core): they see a collection in progress, wait
 * again, and could never run (seen on 16 cores). A thread passed over so
 * counts itself in the collection it waits through; the next one begins
 * when those have run again, so none misses two in a row. They need only a
 * CPU, no lock; we wait PARKED, so a stop that fork() or another requester
 * begins meanwhile does not wait for us (we wait that one out, PARKED too).
 * Returns false when the epoch moved while we waited. */
static bool wait_for_last_parked(corral_thread *self, uint32_t even_epoch)
{
    if (gc_epoch_still_resuming(even_epoch) == 0)
        return true;
    self->parked_at_ns = monotonic_ns();
    thread_publish_stopped(self, THREAD_PARKED);
    gc_epoch_wait_resumed(even_epoch);
    thread_resume_managed(self);
    return atomic_load_explicit(&corral_gc_epoch, memory_order_acquire) == even_epoch;
}

uint32_t world_epoch(void)
{
    return atomic_load_explicit(&corral_gc_epoch, memory_order_acquire);
}

world_collect_outcome world_collect(corral_thread *self, uint32_t since, stopped_world_fn body,
                                    void *context, uint64_t *released_ns)
{
    uint32_t state = atomic_load_explicit(&self->state, memory_order_relaxed);
    CORRAL_REQUIRE(state == THREAD_MANAGED, "%s requests a collection while %s", self->name,
                   thread_state_name(state));
    bool any_later_will_do = !gc_epoch_in_progress(since);
    for (;;) {
        uint32_t epoch = atomic_load_explicit(&corral_gc_epoch, memory_order_acquire);
        if (gc_epoch_in_progress(epoch))
            break;
        if (any_later_will_do && epoch != since)
            return WORLD_OVERTAKEN;
        /* Another thread's collection, begun while we waited, is not ours
         * (an explicit or stress-scheduled request wants its own): look
         * again, as a request made now would. */
        if (!wait_for_last_parked(self, epoch))
            continue;
        if (atomic_compare_exchange_strong_explicit(&corral_gc_epoch, &epoch, epoch + 1,
                                                    memory_order_seq_cst,
                                                    memory_order_acquire)) {
            uint64_t released = coordinate(self, epoch + 1, body, context);
            if (released_ns)
                *released_ns = released;
            return WORLD_COLLECTED;
        }
        break;
    }
    /* Another thread is collecting, or just finished: wait it out here. */
    world_park_self(self);
    return WORLD_WAITED;
}
