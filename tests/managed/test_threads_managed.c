/* Managed code in many threads (corralc): mutators with derived pointers
 * under frequent collections; a call-free loop, a thread blocked in C, a
 * managed -> C -> managed callback chain and thread churn coexisting with
 * 2 000 stop/resume cycles; and time-to-safepoint against a loop of 10^9
 * iterations with no calls. Each case is a forked child with a timeout. */
#include <corral.h>
#include <pthread.h>
#include <stdatomic.h>
#include <threads.h>

#include "corral_test.h"
#include "spinner.h"
#include "trees.h"

/* Plain C from unmanaged_helpers.c. */
CORRAL_UNMANAGED void *unmanaged_call_back(void *(*callback)(void *), void *arg);
CORRAL_UNMANAGED long unmanaged_blocking_read(int fd);
CORRAL_UNMANAGED void *unmanaged_spin_until_set(void *flag);

/* Written by the controlling thread, read by workers (relaxed flags and
 * counters: only their final values matter). */
static atomic_int stop_flag;
static atomic_long failures;
static atomic_long progress;

static void stop_workers(pthread_t *threads, int count)
{
    atomic_store(&stop_flag, 1);
    for (int i = 0; i < count; i++)
        pthread_join(threads[i], NULL);
}

/* --------------------------------------------------------------- mutators */

/* Keeps a tree and a derived pointer into its root across every GC. */
static void *tree_worker(void *arg)
{
    (void)arg;
    noderef keep = make_tree(11);
    long CORRAL_REF *counter = &keep->value;
    long rounds = 0;
    while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
        noderef churn = make_tree(9);
        if (checksum(churn) != expected_checksum(9))
            atomic_fetch_add(&failures, 1);
        *counter += 1;
        rounds++;
        atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
    }
    if (keep->value != 11 + rounds || *counter != 11 + rounds)
        atomic_fetch_add(&failures, 1);
    if (checksum(keep) - keep->value != expected_checksum(11) - 11)
        atomic_fetch_add(&failures, 1);
    return NULL;
}

static void mutators_case(void *arg)
{
    int count = (int)(intptr_t)arg;
    test_start("CORRAL_HEAP_MIN=8M CORRAL_GC_THREADS=2 CORRAL_GC_STRESS=move-all", true);
    pthread_t threads[8];
    for (int i = 0; i < count; i++) {
        /* Two mutators are started as ordinary C starts threads: corral-opt
         * makes the call corral_pthread_create, which attaches them. */
        if (count == 2)
            pthread_create(&threads[i], NULL, tree_worker, NULL);
        else
            corral_thread_create(&threads[i], tree_worker, NULL);
    }
    corral_stats before, after;
    corral_get_stats(&before);
    /* At least 2 s and 100 collections. The rate is not the point (prove -j 2 may
     * share the CPUs with a heavier test); a cap well inside the subtest's timeout
     * turns a GC that stops making progress into a named failure. */
    enum { WANTED_COLLECTIONS = 100 };
    double began = tap_now(), cap = 30 * tap_timeout_scale();
    uint64_t collections = 0;
    while ((tap_now() < began + 2.0 || collections < WANTED_COLLECTIONS) &&
           tap_now() < began + cap) {
        nanosleep(&(struct timespec){0, 3000000}, NULL);
        corral_collect();
        corral_get_stats(&after);
        collections = after.collections - before.collections;
    }
    double elapsed = tap_now() - began;
    stop_workers(threads, count);
    is_int(atomic_load(&failures), 0, "%d mutators: every checksum and derived pointer right",
           count);
    ok(atomic_load(&progress) > count, "mutators made progress (%ld trees)",
       atomic_load(&progress));
    ok(collections >= WANTED_COLLECTIONS, "%llu collections in %.1f s (%.1f ms each)",
       (unsigned long long)collections, elapsed, elapsed * 1e3 / (double)collections);
}

/* ------------------------------------------------------------ C11 threads */

/* A thrd_start_t routine: corral-opt starts it through corral_thrd_create,
 * whose adapter hands its int result to thrd_join. */
static int counted_tree_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    noderef keep = make_tree(10);
    for (int round = 0; round < 60; round++) {
        noderef churn = make_tree(8);
        if (checksum(churn) != expected_checksum(8))
            return -1;
    }
    return checksum(keep) == expected_checksum(10) ? 1000 + id : -2;
}

static void c11_threads_case(void *unused)
{
    (void)unused;
    test_start("CORRAL_HEAP_MIN=1M CORRAL_GC_THREADS=2 CORRAL_GC_STRESS=alloc:random:200,move-all,"
               "poison",
               true);
    thrd_t threads[2];
    for (int i = 0; i < 2; i++)
        is_int(thrd_create(&threads[i], counted_tree_worker, (void *)(intptr_t)i), thrd_success,
               "thrd_create of managed routine %d", i);
    for (int i = 0; i < 2; i++) { /* thrd_join is C: corral-opt wraps it in a transition */
        int result = 0;
        is_int(thrd_join(threads[i], &result), thrd_success, "thrd_join %d", i);
        is_int(result, 1000 + i, "routine %d's trees survived moving collections, and its int "
                                 "reached thrd_join", i);
    }
    corral_stats stats;
    corral_get_stats(&stats);
    ok(stats.collections > 10, "%llu collections while they ran",
       (unsigned long long)stats.collections);
}

/* ------------------------------------------ start routines chosen at run time */

/* Read through volatile, so corral-opt cannot see which routine a call
 * starts: it calls corral_pthread_create_any and corral_thrd_create_any,
 * which look the routine up in the registered stackmaps. */
static void *(*volatile chosen_routine)(void *);
static int (*volatile chosen_int_routine)(void *);
/* Set by the test's thread once its collections are done; read by the C routine. */
static int c_routine_release;

static void *checked_tree_worker(void *arg)
{
    return counted_tree_worker(arg) == 1000 + (int)(intptr_t)arg ? arg : NULL;
}

/* Written for plain pthread_create: attaches and detaches itself. */
static void *self_attaching_worker(void *arg)
{
    if (corral_thread_attach() != CORRAL_OK)
        return NULL;
    void *result = checked_tree_worker(arg);
    corral_thread_detach();
    return result;
}

static void runtime_chosen_case(void *unused)
{
    (void)unused;
    test_start("CORRAL_HEAP_MIN=1M CORRAL_GC_THREADS=2 CORRAL_GC_STRESS=alloc:random:200,move-all,"
               "poison",
               true);
    pthread_t managed, self_attaching, c_thread;
    thrd_t c11;
    chosen_routine = checked_tree_worker;
    is_int(pthread_create(&managed, NULL, chosen_routine, (void *)(intptr_t)1), 0,
           "pthread_create of a managed routine chosen at run time");
    chosen_int_routine = counted_tree_worker;
    is_int(thrd_create(&c11, chosen_int_routine, (void *)(intptr_t)2), thrd_success,
           "thrd_create of a managed int routine chosen at run time");
    chosen_routine = self_attaching_worker;
    is_int(pthread_create(&self_attaching, NULL, chosen_routine, (void *)(intptr_t)3), 0,
           "pthread_create of a managed routine that attaches itself");
    chosen_routine = unmanaged_spin_until_set;
    is_int(pthread_create(&c_thread, NULL, chosen_routine, &c_routine_release), 0,
           "pthread_create of a C routine chosen at run time");
    /* Attached, the spinning C routine would never reach a safepoint: these
     * would wait for it until the subtest's timeout. */
    for (int i = 0; i < 3; i++)
        corral_collect();
    __atomic_store_n(&c_routine_release, 1, __ATOMIC_RELEASE);
    void *result = NULL;
    pthread_join(managed, &result);
    ok(result == (void *)(intptr_t)1, "the managed routine ran attached: its trees survived "
                                      "moving collections");
    int int_result = 0;
    thrd_join(c11, &int_result);
    is_int(int_result, 1002, "the int routine's result reached thrd_join");
    pthread_join(self_attaching, &result);
    ok(result == (void *)(intptr_t)3, "the self-attaching routine's own attach and detach were "
                                      "accepted");
    pthread_join(c_thread, &result);
    ok(result == &c_routine_release, "the C routine ran unattached: collections did not wait "
                                     "for it");
}

/* ----------------------------------------------------------- coexistence */

static int wake_pipe[2];

/* Blocked in C read() until the end: must never hold up a collection. */
static void *blocked_reader(void *arg)
{
    (void)arg;
    noderef keep = make_tree(6);
    if (unmanaged_blocking_read(wake_pipe[0]) != 1)
        atomic_fetch_add(&failures, 1);
    if (checksum(keep) != expected_checksum(6))
        atomic_fetch_add(&failures, 1);
    return NULL;
}

/* managed -> C -> managed -> C -> managed: every managed level keeps a tree
 * across the C frames below it while others collect. */
static void *callback_level(void *arg)
{
    long depth = (long)(intptr_t)arg;
    noderef keep = make_tree(5);
    if (depth > 0)
        unmanaged_call_back(callback_level, (void *)(intptr_t)(depth - 1));
    else
        make_tree(7);
    if (checksum(keep) != expected_checksum(5))
        atomic_fetch_add(&failures, 1);
    return NULL;
}

static void *callback_chain(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
        noderef keep = make_tree(4);
        unmanaged_call_back(callback_level, (void *)(intptr_t)3);
        if (checksum(keep) != expected_checksum(4))
            atomic_fetch_add(&failures, 1);
    }
    return NULL;
}

static void *short_lived(void *arg)
{
    (void)arg;
    if (checksum(make_tree(4)) != expected_checksum(4))
        atomic_fetch_add(&failures, 1);
    return NULL;
}

/* Threads attach and detach continually while collections run. */
static void *churner(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
        pthread_t thread;
        corral_thread_create(&thread, short_lived, NULL);
        pthread_join(thread, NULL);
    }
    return NULL;
}

typedef struct coexistence_setup {
    long cycles;
    const char *settings;
} coexistence_setup;

static void coexistence_case(void *arg)
{
    const coexistence_setup *setup = arg;
    long cycles = tap_work(setup->cycles);
    test_start(setup->settings, true);
    if (pipe(wake_pipe) != 0)
        bail_out("pipe");
    pthread_t threads[5];
    corral_thread_create(&threads[0], spinner, &stop_flag);
    corral_thread_create(&threads[1], blocked_reader, NULL);
    corral_thread_create(&threads[2], callback_chain, NULL);
    corral_thread_create(&threads[3], churner, NULL);
    corral_thread_create(&threads[4], tree_worker, NULL);
    noderef keep = make_tree(8);
    double began = tap_now();
    for (long i = 0; i < cycles; i++)
        corral_collect();
    double elapsed = tap_now() - began;
    if (write(wake_pipe[1], "x", 1) != 1)
        bail_out("write");
    stop_workers(threads, 5);
    corral_stats stats;
    corral_get_stats(&stats);
    is_int(atomic_load(&failures), 0, "no lost object, no wrong checksum");
    ok(checksum(keep) == expected_checksum(8), "the main thread's tree survived");
    ok(stats.collections >= (uint64_t)cycles,
       "%ld stop/resume cycles (%.0f us each, TTSP max %.0f us)", cycles, elapsed / cycles * 1e6,
       stats.ttsp_max_ns / 1e3);
    diag("%ld stop/resume cycles with 6 threads: %.0f us per collection, TTSP max %.0f us", cycles,
         elapsed / cycles * 1e6, stats.ttsp_max_ns / 1e3);
}

/* ------------------------------------------------------------------ TTSP */

enum { TTSP_SAMPLES = 25 };
static uint64_t ttsp_samples[TTSP_SAMPLES];
static atomic_int ttsp_count;
static atomic_int loop_running, loop_done;

/* Runs on the collecting thread after each GC; no calls, so no safepoint. */
static CORRAL_NOPOLL void record_ttsp(const corral_gc_info *info, void *context)
{
    (void)context;
    int index = atomic_fetch_add_explicit(&ttsp_count, 1, memory_order_relaxed);
    if (index < TTSP_SAMPLES)
        ttsp_samples[index] = info->ttsp_ns;
}

static void *billion_iterations(void *arg)
{
    (void)arg;
    atomic_store(&loop_running, 1);
    unsigned long x = 2463534242ul;
    for (long i = 0; i < 1000000000l; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    spinner_sink = x;
    atomic_store(&loop_done, 1);
    return NULL;
}

static void ttsp_case(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_THREADS=2", true);
    corral_set_gc_callback(record_ttsp, NULL);
    pthread_t loop;
    corral_thread_create(&loop, billion_iterations, NULL);
    while (!atomic_load(&loop_running))
        nanosleep(&(struct timespec){0, 100000}, NULL);
    double loop_began = tap_now();
    int requested = 0;
    while (requested < TTSP_SAMPLES && !atomic_load(&loop_done)) {
        nanosleep(&(struct timespec){0, 2000000}, NULL);
        corral_collect();
        requested++;
    }
    int during_loop = atomic_load(&loop_done) ? requested - 1 : requested;
    pthread_join(loop, NULL);
    double loop_seconds = tap_now() - loop_began;
    ok(during_loop >= 5, "%d collections while the 10^9-iteration loop ran", during_loop);
    uint64_t sorted[TTSP_SAMPLES];
    int n = atomic_load(&ttsp_count) < TTSP_SAMPLES ? atomic_load(&ttsp_count) : TTSP_SAMPLES;
    for (int i = 0; i < n; i++)
        sorted[i] = ttsp_samples[i];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            uint64_t t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    uint64_t median = n ? sorted[n / 2] : 0;
    diag("TTSP against the call-free loop over %d GCs: median %.1f us, max %.1f us "
         "(loop %.2f s)", n, median / 1e3, n ? sorted[n - 1] / 1e3 : 0.0, loop_seconds);
    /* Without the backedge poll a GC would wait for the rest of the loop (seconds).
     * The bound is relative because under prove -j 2 the looping thread may wait
     * for a CPU; the TTSP figures themselves come from bench/gc/ttsp.c. */
    double bound_us = loop_seconds * 1e6 / 20;
    ok(n > 0 && median / 1e3 < bound_us,
       "a GC does not wait for the loop (TTSP median %.1f us, max %.1f us; loop %.2f s)",
       median / 1e3, n ? sorted[n - 1] / 1e3 : 0.0, loop_seconds);
}

int main(void)
{
    plan(9);
    tap_subtest("1 managed mutator, GCs every 3 ms", 60, mutators_case, (void *)1);
    tap_subtest("2 managed mutators, started by plain pthread_create", 60, mutators_case,
                (void *)2);
    tap_subtest("2 managed mutators started by C11 thrd_create", 60, c11_threads_case, NULL);
    tap_subtest("start routines chosen at run time: managed, self-attaching, C", 60,
                runtime_chosen_case, NULL);
    tap_subtest("4 managed mutators", 90, mutators_case, (void *)4);
    tap_subtest("8 managed mutators", 120, mutators_case, (void *)8);
    /* Since collections are fair (coordinator.c), the other threads run
     * between back-to-back ones instead of waiting through them: each cycle
     * does their work too, about 6x the time of a cycle before. */
    tap_subtest("spinner, blocked reader, callback chain, churn: 2 000 stop/resume cycles", 240,
                coexistence_case, &(coexistence_setup){2000, "CORRAL_GC_THREADS=2"});
    tap_subtest("TTSP against a call-free loop of 10^9 iterations", 120, ttsp_case, NULL);
    tap_subtest("the same with membarrier transitions", 240, coexistence_case,
                &(coexistence_setup){600, "CORRAL_GC_THREADS=2 CORRAL_TRANSITION_FENCE=membarrier "
                                           "CORRAL_GC_VERIFY=after"});
    return done_testing();
}
