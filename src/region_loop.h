/* region_loop.h — parallel loops over the heap's regions on the GC workers
 * (the compactor's phases are made of them), and the bitmap clears built on
 * one.
 */
#ifndef CORRAL_REGION_LOOP_H
#define CORRAL_REGION_LOOP_H

#include <stddef.h>

#include "workers.h"

/* Runs body over regions [0, count) on the active workers, one region per
 * claim, as a phase named name (or over other items at most a region each:
 * the minor sweep's pieces, the headerless regions to sweep); adds its
 * statistics to *stats (gc_phase_stats_add; stats may be NULL). From the
 * stopped world, between phases. */
void region_loop_run(const char *name, size_t count,
                     void (*body)(unsigned worker, size_t first, size_t end, void *context),
                     void *context, gc_phase_stats *stats);

/* Clears the start bitmap below the heap top (parallel). */
void heap_clear_bitmaps_from_stw(void);
/* Clears the scratch bitmap below the heap top (parallel). */
void heap_clear_scratch_bits_from_stw(void);

#endif /* CORRAL_REGION_LOOP_H */
