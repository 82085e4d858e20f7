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
#include "vec.h"

/* Sizes the work queues and per-worker counters for workers GC workers. */
int mark_init(unsigned workers);
/* Walks every stopped thread's stack for its roots (parallel over threads). */
void mark_roots_from_stw(gc_cycle *cycle);
/* Marks from every root (and, in a minor collection, the remembered set);
 * clears dead weak handles, queues and resurrects dead finalizable objects. */
void mark_from_stw(gc_cycle *cycle);
/* Whether a collection's marking found object alive: marked, or allocated
 * since a concurrent minor collection began marking. */
bool mark_is_marked(const void *object);
/* Heap references at or past limit are to objects allocated since marking
 * began: concurrent, the start of a concurrent minor collection's marking
 * (young_marker.h); otherwise the heap's top. Called at every collection. */
void mark_set_limit_from_stw(const char *limit, bool concurrent);

/* ---- A concurrent minor collection's marking (young_marker.h) ----------- */

/* Objects marked and not yet scanned, owned by one thread at a time. */
typedef VEC(void *) mark_grey;
typedef struct mark_totals {
    uint64_t objects, bytes;
} mark_totals;

/* First pause: the workers mark the roots and the remembered set without
 * tracing; the objects marked are appended to grey. */
void mark_young_roots_from_stw(gc_cycle *cycle, mark_grey *grey);
/* Scans grey's objects, greying the children it marks, until grey is empty
 * (true), or *stop or *yield (NULL: none) is set, or budget objects were
 * scanned (false); totals counts what it scanned. Threads: the concurrent
 * marker and assisting mutators (young_marker.h), while the mutators run,
 * each with a grey set of its own. */
bool mark_trace_concurrently(mark_grey *grey, const _Atomic bool *stop, const _Atomic bool *yield,
                             uint64_t budget, mark_totals *totals);
/* Marks a reference the deletion barrier logged and greys it (context: the
 * mark_grey). Thread: the concurrent marker. */
void mark_grey_logged(void *object, void *context);
/* Second pause: marks what grey and every thread's deletion log still hold,
 * in parallel, then decides weak handles and finalizable objects; adds
 * concurrent to the cycle's marked totals. */
void mark_young_finish_from_stw(gc_cycle *cycle, const mark_grey *grey,
                                const mark_totals *concurrent);
/* Granules of the marked objects that start in a heap region (this cycle). */
uint32_t mark_region_live_granules(size_t region);
/* Marks again from the roots into clear bitmaps and compares (verify remark). */
void mark_remark_check_from_stw(gc_cycle *cycle);

#endif /* CORRAL_MARK_H */
