/* ttsp_program.c — loop polls, by behaviour (issue #5): one thread runs a
 * call-free counted loop of 10^9 iterations (the loop PlaceSafepoints would
 * leave without a poll) while the main thread requests a collection. With
 * strip-mined loop polls the collection starts within microseconds; without
 * them it would wait for the whole loop. Built with corralc against the real
 * runtime. */
#include <corral.h>

#include "tap.h"

#include <pthread.h>

/* Written by the spinner, read by main; plain volatile words suffice for a
 * start flag and a result read after join. */
static volatile int spinner_started;
static volatile long spinner_result;
static volatile uint64_t collection_ttsp_ns;
static volatile uint64_t collections_seen;

#define ITERATIONS 1000000000

__attribute__((noinline)) long spin(int iterations)
{
    long sum = 0;
    for (int i = 0; i < iterations; i++)
        sum += i ^ (sum >> 3);
    return sum;
}

static void *spinner(void *arg)
{
    (void)arg;
    spinner_started = 1;
    spinner_result = spin(ITERATIONS);
    return NULL;
}

static void record_collection(const corral_gc_info *info, void *context)
{
    (void)context;
    collection_ttsp_ns = info->ttsp_ns;
    collections_seen++;
}

/* Runs in the forked child: the runtime (and its GC workers) start here. */
static void ttsp_with_a_spinning_thread(void *arg)
{
    (void)arg;
    if (corral_init(NULL) != 0) {
        fail("corral_init: %s", corral_last_error());
        return;
    }
    corral_thread_attach();
    corral_set_gc_callback(record_collection, NULL);
    pthread_t thread;
    if (corral_thread_create(&thread, spinner, NULL) != 0) {
        fail("corral_thread_create: %s", corral_last_error());
        return;
    }
    while (!spinner_started)
        ;
    double start = tap_now();
    corral_collect();
    double elapsed_ms = (tap_now() - start) * 1e3;
    ok(collections_seen == 1, "the collection ran while the loop was spinning");
    diag("time to safepoint %.3f ms, collection took %.3f ms",
         (double)collection_ttsp_ns / 1e6, elapsed_ms);
    /* 1 ms on an idle machine; the bound leaves room for a loaded CI box. */
    ok(collection_ttsp_ns < 20 * 1000 * 1000, "time to safepoint is short (%.3f ms)",
       (double)collection_ttsp_ns / 1e6);
    pthread_join(thread, NULL);
    ok(spinner_result != 0, "the loop ran to the end");
}

int main(void)
{
    plan(1);
    tap_subtest("a GC stops a thread in a 10^9-iteration call-free loop", 60,
                ttsp_with_a_spinning_thread, NULL);
    return done_testing();
}
