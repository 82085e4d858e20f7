/* region_loop.c — parallel loops over heap regions (region_loop.h). */
#include "region_loop.h"

#include <stdint.h>
#include <string.h>

#include "heap.h"

typedef struct region_loop_job {
    gc_parallel_range range;
    void (*body)(unsigned, size_t, size_t, void *);
    void *context; /* passed to body */
} region_loop_job;

static void region_loop_phase(unsigned worker, void *context)
{
    region_loop_job *loop = context;
    gc_parallel_for(&loop->range, worker, loop->body, loop->context);
}

void region_loop_run(const char *name, size_t count,
                     void (*body)(unsigned, size_t, size_t, void *), void *context,
                     gc_phase_stats *stats)
{
    region_loop_job loop = {.body = body, .context = context};
    /* One region per claim: the span then measures a region, the real
     * unsplittable unit, not a chunk size picked for the worker count. */
    gc_parallel_range_init(&loop.range, count, 1);
    gc_phase_stats local = {0};
    gc_workers_run(name, region_loop_phase, &loop, &local);
    if (stats)
        gc_phase_stats_add(stats, &local);
}

/* Clears every word of the bitmap (context) in regions [first, end). */
static void clear_bitmap_regions(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    uint64_t *bits = context;
    size_t from = first * HEAP_WORDS_PER_REGION, to = end * HEAP_WORDS_PER_REGION;
    memset(&bits[from], 0, (to - from) * sizeof(uint64_t));
}

static void clear_bitmap_below_top(uint64_t *bits)
{
    size_t regions = corral_heap.top > corral_heap.base
                         ? heap_region_index(corral_heap.top - 1) + 1
                         : 0;
    region_loop_run("clear", regions, clear_bitmap_regions, bits, NULL);
}

void heap_clear_bitmaps_from_stw(void)
{
    clear_bitmap_below_top(corral_heap.start_bits);
}

void heap_clear_scratch_bits_from_stw(void)
{
    clear_bitmap_below_top(corral_heap.scratch_bits);
}
