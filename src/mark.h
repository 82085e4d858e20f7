/* mark.h — marking: the stopped threads' stack roots, then parallel marking
 * with work stealing from every root (mark.c says how), the weak handles and
 * finalizable objects it decides, and the live counts the compactor plans
 * from.
 */
#ifndef CORRAL_MARK_H
#define CORRAL_MARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gc.h"

/* Sizes the work queues and per-worker counters for workers GC workers. */
int mark_init(unsigned workers);
/* Walks every stopped thread's stack for its roots (parallel over threads). */
void mark_roots_from_stw(gc_cycle *cycle);
/* Marks from every root (and, in a minor collection, the remembered set);
 * clears dead weak handles, queues and resurrects dead finalizable objects. */
void mark_from_stw(gc_cycle *cycle);
bool mark_is_marked(const void *object);
/* Granules of the marked objects that start in a heap region (this cycle). */
uint32_t mark_region_live_granules(size_t region);
/* Marks again from the roots into clear bitmaps and compares (verify remark). */
void mark_remark_check_from_stw(gc_cycle *cycle);

#endif /* CORRAL_MARK_H */
