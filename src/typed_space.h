/* typed_space.h — regions of one headerless type (CORRAL_TYPE_HEADERLESS).
 *
 * A headerless object carries no corral_header: the region it lives in
 * records its type (corral_region_types, object.h), so a binary-trees node
 * is its two references, 16 bytes, as in Boehm's heap, not 24. Such a
 * region is cut into slots of the type's granule-rounded size, from its
 * start; its objects never move (the compactor leaves the region in place),
 * and the slots of dead objects are handed out again to the same type.
 *
 * Life of a region:
 *
 *   free range ──claim (allocator, under alloc_lock)──> typed(T)
 *   typed(T) ──a collection ends: alloc_bits = its slots still taken──> typed(T)
 *   typed(T) ──a major collection finds no object in it──> free range
 *
 * Allocation hands out runs of free slots (alloc_bits clear), each region's
 * cursor moving only forward between two collections, so no slot is handed
 * out twice in one cycle; each collection resets the cursors.
 *
 * Generational collection (generation.h) treats the slots like any young
 * or old memory: an object is old when its start bit is set (sticky), young
 * when it is not; with aging, a young survivor's mark moves to age_bits for
 * one more minor collection, as young_sweep.c does for the nursery:
 *
 *   after a minor collection's marking, per bitmap word of a typed region:
 *     fresh    = start & ~alloc        survivors allocated since the last GC
 *     promoted = start & age           aging survivors: old from now on
 *     start   &= ~fresh, age = fresh   (with aging; without, start stays)
 *     alloc    = start | age
 *
 * A slot neither old nor aging is free at the next cycle: young objects
 * that died and slots never used. Old objects that hold aging ones stay
 * remembered as for the nursery (remset_rescan_from_stw, young_sweep.c).
 */
#ifndef CORRAL_TYPED_SPACE_H
#define CORRAL_TYPED_SPACE_H

#include <stdbool.h>
#include <stddef.h>

#include <corral.h>

#include "workers.h"

/* Takes a run of free slots of type (slot_bytes each) of at most max_bytes,
 * from its regions or from a region newly taken out of the free ranges;
 * returns the run's start and its length in *got, or NULL with *got = 0
 * when the heap has no free region left. Thread: a MANAGED mutator. */
char *typed_space_take_run(const corral_type *type, size_t slot_bytes, size_t max_bytes,
                           size_t *got);

/* Gives back the unused end [cursor, limit) of the last run taken of type,
 * when no run was taken after it from the same region; returns the bytes
 * given back (0 when they stay lost until the next collection). */
size_t typed_space_give_back(const corral_type *type, char *cursor, char *limit);

/* The first pause of a concurrent minor collection, after
 * heap_begin_marking_from_stw: the regions that are empty become new
 * memory (heap_is_newborn), where objects may go while it marks. Noted
 * here, world stopped, rather than at their first use: a marker that meets
 * an object there through a racy read of a slot must find its region new,
 * and only the pause orders that on every processor. */
void typed_space_begin_marking_from_stw(void);

typedef struct typed_space_sweep {
    size_t young_bytes;    /* survivors kept young (aging) */
    size_t promoted_bytes; /* survivors that became old */
} typed_space_sweep;

/* After marking, with the world stopped, on the GC workers: each typed
 * region's taken slots become its alloc_bits (with a minor collection's
 * aging, above); slots left free are poisoned when poison; in a major
 * collection (minor false), a region with no object left is given back
 * (the compactor then frees it). A minor collection skips the regions that
 * received no object since the last collection and hold no aging one:
 * their bits are as that collection left them, and the regions given out
 * while a concurrent collection marked (heap_is_newborn). Resets the
 * allocation cursors, past the regions found full, except those. Adds the
 * parallel part's statistics to *stats (stats may be NULL). */
typed_space_sweep typed_space_sweep_from_stw(bool minor, bool keep_young, bool poison,
                                             gc_phase_stats *stats);

/* Before a generational major collection: no headerless object is aging. */
void typed_space_forget_ages_from_stw(void);

/* NULL when reference, in a headerless region, is a slot start holding an
 * object; else what is wrong (the verifier's check). */
const char *typed_space_reference_problem(const void *reference);

#endif /* CORRAL_TYPED_SPACE_H */
