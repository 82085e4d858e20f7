/* corral/barrier.h — the write barrier: remembering reference stores into the
 * heap (included by corral.h).
 *
 * What it guarantees: after corral_store_ref(object, field, value) returns,
 * the 512-byte card holding `field` is dirty, until the collector cleans it
 * with the world stopped. A generational collector scans dirty cards for
 * old-to-young references instead of the whole old space. Until the nursery
 * exists every store is recorded (any store may be old-to-young).
 *
 *   heap field:       cards[(field - heap_base) >> 9] = DIRTY    (inline)
 *   large object:     corral_write_barrier_outside_heap(object, field)
 *                     dirties the object's own cards (they follow it in the LOS)
 *   barrier off:      heap_size == 0 and outside_heap == 0: nothing is written
 *
 * Managed C gets the same fast path from the corral-opt pass (--write-barrier)
 * after every store of a reference into the heap; plain C (interpreters,
 * runtime glue) must store every reference into a heap object with
 * corral_store_ref. Stores into handles, globals and C memory need nothing.
 */
#ifndef CORRAL_BARRIER_H
#define CORRAL_BARRIER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* What this header declares is exported from libcorral (it is built with
 * hidden visibility). */
#pragma GCC visibility push(default)

#define CORRAL_CARD_SHIFT 9u /* 512-byte cards */
#define CORRAL_CARD_DIRTY 1u /* a clean card is 0 (fresh mmap memory) */

/* Where the barrier writes. Writer: corral_init, before any thread stores a
 * reference (never changed afterwards). Readers: every barrier (plain loads).
 * Field offsets are part of the ABI with the pass (CORRAL_ABI_BARRIER_*). */
typedef struct corral_barrier_table {
    uintptr_t heap_base;     /* start of the heap reservation; 0 when the barrier is off */
    uintptr_t heap_size;     /* bytes covered by cards; 0 when off, so nothing matches */
    uint8_t *cards;          /* one byte per card: relaxed stores of CORRAL_CARD_DIRTY */
    uintptr_t outside_heap;  /* non-zero when on: stores outside the heap call the slow path */
    /* Non-zero while the collector needs the references that stores are
     * about to overwrite (the deletion barrier below). Writer: the collector,
     * only while the world is stopped (a mutator sees the new value once it
     * resumes). Readers: every deletion barrier (relaxed loads). */
    uintptr_t satb_active;
} corral_barrier_table;

extern corral_barrier_table corral_barrier;

/* Records a store into a large object (outside the heap reservation).
 * object is the object holding field (or a tagged reference to it,
 * corral/tagged.h), or NULL when unknown (found by a search then). Never
 * GCs; gc-leaf for the pass. */
CORRAL_LEAF void corral_write_barrier_outside_heap(corral_ref object, const void CORRAL_REF *field);

/* Records a copy of bytes into the heap at start (memcpy of a struct or an
 * array that may hold references) in object (NULL: unknown). Never GCs. */
CORRAL_LEAF void corral_write_barrier_range(corral_ref object, const void CORRAL_REF *start,
                                            size_t bytes);

/* Test and verifier API: non-zero when the card holding field is dirty (so a
 * store to it since the last clean is remembered). Never GCs. */
CORRAL_LEAF int corral_barrier_recorded(const void CORRAL_REF *field);
/* Cleans every card, heap and large objects. For tests: the caller makes
 * sure no other thread is storing, and that no object is aging
 * (CORRAL_GC_PROMOTE_AFTER=1, or right after a major collection), since the
 * cards also remember old objects' references to aging ones. */
CORRAL_LEAF void corral_barrier_clean_all(void);

/* Logs the references in [start, start + bytes) of object (NULL: unknown)
 * that a store is about to overwrite, for snapshot-at-the-beginning
 * marking. Called only while corral_barrier.satb_active is set; never GCs. */
CORRAL_LEAF void corral_satb_log_range(corral_ref object, const void CORRAL_REF *start,
                                       size_t bytes);

#if defined(__CORRAL_MANAGED__)
/* Managed C: the pass puts the card barrier after every reference store (and,
 * with --satb-barrier, the deletion barrier before it), so this is a plain
 * store (kept so code can be shared between managed and plain C). */
static inline __attribute__((always_inline)) void corral_store_ref(corral_ref object,
                                                                   corral_ref CORRAL_REF *field,
                                                                   corral_ref value)
{
    (void)object;
    *field = value;
}

/* Managed C: the pass logs before memcpy, memmove and memset into the heap
 * (--satb-barrier), so this does nothing. */
static inline __attribute__((always_inline)) void corral_deletion_barrier(corral_ref object,
                                                                          const void CORRAL_REF *start,
                                                                          size_t bytes)
{
    (void)object, (void)start, (void)bytes;
}
#else
/* The deletion barrier: call it before overwriting references in
 * [start, start + bytes) of object other than through corral_store_ref (a
 * memcpy, memmove or memset into an object), as corral_write_barrier_range
 * after. While the collector marks with a snapshot (CORRAL_GC_VERIFY=satb
 * checks the rule) it logs the references about to be lost. */
static inline __attribute__((always_inline)) void corral_deletion_barrier(corral_ref object,
                                                                          const void *start,
                                                                          size_t bytes)
{
    if (__builtin_expect(__atomic_load_n(&corral_barrier.satb_active, __ATOMIC_RELAXED) != 0, 0))
        corral_satb_log_range(object, start, bytes);
}

/* The barrier alone, after a store already made to field of object. */
static inline __attribute__((always_inline)) void corral_write_barrier(corral_ref object,
                                                                       const void *field)
{
    uintptr_t offset = (uintptr_t)field - corral_barrier.heap_base;
    if (__builtin_expect(offset < corral_barrier.heap_size, 1))
        __atomic_store_n(&corral_barrier.cards[offset >> CORRAL_CARD_SHIFT],
                         (uint8_t)CORRAL_CARD_DIRTY, __ATOMIC_RELAXED);
    else if (corral_barrier.outside_heap)
        corral_write_barrier_outside_heap(object, field);
}

/* Stores value into field (a reference slot of object) and records it.
 * Thread: MANAGED. Every reference store into a heap object from plain C
 * goes through here, null stores too (the deletion barrier logs what
 * they overwrite). */
static inline __attribute__((always_inline)) void corral_store_ref(corral_ref object,
                                                                   corral_ref *field,
                                                                   corral_ref value)
{
    corral_deletion_barrier(object, field, sizeof *field);
    /* Atomic (a plain move): a concurrent marker reads the slot meanwhile. */
    __atomic_store_n(field, value, __ATOMIC_RELAXED);
    corral_write_barrier(object, field);
}
#endif

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* CORRAL_BARRIER_H */
