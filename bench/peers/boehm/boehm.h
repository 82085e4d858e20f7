/* boehm.h — Boehm GC (bdw-gc 8.2) set up the way its authors would run these
 * benchmarks, shared by every Boehm peer so each one is configured alike.
 *
 * Fairness settings (see docs/performance.md):
 *   - GC_set_all_interior_pointers(0) before GC_INIT: our programs keep
 *     pointers to object starts only, and interior-pointer recognition makes
 *     Boehm 2-3x slower for nothing.
 *   - GC_THREADS: pthread_create is redirected to GC_pthread_create, so new
 *     threads are registered and use thread-local free lists.
 *   - Parallel marking: 8.2 starts its marker threads lazily at the first
 *     thread creation; we start them at once so single-mutator runs mark in
 *     parallel too, as corral's do.
 *   - GC_malloc for objects with pointers, GC_malloc_atomic for the doubles.
 * A pause is GC_EVENT_START..GC_EVENT_END: the whole collection runs under
 * the allocation lock, so every allocating mutator waits that long.
 */
#ifndef CORRAL_BENCH_BOEHM_H
#define CORRAL_BENCH_BOEHM_H

#define GC_THREADS
#include <gc.h>

#include "bench.h"

static struct bench_pauses boehm_pauses;
/* Writer and reader: the collecting thread, under Boehm's allocation lock. */
static uint64_t boehm_collection_start_ns;
/* Collections before the benchmark began (GC_INIT runs one); written once by main. */
static GC_word boehm_gc_no_at_setup;

static void boehm_on_collection_event(GC_EventType event)
{
    if (event == GC_EVENT_START)
        boehm_collection_start_ns = bench_now_ns();
    else if (event == GC_EVENT_END)
        bench_pauses_record(&boehm_pauses, bench_now_ns() - boehm_collection_start_ns);
}

/* heap_max: bytes, 0 for no limit. */
static BENCH_UNUSED void boehm_setup(size_t heap_max)
{
    GC_set_all_interior_pointers(0);
    GC_INIT();
    GC_allow_register_threads();
    GC_start_mark_threads();
    GC_set_on_collection_event(boehm_on_collection_event);
    if (heap_max)
        GC_set_max_heap_size(heap_max);
    boehm_gc_no_at_setup = GC_get_gc_no();
}

/* Collections the benchmark caused, as corral counts them. */
static BENCH_UNUSED long boehm_gc_count(void)
{
    return (long)(GC_get_gc_no() - boehm_gc_no_at_setup);
}

/* Extra RESULT fields: whether parallel marking is really on, the heap size. */
static BENCH_UNUSED const char *boehm_extra(char *buffer, size_t size, const char *more)
{
    snprintf(buffer, size, "parallel_mark=%d heap_bytes=%zu%s%s", GC_get_parallel(), GC_get_heap_size(),
             more && *more ? " " : "", more ? more : "");
    return buffer;
}

#endif /* CORRAL_BENCH_BOEHM_H */
