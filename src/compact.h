/* compact.h — sliding compaction of the heap after a major collection's
 * marking, in four phases (compact.c says how): plan where every live
 * object goes, update every reference to its new address, slide the live
 * data there, finish with the new free ranges and clean bitmaps.
 *
 *   compact_plan plan;
 *   compact_plan_from_stw(cycle, &plan);    fills plan and the regions' plan fields
 *   compact_update_from_stw(cycle, &plan);  reads it
 *   compact_slide_from_stw(cycle, &plan);   reads it
 *   compact_finish_from_stw(cycle, &plan);  reads it, then frees what it holds
 */
#ifndef CORRAL_COMPACT_H
#define CORRAL_COMPACT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "gc.h"
#include "heap.h"
#include "vec.h"

/* The plan of one compaction: what the phases after the plan read, besides
 * the per-region fields in heap_region and the forwarding in the heap's
 * bitmaps (heap.h). Every field but any_block_moves is written by the
 * collecting thread during the plan, outside the parallel steps, and read
 * afterwards by the collecting thread and by the workers of later phases,
 * which gc_workers_run orders after it (workers.h). */
typedef struct compact_plan {
    /* Regions the later phases visit: those below the heap top, and under
     * quarantine the fresh regions above it that data is evacuated into. */
    size_t used_regions;
    /* Regions below the heap top as the plan started: the only ones that
     * hold objects. Equal to used_regions unless quarantining. */
    size_t source_regions;
    char *old_top;          /* the heap top before compaction: poisoning stops there */
    /* CORRAL_GC_STRESS=quarantine this cycle: the moving regions below
     * source_regions are evacuated whole and quarantined by the finish phase. */
    bool quarantining;
    /* Whether any live granule changes address. Writers: the plan's
     * forwarding workers (relaxed store of true); reader: the update phase,
     * after that parallel step has returned (relaxed load). */
    atomic_bool any_block_moves;
    /* The free ranges after sliding, by address, disjoint, the last running
     * to the end of the reservation; handed to the heap by the finish phase. */
    VEC(heap_free_range) free_ranges;
} compact_plan;

void compact_plan_from_stw(gc_cycle *cycle, compact_plan *plan);
void compact_update_from_stw(gc_cycle *cycle, const compact_plan *plan);
void compact_slide_from_stw(gc_cycle *cycle, const compact_plan *plan);
void compact_finish_from_stw(gc_cycle *cycle, compact_plan *plan);

/* MPS-style consistency check of a filled plan; NULL when sound, else what
 * is wrong. The later phases call it on entry in debug builds. */
const char *compact_plan_check(const compact_plan *plan);

#endif /* CORRAL_COMPACT_H */
