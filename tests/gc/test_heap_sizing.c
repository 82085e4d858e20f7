/* Heap sizing: the MemBalancer limit (heap_sizer.h) on its own, then the
 * runtime under CORRAL_HEAP_MAX alone, a small maximum, a fixed heap, and a
 * live size that shrinks. Before the sizer the limit was always 2x live and
 * CORRAL_HEAP_MAX=8M alone failed at init (the minimum stayed 16M). */
#include <stdatomic.h>

#include "c_trees.h"
#include "corral_test.h"
#include "heap.h"
#include "heap_sizer.h"

#define MiB ((size_t)1 << 20)

static const corral_type bytes_type = CORRAL_DATA_ARRAY_TYPE("bytes", uint8_t);

/* ------------------------------------------------------------------ */
/* The formula, with rates set by hand. */

static heap_sizer sizer_with(unsigned c, double allocation_rate, double collection_rate)
{
    heap_sizer sizer;
    heap_sizer_init(&sizer, c, c, 16 * MiB, 1024 * MiB, 0);
    sizer.allocation_rate = allocation_rate;
    sizer.collection_rate = collection_rate;
    return sizer;
}

static void test_formula(void *arg)
{
    (void)arg;
    /* live 100M, g/s = 1: sqrt(100) = 10 MiB, times c = 8. */
    heap_sizer sizer = sizer_with(8, 1.0, 1.0);
    size_t limit = heap_sizer_limit_for(&sizer, 100 * MiB);
    ok(limit > 179 * MiB && limit < 181 * MiB, "live 100M, g/s 1, c 8: limit 180M (%zu)", limit);
    sizer = sizer_with(8, 4.0, 1.0);
    size_t faster = heap_sizer_limit_for(&sizer, 100 * MiB);
    ok(faster > 259 * MiB && faster < 261 * MiB,
       "allocating 4x faster doubles the headroom: 260M (%zu)", faster);
    sizer = sizer_with(8, 1.0, 4.0);
    size_t cheaper = heap_sizer_limit_for(&sizer, 100 * MiB);
    ok(cheaper > 139 * MiB && cheaper < 141 * MiB,
       "collecting 4x faster halves the headroom: 140M (%zu)", cheaper);
    sizer = sizer_with(8, 1.0, 1.0);
    is_int(heap_sizer_limit_for(&sizer, 1 * MiB), 16 * MiB, "never below CORRAL_HEAP_MIN");
    is_int(heap_sizer_limit_for(&sizer, 1000 * MiB), 1024 * MiB, "never above CORRAL_HEAP_MAX");
    sizer = sizer_with(0, 1.0, 1.0);
    is_int(heap_sizer_limit_for(&sizer, 100 * MiB), 100 * MiB + 10 * MiB + MiB,
           "c = 0: the least headroom, live/10 + 1M");
    sizer = sizer_with(8, 0.0, 1.0);
    is_int(heap_sizer_limit_for(&sizer, 100 * MiB), 111 * MiB,
           "no allocation: the least headroom");
    heap_sizer fixed;
    heap_sizer_init(&fixed, 8, 8, 64 * MiB, 64 * MiB, 0);
    is_int(heap_sizer_limit_for(&fixed, 10 * MiB), 64 * MiB, "min = max: always that size");
    is_int(heap_sizer_limit_for(&fixed, 60 * MiB), 64 * MiB, "... whatever the live size");

    /* Measured cycles: 100M allocated in 100 ms over 10M live, marked in 10 ms. */
    heap_sizer measured;
    heap_sizer_init(&measured, 8, 8, MiB, 1024 * MiB, 0);
    for (int i = 0; i < 8; i++) {
        uint64_t start = (uint64_t)i * 110000000 + 100000000;
        heap_sizer_limit_from_stw(&measured, 10 * MiB, 110 * MiB, true, start, start + 10000000);
    }
    double g = measured.allocation_rate, s = measured.collection_rate;
    ok(g > 1.0 && g < 1.1 && s > 1.0 && s < 1.1,
       "rates converge to the measured ones (g %.3f, s %.3f bytes/ns)", g, s);
}

/* A growth phase (a collection freeing under an eighth of the heap) takes
 * the growth expansiveness, a steady one c. */
static void test_growth_phase(void *arg)
{
    (void)arg;
    heap_sizer sizer;
    heap_sizer_init(&sizer, 16, 12, MiB, 1024 * MiB, 0);
    uint64_t start = 100000000, pause = 10000000;
    size_t limit = heap_sizer_limit_from_stw(&sizer, 100 * MiB, 100 * MiB, true, start, start + pause);
    ok(sizer.growing, "100M before, 100M live: a growth phase");
    size_t root = (size_t)(limit - 100 * MiB) / 12;
    sizer.growing = false;
    size_t steady = heap_sizer_limit_for(&sizer, 100 * MiB);
    ok(steady - 100 * MiB > 16 * root - MiB / 64 && steady - 100 * MiB < 16 * root + MiB / 64,
       "its headroom is 12/16 of the steady one (%zu, %zu)", limit, steady);

    start += 2 * pause;
    /* 100M freed, more than an eighth. */
    heap_sizer_limit_from_stw(&sizer, 120 * MiB, 220 * MiB, true, start, start + pause);
    ok(!sizer.growing, "220M before, 120M live: steady");
    start += 2 * pause;
    /* 20M freed is exactly an eighth: steady. */
    heap_sizer_limit_from_stw(&sizer, 140 * MiB, 160 * MiB, true, start, start + pause);
    ok(!sizer.growing, "160M before, 140M live (an eighth freed): steady");
    start += 2 * pause;
    /* 21M freed, under an eighth (22.5M): growth. */
    heap_sizer_limit_from_stw(&sizer, 159 * MiB, 180 * MiB, true, start, start + pause);
    ok(sizer.growing, "180M before, 159M live (under an eighth freed): growth");
    /* Collections asked for (corral_collect, stress) leave the phase alone. */
    start += 2 * pause;
    heap_sizer_limit_from_stw(&sizer, 100 * MiB, 200 * MiB, false, start, start + pause);
    ok(sizer.growing, "asked for, 200M before, 100M live: still growth");
    start += 2 * pause;
    heap_sizer_limit_from_stw(&sizer, 100 * MiB, 200 * MiB, true, start, start + pause);
    ok(!sizer.growing, "the same at the limit: steady");
    start += 2 * pause;
    heap_sizer_limit_from_stw(&sizer, 100 * MiB, 100 * MiB, false, start, start + pause);
    ok(!sizer.growing, "asked for right after, nothing freed: still steady");

    heap_sizer same;
    heap_sizer_init(&same, 16, 16, MiB, 1024 * MiB, 0);
    size_t first = heap_sizer_limit_from_stw(&same, 100 * MiB, 100 * MiB, true, 100000000, 110000000);
    same.growing = false;
    is_int(heap_sizer_limit_for(&same, 100 * MiB), first,
           "with the growth expansiveness equal to c, the phase changes nothing");
}

/* ------------------------------------------------------------------ */
/* The runtime. */

static uint64_t collections(void)
{
    corral_stats stats;
    corral_get_stats(&stats);
    return stats.collections;
}

static size_t heap_in_use(void)
{
    return corral_heap.live_after_gc +
           atomic_load_explicit(&corral_heap.allocated_since_gc, memory_order_relaxed);
}

/* Allocates bytes of short-lived 4 KB arrays, fast: zeroing is all the work. */
static void churn(size_t bytes, size_t *peak)
{
    for (size_t done = 0; done < bytes; done += 4096) {
        void *garbage = corral_alloc_array(&bytes_type, 4096 - sizeof(corral_array_header));
        if (!garbage)
            bail_out("out of memory while churning");
        if (peak && heap_in_use() > *peak)
            *peak = heap_in_use();
    }
}

static void small_maximum(void *arg)
{
    (void)arg;
    run_setenv_list("CORRAL_HEAP_MAX=8M CORRAL_GC_THREADS=1");
    int status = corral_init(NULL);
    is_int(status, 0, "corral_init with CORRAL_HEAP_MAX=8M alone (%s)",
           status ? corral_last_error() : "ok");
    if (status)
        return;
    is_int(corral_heap.heap_min, 4 * MiB, "the minimum follows: 4M");
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle live = corral_handle_new(make_tree(15)); /* 2 MiB */
    size_t peak = 0;
    for (int i = 0; i < 20; i++) {
        make_tree(14); /* 1 MiB of garbage each */
        if (heap_in_use() > peak)
            peak = heap_in_use();
    }
    churn(64 * MiB, &peak);
    is_int(checksum(*live), expected_checksum(15), "the live tree is intact");
    ok(collections() > 5, "it collected (%llu GCs)",
       (unsigned long long)collections());
    ok(peak <= 8 * MiB, "the heap stayed within 8M (peak %zu)", peak);
    corral_handle_scope_close(scope);
}

/* Only CORRAL_HEAP_MAX: fast allocation against a live set of small objects
 * (slow to mark) buys headroom beyond 2x live, within the maximum. */
static void adaptive_under_maximum(void *arg)
{
    (void)arg;
    test_start("CORRAL_HEAP_MAX=256M CORRAL_GC_THREADS=1", true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle live = corral_handle_new(make_tree(18)); /* 16 MiB of 32-byte nodes */
    size_t peak = 0;
    churn(1024 * MiB, &peak);
    size_t live_bytes = corral_heap.live_after_gc, limit = corral_heap.target;
    diag("live %zu, limit %zu (%.2fx live), allocation %.3f, collection %.3f bytes/ns",
         live_bytes, limit, (double)limit / (double)live_bytes, corral_heap.sizer.allocation_rate,
         corral_heap.sizer.collection_rate);
    ok(live_bytes >= 15 * MiB, "the live tree is counted (%zu)", live_bytes);
    ok(limit > 2 * live_bytes, "the limit is above 2x live when collecting costs time (%.2fx)",
       (double)limit / (double)live_bytes);
    ok(peak <= 256 * MiB && limit <= 256 * MiB, "and never above the maximum (peak %zu)", peak);
    is_int(checksum(*live), expected_checksum(18), "the live tree is intact");
    ok(corral_heap.sizer.growth_expansiveness == corral_heap.sizer.expansiveness,
       "without generations, c in growth phases too (%g)",
       corral_heap.sizer.growth_expansiveness);
    corral_handle_scope_close(scope);
}

/* Generational: a major collection that finds everything alive marks a
 * growth phase and takes 3/4 of c; one that frees the built data does not;
 * corral_collect() right after either leaves the phase as it was (before,
 * one right after a steady collection freed nothing and read as growth).
 * Without generations the sizer keeps c (the subtest above). */
static uint64_t major_collections(void)
{
    corral_stats stats;
    corral_get_stats(&stats);
    return stats.collections - stats.minor_collections;
}

/* Until the heap's limit brings a major collection: 4 MiB trees, each kept
 * (in *kept) while the next is built, so minor collections promote them
 * (after one, CORRAL_GC_PROMOTE_AFTER=1) and they die old. */
static void churn_until_major(corral_handle kept)
{
    uint64_t majors = major_collections();
    for (size_t built = 0; major_collections() == majors; built += 4 * MiB) {
        if (built > 4096 * MiB)
            bail_out("4G of promoted trees brought no major collection");
        *kept = make_tree(16);
    }
}

static void generational_growth(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=1 CORRAL_HEAP_MAX=512M "
               "CORRAL_GC_THREADS=1",
               true);
    ok(corral_heap.sizer.expansiveness == 16 && corral_heap.sizer.growth_expansiveness == 12,
       "c 16, after a growth phase 12 (%g, %g)", corral_heap.sizer.expansiveness,
       corral_heap.sizer.growth_expansiveness);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle live = corral_handle_new(make_tree(19)); /* 32 MiB, all of it kept */
    ok(major_collections() > 0 && corral_heap.sizer.growing,
       "building a 32M tree, the major collections found it alive: growth (%llu majors)",
       (unsigned long long)major_collections());
    size_t growth_limit = corral_heap.target, live_bytes = corral_heap.live_after_gc;
    corral_collect();
    ok(corral_heap.sizer.growing, "corral_collect() right after: still growth");
    *live = NULL;
    churn_until_major(live);
    ok(!corral_heap.sizer.growing,
       "the next major collection, finding the tree dead: steady (live %zu of %zu before)",
       corral_heap.live_after_gc, live_bytes);
    corral_collect();
    size_t steady_live = corral_heap.live_after_gc;
    corral_collect();
    ok(!corral_heap.sizer.growing && corral_heap.live_after_gc == steady_live,
       "a second corral_collect() in a row, freeing nothing: still steady (%zu live)",
       corral_heap.live_after_gc);
    is_int(checksum(*live), expected_checksum(16), "the last tree is intact");
    diag("limit %zu over %zu live in growth", growth_limit, live_bytes);
    corral_handle_scope_close(scope);
}

/* CORRAL_HEAP_MIN = CORRAL_HEAP_MAX: a fixed heap, collected only when full. */
static _Atomic uint64_t smallest_before = UINT64_MAX;

static void note_cycle(const corral_gc_info *info, void *context)
{
    (void)context;
    if (info->heap_before < atomic_load(&smallest_before))
        atomic_store(&smallest_before, info->heap_before);
}

static void fixed_heap(void *arg)
{
    (void)arg;
    test_start("CORRAL_HEAP_MIN=64M CORRAL_HEAP_MAX=64M CORRAL_GC_THREADS=1", true);
    corral_set_gc_callback(note_cycle, NULL);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle live = corral_handle_new(make_tree(16)); /* 4 MiB */
    churn(512 * MiB, NULL);
    uint64_t gcs = collections();
    is_int(corral_heap.target, 64 * MiB, "the limit stays at 64M");
    ok(atomic_load(&smallest_before) >= 63 * MiB, "every GC ran with the heap full (smallest %llu)",
       (unsigned long long)atomic_load(&smallest_before));
    ok(gcs >= 8 && gcs <= 10, "512M through a 64M heap with 4M live: 8-9 GCs (%llu)",
       (unsigned long long)gcs);
    is_int(checksum(*live), expected_checksum(16), "the live tree is intact");
    corral_handle_scope_close(scope);
}

/* Live data that shrinks gives its headroom back. */
static void shrinking_live(void *arg)
{
    (void)arg;
    test_start("CORRAL_HEAP_MAX=512M CORRAL_GC_THREADS=1", true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle live = corral_handle_new(make_tree(19)); /* 32 MiB */
    ok(collections() > 0 && corral_heap.sizer.growing,
       "building it, the heap's limit brought collections that found it alive: growth");
    churn(256 * MiB, NULL);
    ok(!corral_heap.sizer.growing, "churning over it: steady");
    size_t big_limit = corral_heap.target;
    *live = NULL;
    /* Until two collections have seen it gone: how much headroom the first
     * churn left under the limit depends on the sizer's timing (slower under
     * ASan), so a fixed amount may end before any collection runs. */
    uint64_t dropped_at = collections();
    for (size_t churned = 0; collections() < dropped_at + 2 && churned < 4096 * MiB;
         churned += 16 * MiB)
        churn(16 * MiB, NULL);
    size_t small_limit = corral_heap.target;
    ok(small_limit < big_limit, "limit %zu with 32M live, %zu with it gone", big_limit,
       small_limit);
    ok(corral_heap.live_after_gc < 4 * MiB, "live data is gone (%zu)", corral_heap.live_after_gc);
    corral_handle_scope_close(scope);
}

int main(void)
{
    plan(7);
    tap_subtest("the MemBalancer formula", 30, test_formula, NULL);
    tap_subtest("a growth phase takes the growth expansiveness", 30, test_growth_phase, NULL);
    tap_subtest("CORRAL_HEAP_MAX=8M alone", 60, small_maximum, NULL);
    tap_subtest("CORRAL_HEAP_MAX alone: adaptive limit above 2x live", 120,
                adaptive_under_maximum, NULL);
    tap_subtest("generational: a growth phase takes 3/4 of c; corral_collect() keeps the phase",
                120, generational_growth, NULL);
    tap_subtest("CORRAL_HEAP_MIN = CORRAL_HEAP_MAX: fixed heap", 120, fixed_heap, NULL);
    tap_subtest("shrinking live data shrinks the limit", 120, shrinking_live, NULL);
    return done_testing();
}
