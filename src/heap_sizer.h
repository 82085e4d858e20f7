/* heap_sizer.h — the heap limit after each collection (MemBalancer).
 *
 * A collection costs time in proportion to live data L and comes once per
 * E bytes of headroom allocated; memory costs L + E. With g the allocation
 * rate and s the collection rate (bytes traced per second), the fraction
 * of time spent collecting is about (g / E) * (L / s), and minimising
 * memory + lambda * that fraction gives (Kirisame et al., OOPSLA 2022)
 *
 *   limit = L + c * sqrt(L * g / s),     c = sqrt(lambda)
 *
 * so a program that allocates fast against a slow collection gets more
 * headroom, and one that barely allocates gets little. g and s are measured
 * over each cycle (mutator time between collections, collection pause) and
 * smoothed; L is the last live size. c is CORRAL_HEAP_EXPANSIVENESS, with
 * sizes in MiB inside the root; the limit is kept within
 * [CORRAL_HEAP_MIN, CORRAL_HEAP_MAX] and at least L + L/10 + 1M.
 * CORRAL_HEAP_MIN = CORRAL_HEAP_MAX therefore gives a fixed heap.
 *
 * A growth phase: a collection that frees less than an eighth of the heap
 * found the program building its data, not cycling through it. The
 * formula's headroom assumes the steady state, where each cycle frees it;
 * in growth it sits on top of all that was built, which may die at once (a
 * phase's data: binary-trees' stretch tree). The generational heap, whose
 * old space grows only by promotion, takes a smaller c there
 * (growth_expansiveness, generation.h); the other collector keeps c.
 * Only a collection the heap's limit brought tells the phase: one asked
 * for (corral_collect, stress, a retry) may come right after another and
 * free nothing, and leaves the phase as the last one found it.
 */
#ifndef CORRAL_HEAP_SIZER_H
#define CORRAL_HEAP_SIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Written and read only by the collecting thread, with the world stopped
 * (and by heap_sizer_init before any thread attaches). */
typedef struct heap_sizer {
    double expansiveness;        /* c, per sqrt(MiB) */
    double growth_expansiveness; /* c after a collection of a growth phase */
    bool growing;                /* the last one at the limit freed under an eighth of the heap */
    size_t live_before;          /* L of the last collection: allocation counts from it */
    double allocation_rate;      /* smoothed g, bytes per ns of mutator time */
    double collection_rate;      /* smoothed s, live bytes per ns of pause */
    uint64_t mutator_since_ns;   /* when the mutators last started: init or GC end */
    size_t heap_min, heap_max;
} heap_sizer;

void heap_sizer_init(heap_sizer *sizer, unsigned expansiveness, unsigned growth_expansiveness,
                     size_t heap_min, size_t heap_max, uint64_t now_ns);

/* Feeds one cycle (the heap when the GC began, so that what was allocated
 * since the last one is it less the last live size, minor collections'
 * survivors included; whether the heap's limit brought the GC, so that what
 * it freed tells the phase; the GC's start and end times; live bytes after
 * it) and returns the next heap limit. */
size_t heap_sizer_limit_from_stw(heap_sizer *sizer, size_t live_bytes, size_t heap_before,
                                 bool at_limit, uint64_t gc_start_ns, uint64_t gc_end_ns);

/* The limit for live bytes at the current smoothed rates and phase: pure,
 * for tests. */
size_t heap_sizer_limit_for(const heap_sizer *sizer, size_t live_bytes);

#endif /* CORRAL_HEAP_SIZER_H */
