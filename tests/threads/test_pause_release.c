/* A collection's pause (corral_stats, corral_gc_info.pause_ns: "request ->
 * threads released") ends when the stopped threads are released, not when
 * the collecting thread runs again: on a machine with more runnable threads
 * than cores the threads it woke often run first, for as long as the
 * scheduler lets them (mt-trees, 4 mutators on 2 cores: 152 ms in 39 minor
 * collections were counted as pause so). Here a poller shares the
 * collector's CPU at a higher priority: woken by a collection's end it runs
 * first, notes when, and keeps the CPU for 2 ms. Each pause must have ended
 * by the time it noted. Internal: the poller reads the GC epoch to tell
 * that a collection parked it (the statistics are written after the
 * release, by the collecting thread). */
#include <corral.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "corral_test.h"
#include "run_on_cpu.h"
#include "thread.h"

enum { ROUNDS = 20 };
static const double POLLER_KEEPS_CPU_S = 0.002;

static int shared_cpu;
/* Written by the poller, read by the collecting thread (seq_cst). */
static _Atomic double resumed_at; /* tap_now() when it resumed after a collection; 0: not yet */
static atomic_bool poller_busy; /* it keeps the CPU after a collection */
static atomic_bool poller_ready; /* attached: every collection from now on parks it */
static atomic_bool stop_poller; /* by the collecting thread */

static void *poller(void *arg)
{
    (void)arg;
    run_on_cpu(shared_cpu, SCHED_OTHER);
    corral_thread_attach();
    uint32_t seen = atomic_load(&corral_gc_epoch);
    atomic_store(&poller_ready, true);
    while (!atomic_load(&stop_poller)) {
        corral_poll();
        uint32_t epoch = atomic_load(&corral_gc_epoch);
        if (epoch != seen) { /* MANAGED, so the collection parked us */
            seen = epoch;
            double resumed = tap_now();
            atomic_store(&poller_busy, true);
            atomic_store(&resumed_at, resumed);
            while (tap_now() - resumed < POLLER_KEEPS_CPU_S)
                corral_poll();
            atomic_store(&poller_busy, false);
        }
        /* Asleep MANAGED: a collection waits for our next poll. */
        tap_sleep_ns(20000);
    }
    corral_thread_detach();
    return NULL;
}

static void release_ends_pause(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_THREADS=1", false);
    shared_cpu = sched_getcpu();
    run_on_cpu(shared_cpu, SCHED_OTHER);
    pthread_t thread;
    pthread_create(&thread, NULL, poller, NULL);
    while (!atomic_load(&poller_ready))
        tap_sleep_ns(100000);
    corral_thread_attach();
    run_on_cpu(shared_cpu, SCHED_IDLE); /* the poller, once woken, runs first */
    int late = 0;
    double worst = 0;
    for (int round = 0; round < ROUNDS; round++) {
        while (atomic_load(&poller_busy))
            corral_poll();
        atomic_store(&resumed_at, 0.0);
        corral_stats before, after;
        corral_get_stats(&before);
        double asked = tap_now();
        corral_collect();
        corral_get_stats(&after);
        double resumed;
        while ((resumed = atomic_load(&resumed_at)) == 0.0)
            corral_poll();
        double pause = (double)(after.pause_total_ns - before.pause_total_ns) * 1e-9;
        double excess = pause - (resumed - asked);
        if (excess > 0 && late++ < 3)
            diag("round %d: a pause of %.3f ms, but the poller ran %.3f ms after the request",
                 round, pause * 1e3, (resumed - asked) * 1e3);
        worst = excess > worst ? excess : worst;
    }
    atomic_store(&stop_poller, true);
    corral_enter_unmanaged();
    pthread_join(thread, NULL);
    corral_leave_unmanaged();
    ok(late == 0, "every pause ended by the time a released thread ran (%d of %d late, by up to "
                  "%.3f ms)", late, ROUNDS, worst * 1e3);
    corral_thread_detach();
}

int main(void)
{
    plan(1);
    tap_subtest("a pause ends when the stopped threads are released", 60, release_ends_pause,
                NULL);
    return done_testing();
}
