/* typed_space.c — regions of one headerless type (typed_space.h). */
#include "typed_space.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fatal.h"
#include "heap.h"
#include "ptr_table.h"
#include "region_loop.h"
#include "vec.h"

/* One region of a type: how far this cycle's allocation has looked, and
 * whether a minor collection has anything to sweep in it. */
typedef struct region_cursor {
    uint32_t region;
    uint32_t next_slot; /* slots before it were handed out or taken this cycle */
    /* Slots were handed out since the last collection, or it holds aging
     * objects: otherwise a minor collection would find its bits as it left
     * them (old objects stay marked), and skips it. */
    bool changed;
    uint32_t taken;     /* objects left in it by the last sweep */
} region_cursor;

typedef struct typed_space {
    const corral_type *type;
    size_t slot_bytes;
    uint32_t slot_granules;
    uint32_t slot_count;        /* slots per region */
    /* start_masks[p], p < slot_granules: where slots start in a bitmap
     * word whose first granule lies p granules past a slot's start. */
    uint64_t *start_masks;
    VEC(region_cursor) regions; /* in the order they were taken */
    size_t current;             /* regions before it have no free slot left this cycle */
} typed_space;

/* Type -> typed_space *. Writers and readers: allocators under the heap's
 * alloc_lock, the collector with the world stopped (it holds alloc_lock). */
static ptr_table spaces;

static size_t first_word_of(uint32_t region)
{
    return (size_t)region * HEAP_WORDS_PER_REGION;
}

static typed_space *space_of(const corral_type *type, size_t slot_bytes)
{
    bool added;
    ptr_table_entry *entry = ptr_table_insert(&spaces, (void *)type, &added);
    if (added) {
        typed_space *space = calloc(1, sizeof *space);
        if (!space)
            CORRAL_FATAL("out of memory for the headerless space of type '%s'", type->name);
        space->type = type;
        space->slot_bytes = slot_bytes;
        space->slot_granules = (uint32_t)(slot_bytes / CORRAL_GRANULE);
        space->slot_count = (uint32_t)(HEAP_REGION_SIZE / slot_bytes);
        space->start_masks = calloc(space->slot_granules, sizeof(uint64_t));
        if (!space->start_masks)
            CORRAL_FATAL("out of memory for the headerless space of type '%s'", type->name);
        unsigned g = space->slot_granules;
        for (unsigned phase = 0; phase < g; phase++)
            for (unsigned bit = phase ? g - phase : 0; bit < 64; bit += g)
                space->start_masks[phase] |= UINT64_C(1) << bit;
        entry->value = (uintptr_t)space;
    }
    return (typed_space *)entry->value;
}

/* The bits of bitmap word w (of a region) at which a slot starts: slots of g
 * granules start at every g-th granule from the region's start, which is
 * word-aligned, so the pattern repeats with the word's phase (64 * w) mod g. */
static uint64_t slot_start_mask(const typed_space *space, size_t word_in_region)
{
    return space->start_masks[(word_in_region * 64) % space->slot_granules];
}

/* The first granule at or after `from` (relative to the region, below
 * `end`) where a slot starts that is free (want_taken false) or taken
 * (true); `end` when none. Whole words at a time. */
static size_t next_slot_start(const typed_space *space, uint32_t region, size_t from, size_t end,
                              bool want_taken)
{
    const uint64_t *taken = &corral_heap.alloc_bits[first_word_of(region)];
    for (size_t w = from >> 6; (w << 6) < end; w++) {
        uint64_t bits = want_taken ? taken[w] : ~taken[w];
        bits &= slot_start_mask(space, w);
        if (w == from >> 6)
            bits &= ~UINT64_C(0) << (from & 63);
        if (bits) {
            size_t granule = (w << 6) + (unsigned)__builtin_ctzll(bits);
            return granule < end ? granule : end;
        }
    }
    return end;
}

/* The next run of free slots of cursor's region, of at most max_slots;
 * false when the region has none left this cycle. */
static bool find_run(const typed_space *space, region_cursor *cursor, size_t max_slots,
                     char **run, size_t *slots)
{
    size_t g = space->slot_granules;
    size_t end = (size_t)space->slot_count * g;
    size_t first = next_slot_start(space, cursor->region, (size_t)cursor->next_slot * g, end,
                                   false);
    if (first == end) {
        cursor->next_slot = space->slot_count;
        return false;
    }
    size_t limit = first + max_slots * g < end ? first + max_slots * g : end;
    size_t last = next_slot_start(space, cursor->region, first + g, limit, true);
    cursor->next_slot = (uint32_t)(last / g);
    cursor->changed = true;
    *run = heap_region_start(cursor->region) + first * CORRAL_GRANULE;
    *slots = (last - first) / g;
    return true;
}

/* A region just taken out of the free ranges: no object starts in it. */
static void claim_region(typed_space *space, size_t region)
{
    size_t from = first_word_of((uint32_t)region);
    for (size_t w = from; w < from + HEAP_WORDS_PER_REGION; w++)
        CORRAL_CHECK(!corral_heap.start_bits[w] && !corral_heap.age_bits[w],
                     "free region %zu taken for headerless type '%s' has a marked or aging "
                     "granule (bitmap word %zu)",
                     region, space->type->name, w);
    memset(&corral_heap.alloc_bits[from], 0, HEAP_WORDS_PER_REGION * sizeof(uint64_t));
    corral_region_types.types[region] = space->type;
    VEC_PUSH(space->regions, ((region_cursor){(uint32_t)region, 0, true, 0}));
}

/* Taken while a concurrent minor collection marked, or empty when it began
 * (typed_space_begin_marking_from_stw): its objects are young and unmarked,
 * and its sweep leaves the region as it is. */
static bool taken_while_marking(const region_cursor *cursor)
{
    return heap_is_newborn(heap_region_start(cursor->region));
}

void typed_space_begin_marking_from_stw(void)
{
    PTR_TABLE_FOR_EACH(entry, &spaces) {
        const typed_space *space = (const typed_space *)entry->value;
        /* Those before current have no free slot left this cycle. */
        for (size_t i = space->current; i < space->regions.count; i++) {
            const region_cursor *cursor = &space->regions.items[i];
            if (!cursor->taken && !cursor->changed && !cursor->next_slot)
                heap_note_newborn_region_from_stw(cursor->region);
        }
    }
}

char *typed_space_take_run(const corral_type *type, size_t slot_bytes, size_t max_bytes,
                           size_t *got)
{
    char *run = NULL;
    size_t slots = 0;
    size_t max_slots = max_bytes / slot_bytes;
    pthread_mutex_lock(&corral_heap.alloc_lock);
    typed_space *space = space_of(type, slot_bytes);
    for (; space->current < space->regions.count; space->current++) {
        region_cursor *cursor = &space->regions.items[space->current];
        /* While marking, no object may go where one was when it began:
         * only into regions empty then, or taken since. */
        if (heap_marking() && !taken_while_marking(cursor))
            continue;
        if (find_run(space, cursor, max_slots, &run, &slots))
            break;
    }
    if (!run) {
        size_t region = heap_take_region_locked();
        if (region != SIZE_MAX) {
            claim_region(space, region);
            space->current = space->regions.count - 1;
            bool found = find_run(space, &space->regions.items[space->current], max_slots, &run,
                                  &slots);
            CORRAL_CHECK(found, "no free slot in a new region of headerless type '%s'",
                         type->name);
        }
    }
    pthread_mutex_unlock(&corral_heap.alloc_lock);
    *got = slots * slot_bytes;
    return run;
}

size_t typed_space_give_back(const corral_type *type, char *cursor, char *limit)
{
    if (cursor >= limit)
        return 0;
    size_t given = 0;
    uint32_t region = (uint32_t)heap_region_index(cursor);
    pthread_mutex_lock(&corral_heap.alloc_lock);
    ptr_table_entry *entry = ptr_table_find(&spaces, type);
    typed_space *space = entry ? (typed_space *)entry->value : NULL;
    for (size_t i = 0; space && i < space->regions.count; i++) {
        region_cursor *at = &space->regions.items[i];
        if (at->region != region)
            continue;
        size_t start = (size_t)(cursor - heap_region_start(region)) / space->slot_bytes;
        size_t end = (size_t)(limit - heap_region_start(region)) / space->slot_bytes;
        if (at->next_slot == end) {
            at->next_slot = (uint32_t)start;
            if (space->current > i)
                space->current = i;
            given = (size_t)(limit - cursor);
        }
        break;
    }
    pthread_mutex_unlock(&corral_heap.alloc_lock);
    return given;
}

/* Objects of a region a minor collection keeps young, and makes old. */
typedef struct age_counts {
    size_t young, promoted;
} age_counts;

/* One bitmap word of a typed region after marking (typed_space.h); returns
 * the objects whose slots stay taken. */
static size_t sweep_word(size_t w, bool minor, bool keep_young, age_counts *counts)
{
    uint64_t *start = &corral_heap.start_bits[w], *age = &corral_heap.age_bits[w];
    uint64_t marked = *start;
    /* Most words of a nursery hold nothing, before the sweep and after. */
    if (!(marked | *age | corral_heap.alloc_bits[w]))
        return 0;
    if (minor) {
        uint64_t fresh = marked & ~corral_heap.alloc_bits[w];
        uint64_t promoted = marked & *age;
        if (keep_young) {
            *start = marked & ~fresh;
            *age = fresh;
            counts->young += (size_t)__builtin_popcountll(fresh);
        } else {
            *age = 0;
            promoted |= fresh;
        }
        counts->promoted += (size_t)__builtin_popcountll(promoted);
    }
    uint64_t taken = *start | *age;
    corral_heap.alloc_bits[w] = taken;
    return (size_t)__builtin_popcountll(taken);
}

/* The granules of region word w (relative) below `end`, a granule index
 * relative to the region. */
static uint64_t granules_below(size_t w, size_t end)
{
    if ((w + 1) * 64 <= end)
        return ~UINT64_C(0);
    return w * 64 >= end ? 0 : ~UINT64_C(0) >> (64 - (end - w * 64));
}

/* Poisons the slots starting in region word w that were taken before the
 * sweep (was_taken) or handed out this cycle (below handed_end), and are
 * free now: the others are as free as the last sweep poisoned them, or
 * never held an object. */
static void poison_freed_slots(const typed_space *space, uint32_t region, size_t w,
                               uint64_t was_taken, size_t handed_end)
{
    uint64_t freed = (was_taken | granules_below(w, handed_end)) &
                     ~corral_heap.alloc_bits[first_word_of(region) + w] & slot_start_mask(space, w);
    size_t slot_end = (size_t)space->slot_count * space->slot_granules;
    while (freed) {
        size_t granule = w * 64 + (unsigned)__builtin_ctzll(freed);
        freed &= freed - 1;
        if (granule >= slot_end)
            break;
        char *at = heap_region_start(region) + granule * CORRAL_GRANULE;
        heap_poison_range(at, at + space->slot_bytes);
    }
}

/* One region to sweep. */
typedef struct sweep_job {
    const typed_space *space;
    region_cursor *cursor;
} sweep_job;

/* A sweep's settings and totals; the totals are added to by the workers
 * (relaxed: read after the phase ends, which orders them). */
typedef struct sweep_context {
    bool minor, keep_young, poison;
    _Atomic size_t young_bytes, promoted_bytes;
} sweep_context;

/* Collector only, world stopped; kept across collections for its array. */
static VEC(sweep_job) jobs;

static void sweep_regions(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    sweep_context *sweep = context;
    for (size_t j = first; j < end; j++) {
        const typed_space *space = jobs.items[j].space;
        region_cursor *cursor = jobs.items[j].cursor;
        age_counts counts = {0, 0};
        size_t from = first_word_of(cursor->region), taken = 0;
        size_t handed_end = (size_t)cursor->next_slot * space->slot_granules;
        for (size_t w = 0; w < HEAP_WORDS_PER_REGION; w++) {
            uint64_t was_taken = corral_heap.alloc_bits[from + w];
            taken += sweep_word(from + w, sweep->minor, sweep->keep_young, &counts);
            if (sweep->poison)
                poison_freed_slots(space, cursor->region, w, was_taken, handed_end);
        }
        cursor->taken = (uint32_t)taken;
        cursor->changed = counts.young != 0;
        atomic_fetch_add_explicit(&sweep->young_bytes, counts.young * space->slot_bytes,
                                  memory_order_relaxed);
        atomic_fetch_add_explicit(&sweep->promoted_bytes, counts.promoted * space->slot_bytes,
                                  memory_order_relaxed);
    }
}

typed_space_sweep typed_space_sweep_from_stw(bool minor, bool keep_young, bool poison,
                                             gc_phase_stats *stats)
{
    jobs.count = 0;
    PTR_TABLE_FOR_EACH(entry, &spaces) {
        typed_space *space = (typed_space *)entry->value;
        for (size_t i = 0; i < space->regions.count; i++)
            if ((!minor || space->regions.items[i].changed) &&
                !taken_while_marking(&space->regions.items[i]))
                VEC_PUSH(jobs, ((sweep_job){space, &space->regions.items[i]}));
    }
    sweep_context sweep = {minor, keep_young, poison, 0, 0};
    if (jobs.count)
        region_loop_run("headerless", jobs.count, sweep_regions, &sweep, stats);
    PTR_TABLE_FOR_EACH(entry, &spaces) {
        typed_space *space = (typed_space *)entry->value;
        size_t kept = 0;
        for (size_t i = 0; i < space->regions.count; i++) {
            region_cursor cursor = space->regions.items[i];
            if (!minor && cursor.taken == 0) {
                corral_region_types.types[cursor.region] = NULL; /* the compaction plan frees it */
                continue;
            }
            /* A full region (an old tree's, say) is not searched again. */
            if (!taken_while_marking(&cursor))
                cursor.next_slot = cursor.taken == space->slot_count ? space->slot_count : 0;
            space->regions.items[kept++] = cursor;
        }
        space->regions.count = kept;
        space->current = 0;
    }
    return (typed_space_sweep){atomic_load_explicit(&sweep.young_bytes, memory_order_relaxed),
                               atomic_load_explicit(&sweep.promoted_bytes, memory_order_relaxed)};
}

void typed_space_forget_ages_from_stw(void)
{
    PTR_TABLE_FOR_EACH(entry, &spaces) {
        const typed_space *space = (const typed_space *)entry->value;
        for (size_t i = 0; i < space->regions.count; i++)
            memset(&corral_heap.age_bits[first_word_of(space->regions.items[i].region)], 0,
                   HEAP_WORDS_PER_REGION * sizeof(uint64_t));
    }
}

const char *typed_space_reference_problem(const void *reference)
{
    const corral_type *type = region_headerless_type(reference);
    size_t slot_bytes = granule_round_up(type->size);
    size_t offset = (size_t)((const char *)reference - heap_region_start(heap_region_index(reference)));
    if (offset % slot_bytes)
        return "not the start of a slot of its headerless region (an interior or stale "
               "reference, or a value that is not a reference)";
    if (offset + slot_bytes > HEAP_REGION_SIZE)
        return "past the last slot of its headerless region";
    const uint64_t *words = reference;
    for (size_t i = 0; i < slot_bytes / sizeof(uint64_t); i++)
        if (words[i] != CORRAL_POISON_PATTERN)
            return NULL;
    return "a free slot of a headerless region (poison pattern 0xbadc0ffee0ddf00d): a stale "
           "reference to an object that died";
}
