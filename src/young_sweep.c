/* young_sweep.c — the sweep of a minor collection (heap.h,
 * heap_sweep_young_from_stw): the young memory minus the objects marked in
 * it becomes the free ranges, and the survivors age.
 *
 * The young memory is of two kinds, both swept:
 *   FRESH  what was handed out since the last collection: [origin, start)
 *          of each free range;
 *   AGING  with CORRAL_GC_PROMOTE_AFTER=2, the spans the last minor
 *          collection left its young survivors in (from the first such
 *          object to the end of the last one, per piece), minus the FRESH
 *          parts inside them (holes between those survivors were handed out
 *          again).
 * Both are cut into pieces at region boundaries, in address order:
 *
 *   phase "sweep"     a worker lists the gaps between the marked objects that
 *                     start in its piece, and classifies the survivors: in a
 *                     FRESH piece each stays young (it ages) or becomes old;
 *                     in an AGING piece an aging object becomes old (it is
 *                     promoted) and an unaging marked one was old already.
 *   join              the collecting thread merges the gaps (trimmed where a
 *                     survivor of the piece before runs into them, and only
 *                     then poisoned: poison must never reach a survivor)
 *                     with the parts of the ranges never handed out.
 *   phase "age"       with aging: a FRESH piece's marks move to age_bits (its
 *                     survivors are young again for the next minor
 *                     collection); an AGING piece's age bits are cleared.
 *
 * An old object that holds an aging one must stay remembered:
 * remset_rescan_from_stw dirties again the cards the mark phase cleaned
 * whose slots hold aging objects. That covers objects promoted here too: a
 * reference from one to an object that was allocated after it aged was
 * stored since the last collection, through the barrier, so its card was
 * dirty and is among those.
 */
#include <stdlib.h>

#include "gc.h"
#include "fatal.h"
#include "heap.h"
#include "region_loop.h"
#include "vec.h"
#include "workers.h"

typedef enum piece_kind { PIECE_FRESH, PIECE_AGING } piece_kind;

typedef struct sweep_piece {
    char *start, *end;          /* within one region */
    piece_kind kind;
    bool keep_young;            /* FRESH: survivors age instead of becoming old */
    /* Written by the worker that sweeps the piece, read by the joining
     * thread and the later phases (the phases' ends order them). */
    VEC(heap_free_range) gaps;  /* between survivors, untrimmed, in address order */
    char *survivors_end;        /* end of the last survivor starting here, or NULL */
    char *young_start, *young_end; /* FRESH, aging: first survivor kept young, end of the last */
    size_t young_bytes;         /* FRESH: survivors kept young */
    size_t promoted_bytes;      /* survivors that became old here */
} sweep_piece;

typedef struct young_interval {
    char *start, *end;
    piece_kind kind;
} young_interval;

/* Memory [origin, end): [origin, start) handed out (young), the rest free. */
typedef struct young_range {
    char *origin, *start, *end;
} young_range;

/* Collector only, world stopped; kept across collections so their arrays
 * are reused. aging_spans and aging_bytes carry from one minor collection
 * to the next; a major collection empties them (heap_forget_ages_from_stw). */
static VEC(young_interval) intervals;
static VEC(sweep_piece) pieces;  /* count: this collection's pieces */
static size_t pieces_made;       /* items [0, pieces_made) were made and own their gaps arrays */
static VEC(heap_free_range) trimmed_gaps;
typedef VEC(young_range) young_ranges;
static young_ranges condemned;         /* see take_condemned */
static young_ranges free_parts;        /* the join's inputs and its result */
static young_ranges joined, merged;    /* the gaps, then the merges' results */
static VEC(heap_free_range) swept;     /* the result as free ranges and origins */
static VEC(char *) swept_origins;
/* While a concurrent collection marks: each condemned range's free part
 * trimmed to whole blocks (empty when none), whose blocks are in
 * new_blocks; the last is the memory past the fence, not in new_blocks. */
static VEC(heap_free_range) trimmed_free;
/* Headerless regions empty when marking began (their blocks are in
 * new_blocks too). Collector only, world stopped. */
static VEC(size_t) newborn_regions;
static VEC(heap_free_range) aging_spans; /* sorted, disjoint */
/* Bytes of the objects in them. Writer: the collector, world stopped.
 * Readers: the collector, and allocating threads on the slow path
 * (heap_aging_bytes), after the coordinator's release of the stopped
 * threads, which orders them after the write. */
static size_t aging_bytes;

static void add_interval(char *start, char *end, piece_kind kind)
{
    if (start < end)
        VEC_PUSH(intervals, ((young_interval){start, end, kind}));
}

/* The heap's free ranges as they are, into out. */
static void copy_heap_ranges(young_ranges *out)
{
    heap *h = &corral_heap;
    out->count = 0;
    for (size_t i = 0; i < h->range_count; i++)
        VEC_PUSH(*out, ((young_range){h->range_origins[i], h->ranges[i].start, h->ranges[i].end}));
}

/* The young memory a sweep covers, as the free ranges described it when
 * the collection began: [origin, start) of each was handed out since the
 * last collection, [start, end) was free. From the heap's ranges at the
 * sweep, or, for a concurrent collection, when it began marking. */
static void take_condemned(void)
{
    copy_heap_ranges(&condemned);
}

/* The FRESH parts of the condemned ranges and the aging spans outside them
 * (and outside the free parts, which hold no aging object, and, while a
 * concurrent collection marked, the memory it handed out), in address
 * order. The ranges are sorted, so are the spans. */
static void collect_intervals(void)
{
    intervals.count = 0;
    size_t a = 0;
    char *aging_from = NULL; /* aging memory below this is already taken */
    for (size_t i = 0; i <= condemned.count; i++) {
        bool sentinel = i == condemned.count;
        char *fresh_start = sentinel ? (char *)UINTPTR_MAX : condemned.items[i].origin;
        char *fresh_end = sentinel ? (char *)UINTPTR_MAX : condemned.items[i].start;
        for (; a < aging_spans.count; a++) {
            heap_free_range span = aging_spans.items[a];
            char *from = span.start > aging_from ? span.start : aging_from;
            if (from >= fresh_start)
                break;
            add_interval(from, span.end < fresh_start ? span.end : fresh_start, PIECE_AGING);
            if (span.end > fresh_start)
                break;
        }
        if (sentinel)
            break;
        add_interval(fresh_start, fresh_end, PIECE_FRESH);
        if (condemned.items[i].end > aging_from)
            aging_from = condemned.items[i].end;
        while (a < aging_spans.count && aging_spans.items[a].end <= aging_from)
            a++;
    }
}

/* Cuts every interval into pieces of at most a region. */
static void cut_pieces(bool keep_young)
{
    size_t count = 0;
    for (size_t i = 0; i < intervals.count; i++) {
        young_interval interval = intervals.items[i];
        for (char *from = interval.start; from < interval.end;) {
            char *next = heap_region_start(heap_region_index(from) + 1);
            if (next > interval.end)
                next = interval.end;
            /* Every piece ever made keeps its gaps array for reuse, also
             * beyond a smaller collection's count; only a new one starts
             * empty (zeroing a made one would leak its array). */
            VEC_RESERVE(pieces, count + 1);
            if (count == pieces_made)
                pieces.items[pieces_made++] = (sweep_piece){0};
            sweep_piece *piece = &pieces.items[count++];
            piece->start = from;
            piece->end = next;
            piece->kind = interval.kind;
            piece->keep_young = keep_young;
            from = next;
        }
    }
    pieces.count = count;
}

/* ----------------------------------------------------------- phase sweep */

/* One survivor of a piece: the gap before it, where it ends, and its age. */
static inline __attribute__((always_inline)) void add_survivor(size_t granule, void *context)
{
    sweep_piece *piece = context;
    char *object = heap_granule_address(granule);
    char *cursor = piece->survivors_end ? piece->survivors_end : piece->start;
    if (object > cursor)
        VEC_PUSH(piece->gaps, ((heap_free_range){cursor, object}));
    size_t size = object_size(object);
    piece->survivors_end = object + size;
    if (piece->kind == PIECE_AGING) {
        if (heap_bit(corral_heap.age_bits, granule))
            piece->promoted_bytes += size;
    } else if (piece->keep_young) {
        if (!piece->young_start)
            piece->young_start = object;
        piece->young_end = object + size;
        piece->young_bytes += size;
    } else {
        piece->promoted_bytes += size;
    }
}

static void sweep_piece_from_stw(sweep_piece *piece)
{
    piece->gaps.count = 0;
    piece->survivors_end = piece->young_start = piece->young_end = NULL;
    piece->young_bytes = piece->promoted_bytes = 0;
    heap_for_each_object_start(heap_granule_index(piece->start), heap_granule_index(piece->end),
                               add_survivor, piece);
    char *cursor = piece->survivors_end ? piece->survivors_end : piece->start;
    if (cursor < piece->end)
        VEC_PUSH(piece->gaps, ((heap_free_range){cursor, piece->end}));
}

static void sweep_pieces(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    (void)context;
    for (size_t i = first; i < end; i++)
        sweep_piece_from_stw(&pieces.items[i]);
}

/* ------------------------------------------------------------- phase age */

/* For the granules [first, end): moves start bits to age bits (FRESH) or
 * clears age bits (AGING). A word shared with a neighbouring piece is
 * changed atomically, since that piece's worker may be changing it too. */
static void age_granules(size_t first, size_t end, piece_kind kind)
{
    uint64_t *starts = corral_heap.start_bits, *ages = corral_heap.age_bits;
    for (size_t w = first >> 6; first < end && w <= (end - 1) >> 6; w++) {
        uint64_t mask = ~UINT64_C(0);
        if (w == first >> 6)
            mask &= ~UINT64_C(0) << (first & 63);
        if (w == (end - 1) >> 6)
            mask &= ~UINT64_C(0) >> (63 - ((end - 1) & 63));
        if (mask == ~UINT64_C(0)) {
            if (kind == PIECE_FRESH) {
                ages[w] |= starts[w];
                starts[w] = 0;
            } else {
                ages[w] = 0;
            }
            continue;
        }
        if (kind == PIECE_FRESH) {
            uint64_t moving = __atomic_load_n(&starts[w], __ATOMIC_RELAXED) & mask;
            __atomic_fetch_or(&ages[w], moving, __ATOMIC_RELAXED);
            __atomic_fetch_and(&starts[w], ~moving, __ATOMIC_RELAXED);
        } else {
            __atomic_fetch_and(&ages[w], ~mask, __ATOMIC_RELAXED);
        }
    }
}

static void age_pieces(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    (void)context;
    for (size_t i = first; i < end; i++) {
        sweep_piece *piece = &pieces.items[i];
        age_granules(heap_granule_index(piece->start), heap_granule_index(piece->end), piece->kind);
    }
}

/* -------------------------------------------------------------------- join */

/* The gaps of all pieces in address order, each trimmed where a survivor
 * of an earlier piece of the same stretch runs into it; poisons them. */
static void trim_gaps(bool poison)
{
    trimmed_gaps.count = 0;
    char *covered = NULL, *previous_end = NULL;
    for (size_t p = 0; p < pieces.count; p++) {
        sweep_piece *piece = &pieces.items[p];
        if (piece->start != previous_end)
            covered = piece->start; /* nothing runs into the first piece of a stretch */
        for (size_t g = 0; g < piece->gaps.count; g++) {
            heap_free_range gap = piece->gaps.items[g];
            if (gap.start < covered)
                gap.start = covered;
            if (gap.start >= gap.end)
                continue;
            if (poison)
                heap_poison_range(gap.start, gap.end);
            VEC_PUSH(trimmed_gaps, gap);
        }
        if (piece->survivors_end && piece->survivors_end > covered)
            covered = piece->survivors_end;
        previous_end = piece->end;
    }
}

/* Appends r to out in address order, joining a wholly free r with the
 * range before it when they touch or overlap. Only free memory overlaps. */
static void append_range(young_ranges *out, young_range r)
{
    if (r.start >= r.end && r.origin == r.start)
        return;
    young_range *last = out->count ? &out->items[out->count - 1] : NULL;
    if (last && r.origin == r.start && r.start <= last->end) {
        if (r.end > last->end)
            last->end = r.end;
        return;
    }
    CORRAL_CHECK(!last || r.origin >= last->end,
                 "minor sweep: memory [%p, %p) with young part up to %p overlaps the range "
                 "before it, which ends at %p",
                 (void *)r.origin, (void *)r.end, (void *)r.start, (void *)last->end);
    VEC_PUSH(*out, r);
}

/* out = a and b (each in address order) in address order. */
static void merge_ranges(young_ranges *out, const young_ranges *a, const young_ranges *b)
{
    out->count = 0;
    size_t i = 0, j = 0;
    while (i < a->count || j < b->count) {
        bool take_a =
            j == b->count || (i < a->count && a->items[i].origin <= b->items[j].origin);
        append_range(out, take_a ? a->items[i++] : b->items[j++]);
    }
}

/* The parts of the condemned ranges' free memory that no new range of a
 * concurrent collection took (its block-trimmed ends), in address order. */
static void collect_remnants(void)
{
    free_parts.count = 0;
    for (size_t i = 0; i < condemned.count && i < trimmed_free.count; i++) {
        young_range range = condemned.items[i];
        heap_free_range trimmed = trimmed_free.items[i];
        if (trimmed.start >= trimmed.end) {
            VEC_PUSH(free_parts, ((young_range){range.start, range.start, range.end}));
            continue;
        }
        VEC_PUSH(free_parts, ((young_range){range.start, range.start, trimmed.start}));
        VEC_PUSH(free_parts, ((young_range){trimmed.end, trimmed.end, range.end}));
    }
}

/* The new free ranges: the trimmed gaps, and what was free when the
 * collection began: the condemned ranges' free parts, or, after concurrent
 * marking, today's ranges (their memory handed out meanwhile stays young:
 * none of it was swept) and what those left of the condemned free parts.
 * A wholly free range too small to be worth a TLAB waits for a later sweep,
 * except the last, which runs to the end of the reservation. */
static void join(void)
{
    heap *h = &corral_heap;
    joined.count = 0;
    for (size_t g = 0; g < trimmed_gaps.count; g++)
        VEC_PUSH(joined, ((young_range){trimmed_gaps.items[g].start, trimmed_gaps.items[g].start,
                                        trimmed_gaps.items[g].end}));
    const young_ranges *result;
    if (h->marking_fence) {
        collect_remnants();
        merge_ranges(&merged, &joined, &free_parts); /* gaps and remnants */
        copy_heap_ranges(&free_parts);
        merge_ranges(&joined, &merged, &free_parts);
        result = &joined;
    } else {
        free_parts.count = 0;
        for (size_t i = 0; i < condemned.count; i++)
            VEC_PUSH(free_parts, ((young_range){condemned.items[i].start, condemned.items[i].start,
                                                condemned.items[i].end}));
        merge_ranges(&merged, &joined, &free_parts);
        result = &merged;
    }
    swept.count = swept_origins.count = 0;
    for (size_t i = 0; i < result->count; i++) {
        young_range range = result->items[i];
        bool last = i == result->count - 1;
        if (!last && range.origin == range.start &&
            (size_t)(range.end - range.start) < HEAP_MIN_HOLE)
            continue;
        VEC_PUSH(swept, ((heap_free_range){range.start, range.end}));
        VEC_PUSH(swept_origins, range.origin);
    }
    /* The last range marks the top: an empty one when the heap is full. */
    if (!swept.count || swept.items[swept.count - 1].end != h->end) {
        VEC_PUSH(swept, ((heap_free_range){h->end, h->end}));
        VEC_PUSH(swept_origins, h->end);
    }
}

/* Sets (or clears) the new_blocks bits of the whole blocks [start, end).
 * Atomic: a region given out while marking sets them as the marker reads. */
static void mark_new_blocks(char *start, char *end, bool set)
{
    uint64_t *bits = corral_heap.new_blocks;
    size_t first = (size_t)(start - corral_heap.base) / HEAP_BLOCK_SIZE;
    size_t last = (size_t)(end - corral_heap.base) / HEAP_BLOCK_SIZE;
    for (size_t b = first; b < last;) {
        uint64_t mask = ~UINT64_C(0);
        size_t next = (b | 63) + 1;
        if (next > last) {
            mask = (UINT64_C(1) << (last - b)) - 1;
            next = last;
        }
        mask <<= b & 63;
        if (set)
            __atomic_fetch_or(&bits[b >> 6], mask, __ATOMIC_RELAXED);
        else
            __atomic_fetch_and(&bits[b >> 6], ~mask, __ATOMIC_RELAXED);
        b = next;
    }
}

void heap_note_newborn_region_from_stw(size_t region)
{
    mark_new_blocks(heap_region_start(region), heap_region_start(region + 1), true);
    VEC_PUSH(newborn_regions, region);
}

void heap_begin_marking_from_stw(void)
{
    heap *h = &corral_heap;
    take_condemned();
    size_t last = h->range_count - 1;
    CORRAL_CHECK(h->ranges[last].start == h->top,
                 "the last free range starts at %p, not at the top %p",
                 (void *)h->ranges[last].start, (void *)h->top);
    trimmed_free.count = swept.count = 0;
    for (size_t i = 0; i < last; i++) {
        uintptr_t block = HEAP_BLOCK_SIZE;
        char *start = (char *)(((uintptr_t)h->ranges[i].start + block - 1) & ~(block - 1));
        char *end = (char *)((uintptr_t)h->ranges[i].end & ~(block - 1));
        if (start >= end) {
            VEC_PUSH(trimmed_free, ((heap_free_range){start, start}));
            continue;
        }
        mark_new_blocks(start, end, true);
        VEC_PUSH(trimmed_free, ((heap_free_range){start, end}));
        VEC_PUSH(swept, ((heap_free_range){start, end}));
    }
    VEC_PUSH(swept, h->ranges[last]);
    h->marking_fence = h->top;
    heap_reset_free_ranges_from_stw(swept.items, NULL, swept.count);
}

void heap_end_marking_from_stw(void)
{
    heap *h = &corral_heap;
    for (size_t i = 0; i < trimmed_free.count; i++)
        mark_new_blocks(trimmed_free.items[i].start, trimmed_free.items[i].end, false);
    trimmed_free.count = 0;
    for (size_t i = 0; i < newborn_regions.count; i++)
        mark_new_blocks(heap_region_start(newborn_regions.items[i]),
                        heap_region_start(newborn_regions.items[i] + 1), false);
    newborn_regions.count = 0;
    h->marking_fence = NULL;
}

size_t heap_sweep_young_from_stw(bool poison, bool keep_young, size_t survivor_bytes,
                                 size_t typed_young_bytes, gc_phase_stats *stats)
{
    heap *h = &corral_heap;
    if (!h->marking_fence)
        take_condemned();
    collect_intervals();
    cut_pieces(keep_young);
    region_loop_run("sweep", pieces.count, sweep_pieces, NULL, stats);
    trim_gaps(poison);
    join();
    heap_reset_free_ranges_from_stw(swept.items, swept_origins.items, swept.count);
    if (h->marking_fence)
        heap_end_marking_from_stw();
    size_t promoted = 0, young = 0;
    aging_spans.count = 0;
    for (size_t p = 0; p < pieces.count; p++) {
        sweep_piece *piece = &pieces.items[p];
        promoted += piece->promoted_bytes;
        young += piece->young_bytes;
        if (piece->young_start)
            VEC_PUSH(aging_spans, ((heap_free_range){piece->young_start, piece->young_end}));
    }
    if (keep_young)
        region_loop_run("age", pieces.count, age_pieces, NULL, stats);
    /* The objects that were aging are counted again among the survivors. */
    h->live_after_gc = h->live_after_gc - aging_bytes + survivor_bytes;
    aging_bytes = young + typed_young_bytes;
    return promoted;
}

size_t heap_aging_bytes(void)
{
    return aging_bytes;
}

void heap_forget_ages_from_stw(void)
{
    for (size_t i = 0; i < aging_spans.count; i++) {
        heap_free_range span = aging_spans.items[i];
        age_granules(heap_granule_index(span.start), heap_granule_index(span.end), PIECE_AGING);
    }
    aging_spans.count = 0;
    aging_bytes = 0;
}
