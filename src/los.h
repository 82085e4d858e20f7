/* los.h — the large-object space: objects at or above the large-object
 * threshold (and instances of CORRAL_TYPE_PINNED types) get memory of their
 * own and never move. A header before each object holds its list links and
 * mark byte; the collector marks them, updates their references in place and
 * frees the unmarked ones.
 */
#ifndef CORRAL_LOS_H
#define CORRAL_LOS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct los_object {
    struct los_object *next;   /* list of all large objects (los_lock) */
    size_t size;               /* bytes of the object, header excluded */
    uint64_t signature;        /* LOS_SIGNATURE: recognises LOS objects in checks */
    /* Written by markers (exchange), cleared by the sweep; with
     * CORRAL_GC_GENERATIONAL=1 kept by the sweep (a marked object is old)
     * and cleared before a major GC marks. */
    _Atomic uint8_t marked;
    uint8_t verify_visited;    /* the verifier's visited set (verify.c), zero between uses */
    /* Allocated while a concurrent minor collection marks (young_marker.h):
     * alive by birth, so markers neither mark nor trace it. Written by
     * los_alloc under the LOS lock, cleared by the sweep that ends the
     * collection; read with the world stopped (a stop orders it). The
     * concurrent marker does not rely on it: nothing orders the write before
     * its racy read of a slot that holds the object, so it takes a large
     * object missing from its index of those alive at the first pause as
     * newborn (mark.c). */
    _Atomic uint8_t newborn;
    uint8_t padding[5];
    /* the object follows, 16-byte aligned */
} los_object;

#define LOS_SIGNATURE UINT64_C(0x1a59e0b1ec75a1e5)

static inline los_object *los_header(const void *object)
{
    return (los_object *)((char *)object - sizeof(los_object));
}

static inline void *los_payload(los_object *header)
{
    return (char *)header + sizeof(los_object);
}

/* The object's write-barrier cards (barrier.h), right after its payload:
 * barrier_card_count(size) bytes, written by barriers, cleaned by the collector. */
static inline uint8_t *los_cards(los_object *header)
{
    return (uint8_t *)los_payload(header) + header->size;
}

/* Allocates size zeroed bytes; NULL when malloc fails. Thread: MANAGED. */
void *los_alloc(size_t size);
/* The large objects as a malloc'ed array the caller frees, taken under the
 * LOS lock (any thread; the objects stay alive only while no GC runs). */
los_object **los_snapshot(size_t *count);
/* Marks a large object; true if this call marked it. */
static inline bool los_try_mark(void *object)
{
    los_object *header = los_header(object);
    if (atomic_load_explicit(&header->marked, memory_order_relaxed) ||
        atomic_load_explicit(&header->newborn, memory_order_relaxed))
        return false;
    return !atomic_exchange_explicit(&header->marked, 1, memory_order_relaxed);
}
static inline bool los_is_marked(const void *object)
{
    return atomic_load_explicit(&los_header(object)->marked, memory_order_relaxed);
}
/* Allocated while a concurrent minor collection marks: alive. */
static inline bool los_is_newborn(const void *object)
{
    return atomic_load_explicit(&los_header(object)->newborn, memory_order_relaxed);
}

/* Held by the collector for a whole collection (see gc.c). */
void los_lock_from_stw(void);
void los_unlock_from_stw(void);
/* The large objects as an array, for parallel phases (valid until the sweep). */
los_object **los_snapshot_from_stw(size_t *count);
/* Frees unmarked objects and returns the bytes still alive; clears the
 * marks of the others unless keep_marks (generational: they are now old).
 * Newborn objects are kept, unmarked (young), and are newborn no more. */
size_t los_sweep_from_stw(bool keep_marks);
/* Clears every mark and newborn flag (before a generational major GC marks
 * from scratch). */
void los_clear_marks_from_stw(void);
size_t los_live_bytes(void);
/* The large objects' payload addresses, sorted, as of one moment: a fast
 * "is this a large object?" for the marker's debug checks and the verifier. */
typedef struct los_index {
    uintptr_t *payloads;
    size_t count, capacity;
} los_index;
/* Rebuilds the index from the current large objects (capacity is kept). */
void los_index_build_from_stw(los_index *index);
bool los_index_contains(const los_index *index, const void *pointer);
void los_index_free(los_index *index);
/* Poisons freed objects before freeing them (stress mode). */
void los_set_poison(bool poison, uint64_t pattern);
void los_destroy(void);

#endif /* CORRAL_LOS_H */
