/* Threads from plain C: attached mutators that poll and keep roots in
 * handles, threads blocked while UNMANAGED, threads attaching and detaching
 * in a loop, and one thread forcing thousands of stop/resume cycles. Every
 * case runs in a forked child with a timeout, so a deadlock fails by name. */
#define _GNU_SOURCE
#include <corral.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "c_trees.h"
#include "corral_test.h"
#include "run_on_cpu.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Set by the controlling thread, read by workers (relaxed: a stop flag). */
static atomic_bool stop_all;
static atomic_long failures;
static atomic_long trees_checked;

/* A mutator: keeps one long-lived tree, builds and checks short-lived ones. */
static void *mutator(void *arg)
{
    (void)arg;
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(make_tree(10));
    long keep_sum = expected_checksum(10);
    while (!atomic_load_explicit(&stop_all, memory_order_relaxed)) {
        node *tree = make_tree(8);
        if (checksum(tree) != expected_checksum(8) || checksum(*keep) != keep_sum)
            atomic_fetch_add(&failures, 1);
        atomic_fetch_add(&trees_checked, 1);
        corral_poll();
    }
    corral_handle_scope_close(scope);
    corral_thread_detach();
    return NULL;
}

static void run_mutators(unsigned count, double seconds)
{
    pthread_t threads[16];
    atomic_store(&stop_all, false);
    for (unsigned i = 0; i < count; i++)
        pthread_create(&threads[i], NULL, mutator, NULL);
    struct timespec nap = {(time_t)seconds, (long)((seconds - (long)seconds) * 1e9)};
    nanosleep(&nap, NULL);
    /* On a loaded machine (or under TSan) the mutators may have allocated
     * too little by then: give them until a few collections ran, or 30 s. */
    for (int tenth = 0; tenth < 300; tenth++) {
        corral_stats stats;
        corral_get_stats(&stats);
        if (stats.collections > 3)
            break;
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    atomic_store(&stop_all, true);
    for (unsigned i = 0; i < count; i++)
        pthread_join(threads[i], NULL);
}

typedef struct mutators_setup {
    unsigned count;
    const char *settings;
} mutators_setup;

static void mutators_case(void *arg)
{
    const mutators_setup *setup = arg;
    unsigned count = setup->count;
    test_start(setup->settings, false);
    run_mutators(count, 1.5);
    corral_stats stats;
    corral_get_stats(&stats);
    is_int(atomic_load(&failures), 0, "every checksum correct with %u mutators", count);
    ok(atomic_load(&trees_checked) > 10, "mutators made progress (%ld trees)",
       atomic_load(&trees_checked));
    ok(stats.collections > 3, "collections ran while they worked (%llu)",
       (unsigned long long)stats.collections);
}

/* --- the coexistence case ------------------------------------------------ */

static void *spinner(void *arg)
{
    (void)arg;
    corral_thread_attach();
    /* A C loop that never allocates: only its polls let a collection in. */
    volatile unsigned long spins = 0;
    while (!atomic_load_explicit(&stop_all, memory_order_relaxed)) {
        spins++;
        corral_poll();
    }
    corral_thread_detach();
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    corral_thread_attach();
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(make_tree(6));
    while (!atomic_load_explicit(&stop_all, memory_order_relaxed)) {
        corral_enter_unmanaged();
        nanosleep(&(struct timespec){0, 200000}, NULL); /* blocked: must not hold up a GC */
        corral_leave_unmanaged();
        if (checksum(*keep) != expected_checksum(6))
            atomic_fetch_add(&failures, 1);
    }
    corral_handle_scope_close(scope);
    corral_thread_detach();
    return NULL;
}

static void *churner(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop_all, memory_order_relaxed)) {
        corral_thread_attach();
        corral_handle_scope scope = corral_handle_scope_open();
        node *tree = make_tree(4);
        if (checksum(tree) != expected_checksum(4))
            atomic_fetch_add(&failures, 1);
        corral_handle_scope_close(scope);
        corral_thread_detach();
    }
    return NULL;
}

static void coexistence_case(void *arg)
{
    long cycles = (long)(uintptr_t)arg;
    test_start("CORRAL_GC_THREADS=2", false);
    pthread_t threads[5];
    pthread_create(&threads[0], NULL, spinner, NULL);
    pthread_create(&threads[1], NULL, sleeper, NULL);
    pthread_create(&threads[2], NULL, churner, NULL);
    pthread_create(&threads[3], NULL, churner, NULL);
    pthread_create(&threads[4], NULL, mutator, NULL);
    corral_thread_attach();
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(make_tree(8));
    double began = now();
    for (long i = 0; i < cycles; i++) {
        corral_collect();
        if (i % 256 == 0 && checksum(*keep) != expected_checksum(8))
            atomic_fetch_add(&failures, 1);
    }
    double elapsed = now() - began;
    atomic_store(&stop_all, true);
    /* Blocking in C while attached: UNMANAGED, or a GC requested by a
     * thread we wait for would wait for us. */
    corral_enter_unmanaged();
    for (int i = 0; i < 5; i++)
        pthread_join(threads[i], NULL);
    corral_leave_unmanaged();
    corral_stats stats;
    corral_get_stats(&stats);
    is_int(atomic_load(&failures), 0, "no lost object");
    ok(stats.collections >= (uint64_t)cycles, "%ld stop/resume cycles completed (%.1f us each, "
                                              "TTSP max %.1f us)",
       cycles, elapsed / cycles * 1e6, stats.ttsp_max_ns / 1e3);
    corral_handle_scope_close(scope);
    corral_thread_detach();
}

/* Two threads asking for collections at once: exactly one runs at a time
 * and both return. */
static void *collector_thread(void *arg)
{
    long rounds = (long)(uintptr_t)arg;
    corral_thread_attach();
    for (long i = 0; i < rounds; i++)
        corral_collect();
    corral_thread_detach();
    return NULL;
}

static void concurrent_requests_case(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_THREADS=2", false);
    pthread_t a, b;
    pthread_create(&a, NULL, collector_thread, (void *)(uintptr_t)500);
    pthread_create(&b, NULL, collector_thread, (void *)(uintptr_t)500);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    corral_stats stats;
    corral_get_stats(&stats);
    ok(stats.collections >= 500 && stats.collections <= 1000,
       "concurrent requests share collections (%llu for 1000 requests)",
       (unsigned long long)stats.collections);
}

/* A thread collecting back to back must not starve the threads its last
 * collection parked: each must get back to work before the next stop, or on
 * a many-core machine it wakes only to find the next collection begun (seen
 * on 16 cores: thread_churn under CORRAL_GC_STRESS=alloc:random:8 stalled
 * for good). Here the pollers are made slow to wake on any machine: they
 * share the collector's CPU at SCHED_IDLE, so they run only when it waits.
 * Each counts the polls it passes; every collection parks it at one. A
 * thread passed over by one collection is waited for by the next, so each
 * passes a poll at least every other collection; without that, none. */
enum { POLLERS = 3 };
static atomic_long polls_passed[POLLERS];

/* The CPU the collector and the pollers share: one this process may use. */
static int shared_cpu;

static void *poller(void *arg)
{
    atomic_long *passed = arg;
    run_on_cpu(shared_cpu, SCHED_IDLE);
    corral_thread_attach();
    while (!atomic_load_explicit(&stop_all, memory_order_relaxed)) {
        corral_poll();
        atomic_fetch_add_explicit(passed, 1, memory_order_relaxed);
    }
    corral_thread_detach();
    return NULL;
}

static void back_to_back_case(void *arg)
{
    long collections = (long)(uintptr_t)arg;
    test_start("CORRAL_GC_THREADS=2", false);
    shared_cpu = sched_getcpu();
    run_on_cpu(shared_cpu, SCHED_OTHER);
    pthread_t threads[POLLERS];
    atomic_store(&stop_all, false);
    for (int i = 0; i < POLLERS; i++)
        pthread_create(&threads[i], NULL, poller, &polls_passed[i]);
    for (int i = 0; i < POLLERS; i++) /* they run when we sleep */
        while (atomic_load(&polls_passed[i]) == 0)
            nanosleep(&(struct timespec){0, 100000}, NULL);
    corral_thread_attach();
    long before[POLLERS];
    for (int i = 0; i < POLLERS; i++)
        before[i] = atomic_load(&polls_passed[i]);
    for (long i = 0; i < collections; i++)
        corral_collect();
    long fewest = LONG_MAX;
    for (int i = 0; i < POLLERS; i++) {
        long passed = atomic_load(&polls_passed[i]) - before[i];
        fewest = passed < fewest ? passed : fewest;
    }
    atomic_store(&stop_all, true);
    corral_enter_unmanaged();
    for (int i = 0; i < POLLERS; i++)
        pthread_join(threads[i], NULL);
    corral_leave_unmanaged();
    ok(fewest >= collections / 4, "each poller passed %ld polls or more during %ld back-to-back "
                                  "collections", fewest, collections);
    corral_thread_detach();
}

int main(void)
{
    plan(8);
    const char *usual = "CORRAL_HEAP_MIN=4M CORRAL_GC_THREADS=2 CORRAL_GC_VERIFY=after";
    tap_subtest("1 mutator", 60, mutators_case, &(mutators_setup){1, usual});
    tap_subtest("2 mutators", 60, mutators_case, &(mutators_setup){2, usual});
    tap_subtest("4 mutators", 60, mutators_case, &(mutators_setup){4, usual});
    tap_subtest("8 mutators", 90, mutators_case, &(mutators_setup){8, usual});
    /* Fair collections let the other threads run between cycles: half the
     * cycles of before take about the time that 10^4 did. */
    tap_subtest("spinner, sleeper, attach/detach churn: 5 000 stop/resume cycles", 180,
                coexistence_case, (void *)(uintptr_t)5000);
    tap_subtest("concurrent collection requests", 60, concurrent_requests_case, NULL);
    tap_subtest("back-to-back collections do not starve parked threads", 60, back_to_back_case,
                (void *)(uintptr_t)500);
    tap_subtest("3 mutators, membarrier transitions", 60, mutators_case,
                &(mutators_setup){3, "CORRAL_HEAP_MIN=4M CORRAL_TRANSITION_FENCE=membarrier "
                                     "CORRAL_GC_VERIFY=after"});
    return done_testing();
}
