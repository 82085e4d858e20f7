/* young_marker.h — concurrent minor collections (CORRAL_GC_CONCURRENT=1,
 * with CORRAL_GC_GENERATIONAL=1): a minor collection's marking runs on a
 * thread of its own while the mutators run, between two short pauses.
 *
 *            first pause: roots and dirty cards marked, not traced;
 *            the deletion barrier on; memory handed out only where
 *            none was in use (heap_is_newborn) from now on
 *   IDLE ─────────────────────────────────────────────────────> MARKING
 *    ^                                    (marker thread runs; mutators at the
 *    │                                     heap limit assist it: young_marker_assist)
 *    │                                                            │ its grey objects and
 *    │                                                            │ the full deletion logs
 *    │                                                            v are all traced
 *    │   second pause, minor: the marker stopped; what it      DONE
 *    │   and the logs left marked in parallel; weak handles,      │ the next allocation
 *    │   finalizers, the sweep of the first pause's young memory  │ slow path asks for
 *    ├──────────────────────────── any collection ────────────────┘ the second pause
 *    │                            (a minor one from MARKING finishes
 *    │                             the marking in its pause)
 *    └── a major collection instead: marking abandoned (it clears every mark)
 *
 * Snapshot at the beginning: the deletion barrier logs every reference a
 * store overwrites while marking, so everything reachable at the first
 * pause is marked; stacks are not scanned again. What was allocated since
 * (heap_is_newborn: past the fence or in new_blocks; flagged newborn large
 * objects) is alive by birth: markers neither mark nor trace it (a marked
 * object is old, and stores into a fresh object skip the card barrier),
 * and the sweep leaves it young for the next minor collection. Weak handles
 * read while marking log their target, as a store would.
 *
 * Every piece of managed code must be built with corralc --satb-barrier,
 * and plain C must use corral_store_ref / corral_deletion_barrier.
 */
#ifndef CORRAL_YOUNG_MARKER_H
#define CORRAL_YOUNG_MARKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gc.h"

struct corral_thread;

/* Called by corral_init once the configuration is loaded: markers threads
 * (at least 1) mark each concurrent collection, the marker and its helpers. */
void young_marker_init(bool enabled, unsigned markers);
bool young_marker_enabled(void);
/* From the stopped world, first thing in every collection: stops the
 * marker thread when it runs, and puts back the budget the old space had
 * before marking began. Returns whether a concurrent collection is open
 * (its second pause is due). */
bool young_marker_pause_from_stw(void);
/* Whether the pause must be major: the marking state did not survive a
 * fork (the child has no marker thread, and its grey set may be torn). */
bool young_marker_needs_major(void);
/* The first pause of a minor collection: after the stack walk. */
void young_marker_begin_from_stw(gc_cycle *cycle);
/* Bytes the helper markers traced since corral_init (relaxed; for tests). */
uint64_t young_marker_helped_bytes(void);
/* While a collection is open: the old space as it was before marking. */
size_t young_marker_old_space_bytes(void);
/* A mutator whose allocation reached its limit while the marker marks:
 * marks beside it, PARKED, until the marking is done or stopped, rather
 * than have the second pause mark the rest with the world stopped (counted
 * in corral_stats as a marking assist). Returns at once when no marking
 * runs. self: attached and MANAGED, its anchor recorded (the allocation
 * slow path). */
void young_marker_assist(struct corral_thread *self);
/* The second pause, before the minor sweep: marks what is left. */
void young_marker_finish_marking_from_stw(gc_cycle *cycle);
/* The second pause, after the minor sweep: memory handed out while marking
 * is the next collection's young memory and budget. */
void young_marker_close_from_stw(void);
/* A major collection while one is open, before it marks: the barrier off,
 * the logs and the grey set dropped. */
void young_marker_abandon_from_stw(gc_cycle *cycle);
/* Whether a concurrent collection is open (relaxed). */
bool young_marker_open(void);
/* Whether the marker has finished and the mutators should ask for the
 * second pause (relaxed: a late answer only delays the pause). */
bool young_marker_done(void);
/* Parks the marker thread when it marks (corral_shutdown, fork); an open
 * collection's second pause marks what it left. Any thread. */
void young_marker_stop(void);
/* A weak handle's target read while marking: logged, as an overwritten
 * reference would be. Thread: MANAGED. */
void young_marker_note_weak_read(void *object);

#endif /* CORRAL_YOUNG_MARKER_H */
