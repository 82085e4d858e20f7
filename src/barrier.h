/* barrier.h — the runtime side of the write barrier (corral/barrier.h):
 * the card table over the heap reservation, and the cards of large objects.
 *
 * Cards are written by mutators (relaxed byte stores of CORRAL_CARD_DIRTY, no
 * read-modify-write, so racing writers agree) and read or cleaned by the
 * collector with the world stopped, which orders them after every store the
 * stopped threads made. Large objects live outside the reservation (malloc):
 * each one carries its own cards after its payload (los.h).
 */
#ifndef CORRAL_BARRIER_INTERNAL_H
#define CORRAL_BARRIER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <corral.h>

/* After heap_init: reserves the card table and, when enabled
 * (CORRAL_GC_GENERATIONAL=1), publishes it so barriers record. Returns 0 or
 * a negative corral_status with corral_set_error. */
int barrier_init(bool enabled);
/* Heap cards covering [heap base, top), the last one partly. */
size_t barrier_cards_below(const char *top);
/* Whether the card of field (a slot of object, heap or large) is dirty;
 * takes no lock, so the verifier may ask with the world stopped. */
bool barrier_recorded_in(const void *object, const void *field);
/* Cleans the heap's cards below top (the highest top since the last clean)
 * and every large object's; the collector holds the LOS lock. After a major
 * collection every survivor is old: nothing is left to remember. */
void barrier_clean_below_from_stw(const char *top);

/* Sets the cards of a new large object: all dirty while the barrier is on.
 * It is young until a minor collection marks it, and old from then on,
 * while survivors it refers to may stay young (aging); the stores that put
 * them there need no barrier (the pass elides it for stores into an object
 * allocated since the last safepoint), so its cards are dirty from birth
 * and the next minor collection scans them. Small objects need no such
 * start: what such a store puts in one is no younger than it, so it is
 * old no later. Any thread, before the object is published. */
void barrier_set_newborn_cards(uint8_t *cards, size_t count);

/* The large object holding field, by a walk of the LOS list; NULL if none.
 * Any thread (it takes the LOS lock). */
void *barrier_large_object_holding(const void *field);

/* Cards of a large object of size bytes: one per 512 bytes of payload. */
static inline size_t barrier_card_count(size_t size)
{
    return (size + ((size_t)1 << CORRAL_CARD_SHIFT) - 1) >> CORRAL_CARD_SHIFT;
}

#endif /* CORRAL_BARRIER_INTERNAL_H */
