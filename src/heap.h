/* heap.h — the moving heap: one reserved address range cut into regions,
 * side bitmaps for marking, the forwarding function of the compactor, and
 * the free ranges that TLABs are carved from.
 *
 *   base                                                          end
 *   |region 0|region 1|region 2| ...                   |region n-1|
 *   <-------------- used (below top) ---------><------ never touched -->
 *
 * Bitmaps with one bit per 8-byte granule:
 *   start_bits  a marked object starts at this granule (set when marked)
 *   live_bits   this granule belongs to a marked object (set when scanned)
 *   age_bits    generational only: a young object that has survived one
 *               minor collection starts here (generation.h, "aging")
 *   alloc_bits  in regions of a headerless type only: the slot starting
 *               here was taken (live or aging) when the last collection
 *               ended (typed_space.h)
 * One bitmap word covers a 512-byte block; block_dest[w] is where the first
 * live granule of block w goes, so the new address of an object is
 *   base + 8 * (block_dest[w] + popcount(live_bits[w] below the object))
 * computed from the bitmaps alone, without touching the object (Compressor).
 *
 * Objects larger than the large-object threshold live in the LOS (los.h) and
 * never move. Memory handed out is zeroed.
 */
#ifndef CORRAL_HEAP_H
#define CORRAL_HEAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap_sizer.h"
#include "object.h"
#include "workers.h"

#define HEAP_REGION_SHIFT CORRAL_REGION_SHIFT /* 256 KiB: the unit of compaction scheduling */
#define HEAP_REGION_SIZE ((size_t)1 << HEAP_REGION_SHIFT)
#define HEAP_BLOCK_GRANULES 64u /* one bitmap word */
#define HEAP_BLOCK_SIZE (HEAP_BLOCK_GRANULES * CORRAL_GRANULE)
#define HEAP_GRANULES_PER_REGION (HEAP_REGION_SIZE / CORRAL_GRANULE)
#define HEAP_WORDS_PER_REGION (HEAP_GRANULES_PER_REGION / 64u)
/* block_dest holds 32-bit granule indexes: 2^32 granules of 8 bytes. */
#define HEAP_MAX_RESERVE ((size_t)32 << 30)

/* Per-region compaction state. Written only while the world is stopped. */
typedef struct heap_region {
    uint32_t live_granules;     /* marked granules this GC */
    uint32_t dest_granule;      /* destination of the region's first live granule */
    uint8_t moves;              /* compaction slides its objects this GC */
    uint8_t has_pinned;         /* holds a pinned object this GC */
    uint8_t is_destination;     /* live data lands in it this GC */
    /* Its live bits were written this GC (by its own objects or by one that
     * spills in from the region before); relaxed stores of 1 by plan workers. */
    _Atomic uint8_t live_bits_dirty;
    uint32_t first_source;      /* first source region whose data lands here */
    uint32_t last_source;       /* last such region */
    /* Destination regions (other than itself) still to read this region's
     * data. Written by fill workers (acq_rel decrement); the worker that
     * brings it to zero schedules the region's own fill. */
    _Atomic int32_t pending_readers;
    /* Longest chain of fills (ns) that had to finish before this region's
     * fill could start: written with atomic max by the fills it waits for. */
    _Atomic uint64_t ready_after_ns;
    _Atomic uint32_t chain_length; /* fills on that chain, for the span report (atomic max) */
} heap_region;

/* A free address range [start, end) that TLABs and medium objects come from. */
typedef struct heap_free_range {
    char *start;
    char *end;
} heap_free_range;

typedef struct heap {
    char *base;             /* region-aligned start of the reserved range */
    char *end;              /* end of the reserved range */
    size_t region_count;
    uint64_t *start_bits;   /* see above; written by markers with atomic or */
    uint64_t *live_bits;    /* see above; written by markers with atomic or */
    uint32_t *block_dest;   /* per bitmap word; written in the forwarding phase */
    uint8_t *region_moves;  /* per region: dense copy of heap_region.moves for forward() */
    heap_region *regions;
    /* A second start bitmap, all zero between uses: the verifier's visited
     * set, and where a generational major GC builds the survivors' start bits
     * at their new addresses. Collector only, world stopped. */
    uint64_t *scratch_bits;
    /* Young objects that survived a minor collection and stay young for one
     * more (CORRAL_GC_PROMOTE_AFTER=2). Written only by the minor sweep's
     * workers (atomic or/and on words shared by two pieces), read by the
     * marker's card scan and the sweep; all zero after a major collection. */
    uint64_t *age_bits;
    /* Headerless regions' occupied slots (above). Written by the collector
     * with the world stopped, read by the typed allocator under alloc_lock. */
    uint64_t *alloc_bits;

    /* Allocation. Writers: mutators refilling TLABs (under alloc_lock) and the
     * collector while the world is stopped. */
    pthread_mutex_t alloc_lock;
    heap_free_range *ranges; /* sorted by address, disjoint */
    /* Each range's start when the ranges were last reset: [origin, start) is
     * what was handed out since the last collection (the young objects). */
    char **range_origins;
    size_t range_count, range_capacity, range_origin_capacity;
    size_t range_next;       /* ranges before this one are used up */
    char *top;               /* end of the highest chunk ever handed out */
    /* While a concurrent minor collection marks (young_marker.h), memory is
     * handed out only where nothing was when marking began: past
     * marking_fence (the top then), and in the 512-byte blocks of new_blocks
     * (the free ranges below it, trimmed to whole blocks). An object there
     * was allocated since and is alive (heap_is_newborn); the sweep that ends
     * the collection leaves it young. marking_fence is NULL otherwise and
     * new_blocks all zero. Writer: the collector, world stopped; readers: the
     * markers (the pause that set them orders their reads). */
    char *marking_fence;
    uint64_t *new_blocks;
    char *high_water;        /* end of the pages that may be committed */

    /* Budget. allocated_since_gc: bytes reserved since the last GC. Writers:
     * mutators by CAS in heap_reserve (relaxed: the CAS alone keeps
     * live_after_gc + allocated_since_gc <= the limit checked) and the
     * collector, which resets it with the world stopped. */
    _Atomic size_t allocated_since_gc;
    _Atomic uint64_t allocated_total; /* since start, for statistics (relaxed) */
    /* Written with the world stopped; read by mutators in heap_reserve. */
    size_t live_after_gc;    /* heap + LOS bytes alive after the last GC */
    size_t target;           /* collect before live_after_gc + allocated exceeds this */
    size_t heap_min, heap_max;
    heap_sizer sizer;        /* sets target after each GC; collector only */
} heap;

extern heap corral_heap;

/* Reserves the address range and the side tables; returns 0 or a negative
 * corral_status with corral_set_error. The expansiveness constants are the
 * sizer's (heap_sizer.h). */
int heap_init(size_t heap_min, size_t heap_max, unsigned expansiveness,
              unsigned growth_expansiveness);
void heap_destroy(void);

static inline bool heap_contains(const void *pointer)
{
    return (uintptr_t)pointer - (uintptr_t)corral_heap.base <
           (uintptr_t)corral_heap.top - (uintptr_t)corral_heap.base;
}

static inline size_t heap_granule_index(const void *pointer)
{
    return ((uintptr_t)pointer - (uintptr_t)corral_heap.base) >> CORRAL_GRANULE_SHIFT;
}

static inline char *heap_granule_address(size_t granule)
{
    return corral_heap.base + (granule << CORRAL_GRANULE_SHIFT);
}

static inline size_t heap_region_index(const void *pointer)
{
    return ((uintptr_t)pointer - (uintptr_t)corral_heap.base) >> HEAP_REGION_SHIFT;
}

static inline char *heap_region_start(size_t region)
{
    return corral_heap.base + (region << HEAP_REGION_SHIFT);
}

static inline bool heap_bit(const uint64_t *bits, size_t granule)
{
    return (bits[granule >> 6] >> (granule & 63)) & 1;
}

/* Calls fn(granule, context) with the start granule of every marked object
 * that starts in granules [first, end), in address order. Inlined with fn,
 * like the slot walk (object.h): the compactor's passes over a region and
 * the minor sweep's over a piece of the nursery. */
static inline __attribute__((always_inline)) void
heap_for_each_object_start(size_t first, size_t end, void (*fn)(size_t granule, void *context),
                           void *context)
{
    for (size_t w = first >> 6; first < end && w <= (end - 1) >> 6; w++) {
        uint64_t starts = corral_heap.start_bits[w];
        if (w == first >> 6)
            starts &= ~UINT64_C(0) << (first & 63);
        while (starts) {
            size_t granule = w * 64 + (unsigned)__builtin_ctzll(starts);
            if (granule >= end)
                return;
            starts &= starts - 1;
            fn(granule, context);
        }
    }
}

/* Whether object survived one minor collection and is still young. */
static inline bool heap_is_aging(const void *object)
{
    return heap_contains(object) && heap_bit(corral_heap.age_bits, heap_granule_index(object));
}

/* Marks the object starting at granule; true if this call marked it.
 * Test before the atomic or: most visits find the object already marked. */
static inline bool heap_try_mark(size_t granule)
{
    _Atomic uint64_t *word = (_Atomic uint64_t *)&corral_heap.start_bits[granule >> 6];
    uint64_t bit = UINT64_C(1) << (granule & 63);
    if (atomic_load_explicit(word, memory_order_relaxed) & bit)
        return false;
    return !(atomic_fetch_or_explicit(word, bit, memory_order_relaxed) & bit);
}

/* Sets the live bits of granules [first, first + count). */
void heap_set_live_range(size_t first, size_t count);

/* The new address of a heap object (or the pointer itself when it does not
 * move: outside the heap, null, or in a region that stays). Valid from the
 * forwarding phase until the bitmaps are cleared. */
/* Compressor's rule: a live granule's new index is its bitmap word's block
 * destination plus the live granules before it in that word. live_word and
 * block_dest are that word's entries (the heap's, or a saved copy); bit is
 * the granule's position in the word. */
static inline size_t heap_forwarded_granule(uint64_t live_word, uint32_t block_dest,
                                            unsigned bit)
{
    uint64_t below = live_word & ((UINT64_C(1) << bit) - 1);
    return (size_t)block_dest + (size_t)__builtin_popcountll(below);
}

static inline void *heap_forward(void *pointer)
{
    if (!heap_contains(pointer))
        return pointer;
    if (!corral_heap.region_moves[heap_region_index(pointer)])
        return pointer;
    size_t granule = heap_granule_index(pointer);
    return heap_granule_address(heap_forwarded_granule(corral_heap.live_bits[granule >> 6],
                                                       corral_heap.block_dest[granule >> 6],
                                                       (unsigned)(granule & 63)));
}

/* Hands out a chunk of between min_bytes and want_bytes (multiples of the
 * granule) from the free ranges, not yet zeroed (the caller zeroes it, after
 * its own atomic updates: a locked instruction after a 32 KiB memset waits
 * for all its stores to drain); returns NULL with *got = 0 when none is
 * left. Thread: a mutator (MANAGED) or the collector. */
char *heap_take_chunk(size_t min_bytes, size_t want_bytes, size_t *got);

/* Takes a whole free region out of the free ranges for a headerless type
 * (typed_space.h); returns its index, or SIZE_MAX when no free range holds
 * one. The caller holds alloc_lock. */
size_t heap_take_region_locked(void);

/* Reserves between min_bytes and want_bytes (granule multiples) of the
 * budget so that live_after_gc + allocated_since_gc stays <= limit, in one
 * atomic step; returns the bytes reserved, 0 when not even min_bytes fit.
 * Thread: a MANAGED mutator, so no collection resets the budget before it
 * returns what it did not use with heap_unreserve. */
size_t heap_reserve(size_t min_bytes, size_t want_bytes, size_t limit);
void heap_unreserve(size_t bytes);
/* Adds bytes handed out to allocated_total (statistics). */
void heap_count_allocated(size_t bytes);

/* From the stopped world, after compaction or a minor sweep: replaces the
 * free ranges, each with nothing handed out yet, or from origins[i] on
 * (origins non-NULL: memory a concurrent minor collection left young), and
 * resets the allocation budget. */
void heap_reset_free_ranges_from_stw(const heap_free_range *ranges, char *const *origins,
                                     size_t count);
/* Sets the next limit from the sizer (the heap when the GC began, whether
 * its limit brought the GC, its start and end times) and gives back pages
 * above it. */
void heap_set_budget_from_stw(size_t live_bytes, size_t heap_before, bool at_limit,
                              uint64_t gc_start_ns, uint64_t gc_end_ns);

/* Generational minor GC (generation.h), after marking: the memory handed
 * out since the last collection, and the spans of the objects that were
 * aging, minus the objects marked in them become the free ranges, holes of
 * at least HEAP_MIN_HOLE bytes (smaller ones wait for a later sweep or the
 * next major GC); poisons the holes when asked. Survivors allocated since
 * the last collection stay young for one more (their mark moves to
 * age_bits) when keep_young; aging survivors become old, and the cards of
 * their slots that hold an aging object are dirtied. Sets live_after_gc
 * from survivor_bytes and resets the allocation budget, not the sizer's
 * limit; typed_young_bytes are the headerless survivors kept young
 * (typed_space.h), counted in survivor_bytes and again at the next minor
 * collection like the nursery's. Adds its parallel parts' statistics to
 * *stats. Returns the bytes that became old. */
#define HEAP_MIN_HOLE 256u
size_t heap_sweep_young_from_stw(bool poison, bool keep_young, size_t survivor_bytes,
                                 size_t typed_young_bytes, gc_phase_stats *stats);
/* A concurrent minor collection begins marking (young_marker.h): the young
 * memory as it is now is what its sweep (heap_sweep_young_from_stw) will
 * cover, and the free ranges become the parts of today's that are new
 * memory (marking_fence, new_blocks above). That sweep leaves the memory
 * handed out meanwhile young, for the next minor collection, and ends it. */
void heap_begin_marking_from_stw(void);
/* The first pause, after heap_begin_marking_from_stw: an empty headerless
 * region becomes new memory (typed_space_begin_marking_from_stw). */
void heap_note_newborn_region_from_stw(size_t region);
/* Forgets that marking began (a major collection abandons it); the sweep
 * calls it itself. */
void heap_end_marking_from_stw(void);

/* Whether a concurrent minor collection marks: from its first pause to
 * its sweep. The collector writes marking_fence holding the allocation
 * locks, so allocators read this under theirs. */
static inline bool heap_marking(void)
{
    return corral_heap.marking_fence != NULL;
}

/* Whether object lies where memory was handed out since a concurrent
 * minor collection began marking: alive, never marked nor traced. */
static inline bool heap_is_newborn(const void *object)
{
    const heap *h = &corral_heap;
    if (!h->marking_fence)
        return false;
    if ((const char *)object >= h->marking_fence)
        return true;
    size_t block = ((uintptr_t)object - (uintptr_t)h->base) / HEAP_BLOCK_SIZE;
    return (__atomic_load_n(&h->new_blocks[block >> 6], __ATOMIC_RELAXED) >> (block & 63)) & 1;
}
/* Before a major collection: no object is aging any more. */
void heap_forget_ages_from_stw(void);
/* Bytes of the objects the last minor collection kept young (aging); 0
 * after a major collection or without aging. */
size_t heap_aging_bytes(void);

/* What vacated memory is filled with under CORRAL_GC_STRESS=poison: a stale
 * reference then reads it as its header (the verifier and the fatal reports
 * recognise it). */
#define CORRAL_POISON_PATTERN UINT64_C(0xBADC0FFEE0DDF00D)
/* Fills [start, end) with CORRAL_POISON_PATTERN (CORRAL_GC_STRESS=poison). */
void heap_poison_range(char *start, char *end);

/* Bytes of the reserved range in use below top. */
size_t heap_used_bytes(void);

/* MPS-style consistency check of the heap structure; NULL when sound. */
const char *heap_check(void);

#endif /* CORRAL_HEAP_H */
