/* roots.h — references held by C code: handles (per thread), global roots,
 * weak handles, pins, and objects waiting for their finalizer.
 *
 * Every registry here is written by mutators under its own lock while
 * MANAGED, and read by the collector with the world stopped (taking the same
 * locks, which no stopped thread can hold: each is held only briefly, by a
 * MANAGED thread, with no poll inside).
 */
#ifndef CORRAL_ROOTS_H
#define CORRAL_ROOTS_H

#include <corral.h>
#include <stdbool.h>
#include <stddef.h>

#include "object.h"
#include "thread.h"

/* Strong roots other than stacks: globals, pinned objects, the finalization
 * queue. visit gets each slot as the slot walk does (object.h): plain slots
 * with tag 0 and never when null; slots of tagged roots under the scheme,
 * never for an immediate or a null. */
void roots_visit_globals_from_stw(object_slot_fn visit, void *context);
/* The handles of one thread, visited the same way. */
void roots_visit_handles_from_stw(corral_thread *thread, object_slot_fn visit, void *context);

/* Calls fn on every pinned object (to keep their regions in place). */
void roots_for_each_pinned_from_stw(void (*fn)(void *object, void *context), void *context);
bool roots_is_pinned_from_stw(const void *object);
/* Entries the pin table has room for (tests: it follows the pins held). */
size_t roots_pin_table_capacity(void);

/* After marking: clears weak handles whose target is not marked. */
void roots_clear_dead_weak_from_stw(bool (*is_marked)(const void *object));
/* After forwarding is known: moves weak handle targets. */
void roots_forward_weak_from_stw(void *(*forward)(void *object));

/* Finalization: objects of CORRAL_TYPE_FINALIZABLE types are registered at
 * allocation. After marking, each unmarked one is queued (its slot becomes a
 * strong root) and resurrect() is called on it so the marker keeps it and
 * what it reaches alive for this cycle. Returns the number queued. */
void roots_register_finalizable(void *object);
size_t roots_queue_unreachable_finalizable_from_stw(bool (*is_marked)(const void *object),
                                                    void (*resurrect)(void *object, void *ctx),
                                                    void *context);
void roots_forward_finalizable_from_stw(void *(*forward)(void *object));
/* Runs queued finalizers; called by the collecting thread after restart. */
void roots_run_finalizers(void);

size_t roots_weak_count(void);

#endif /* CORRAL_ROOTS_H */
