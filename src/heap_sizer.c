/* heap_sizer.c — MemBalancer's heap limit (see heap_sizer.h). */
#include "heap_sizer.h"

/* Weight of the newest cycle in the smoothed rates: one odd cycle (an
 * explicit collection, a retry right after another) moves them half way. */
#define SIZER_SMOOTHING 0.5
/* Until the first cycle is measured: 1 GB/s of allocation against 1 GB/s of
 * marking; the first limit is CORRAL_HEAP_MIN anyway. */
#define SIZER_INITIAL_RATE 1.0
#define MiB 1048576.0
/* A collection that frees less than 1/8 of the heap belongs to a growth phase. */
#define SIZER_GROWTH_FREED_PART 8

void heap_sizer_init(heap_sizer *sizer, unsigned expansiveness, unsigned growth_expansiveness,
                     size_t heap_min, size_t heap_max, uint64_t now_ns)
{
    *sizer = (heap_sizer){
        .expansiveness = expansiveness,
        .growth_expansiveness = growth_expansiveness,
        .allocation_rate = SIZER_INITIAL_RATE,
        .collection_rate = SIZER_INITIAL_RATE,
        .mutator_since_ns = now_ns,
        .heap_min = heap_min,
        .heap_max = heap_max,
    };
}

/* Newton's method from above, so the runtime needs no libm: it falls
 * monotonically to the root and stops when it no longer falls. */
static double square_root(double x)
{
    if (!(x > 0))
        return 0;
    double root = x > 1 ? x : 1;
    for (int i = 0; i < 128; i++) {
        double next = 0.5 * (root + x / root);
        if (!(next < root))
            break;
        root = next;
    }
    return root;
}

static double smooth(double old, double sample)
{
    return old + SIZER_SMOOTHING * (sample - old);
}

size_t heap_sizer_limit_for(const heap_sizer *sizer, size_t live_bytes)
{
    double live = (double)live_bytes;
    double root = square_root(live / MiB * sizer->allocation_rate / sizer->collection_rate);
    double c = sizer->growing ? sizer->growth_expansiveness : sizer->expansiveness;
    double headroom = c * root * MiB;
    /* Never collect for the sake of a few bytes, even when allocation is slow. */
    double least = live / 10 + MiB;
    if (!(headroom >= least)) /* NaN too */
        headroom = least;
    double limit = live + headroom;
    if (limit > (double)sizer->heap_max)
        return sizer->heap_max;
    if (limit < (double)sizer->heap_min)
        return sizer->heap_min;
    return (size_t)limit;
}

size_t heap_sizer_limit_from_stw(heap_sizer *sizer, size_t live_bytes, size_t heap_before,
                                 bool at_limit, uint64_t gc_start_ns, uint64_t gc_end_ns)
{
    size_t allocated_bytes = heap_before > sizer->live_before ? heap_before - sizer->live_before : 0;
    /* At least a microsecond each: back-to-back collections are not infinitely fast. */
    double mutator_ns = gc_start_ns > sizer->mutator_since_ns + 1000
                            ? (double)(gc_start_ns - sizer->mutator_since_ns)
                            : 1000.0;
    double pause_ns = gc_end_ns > gc_start_ns + 1000 ? (double)(gc_end_ns - gc_start_ns) : 1000.0;
    sizer->allocation_rate = smooth(sizer->allocation_rate, (double)allocated_bytes / mutator_ns);
    /* An empty heap says nothing about marking speed: keep the estimate. */
    if (live_bytes > 0)
        sizer->collection_rate = smooth(sizer->collection_rate, (double)live_bytes / pause_ns);
    sizer->mutator_since_ns = gc_end_ns;
    if (at_limit)
        sizer->growing = heap_before <= live_bytes ||
                         heap_before - live_bytes < heap_before / SIZER_GROWTH_FREED_PART;
    sizer->live_before = live_bytes;
    return heap_sizer_limit_for(sizer, live_bytes);
}
