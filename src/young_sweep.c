/* young_sweep.c — the sweep of a minor collection (heap.h,
 * heap_sweep_young_from_stw): the memory handed out since the last
 * collection, minus the objects marked in it, becomes the free ranges.
 *
 * The handed-out part of each free range is cut into pieces at region
 * boundaries, swept in parallel: a worker lists the gaps between the
 * survivors that start in its piece, and the end of the last of them.
 * The collecting thread then joins the pieces in address order: a gap is
 * trimmed where a survivor from an earlier piece runs into it, and only then
 * poisoned (poison must never reach a survivor). */
#include <stdlib.h>

#include "fatal.h"
#include "gc.h"
#include "heap.h"
#include "vec.h"
#include "workers.h"

typedef struct sweep_piece {
    char *start, *end;           /* part of the handed-out memory of one range */
    /* Written by the worker that sweeps the piece, read by the joining
     * thread after the phase (the phase's end orders them). */
    VEC(heap_free_range) gaps;   /* between survivors, untrimmed, in address order */
    char *survivors_end;         /* end of the last survivor starting here, or NULL */
} sweep_piece;

/* Collector only; kept across collections so their arrays are reused. */
static VEC(sweep_piece) pieces;
static VEC(size_t) first_piece_of_range; /* range i's pieces: [first[i], first[i + 1]) */
static VEC(heap_free_range) swept;

/* One survivor of a piece: the gap before it, and where it ends. */
static inline __attribute__((always_inline)) void add_survivor(size_t granule, void *context)
{
    sweep_piece *piece = context;
    char *object = heap_granule_address(granule);
    char *cursor = piece->survivors_end ? piece->survivors_end : piece->start;
    if (object > cursor)
        VEC_PUSH(piece->gaps, ((heap_free_range){cursor, object}));
    piece->survivors_end = object + object_size(object);
}

static void sweep_piece_from_stw(sweep_piece *piece)
{
    piece->gaps.count = 0;
    piece->survivors_end = NULL;
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

static void sweep_phase(unsigned worker, void *context)
{
    gc_parallel_for(context, worker, sweep_pieces, NULL);
}

/* Adds a free range of the join unless it is too small to be worth a TLAB
 * (it then waits for the next major collection); the last range is kept
 * whatever its size, since it runs to the end of the reservation. Poisons
 * only what was handed out: the rest is untouched. */
static void add_free(heap_free_range free, char *handed_out_end, bool keep, bool poison)
{
    if (free.start == free.end || (!keep && (size_t)(free.end - free.start) < HEAP_MIN_HOLE))
        return;
    if (poison && free.start < handed_out_end)
        heap_poison_range(free.start, free.end < handed_out_end ? free.end : handed_out_end);
    VEC_PUSH(swept, free);
}

/* Cuts the handed-out part of every range into pieces of at most a region. */
static void cut_pieces(void)
{
    heap *h = &corral_heap;
    size_t count = 0;
    first_piece_of_range.count = 0;
    for (size_t i = 0; i < h->range_count; i++) {
        VEC_PUSH(first_piece_of_range, count);
        char *from = h->range_origins[i], *to = h->ranges[i].start;
        while (from < to) {
            char *next = heap_region_start(heap_region_index(from) + 1);
            if (next > to)
                next = to;
            /* Pieces beyond the last collection's count are new; earlier
             * ones keep their gap arrays for reuse. */
            VEC_RESERVE(pieces, count + 1);
            if (count == pieces.count)
                pieces.items[pieces.count++] = (sweep_piece){0};
            pieces.items[count].start = from;
            pieces.items[count].end = next;
            count++;
            from = next;
        }
    }
    VEC_PUSH(first_piece_of_range, count);
}

void heap_sweep_young_from_stw(bool poison, size_t survivor_bytes)
{
    heap *h = &corral_heap;
    cut_pieces();
    size_t piece_count = first_piece_of_range.items[h->range_count];
    gc_parallel_range claims;
    gc_parallel_range_init(&claims, piece_count, 1);
    gc_phase_stats ignored = {0};
    gc_workers_run("sweep", sweep_phase, &claims, &ignored);
    swept.count = 0;
    for (size_t i = 0; i < h->range_count; i++) {
        heap_free_range *range = &h->ranges[i];
        bool last = i == h->range_count - 1;
        char *covered = h->range_origins[i]; /* survivors of earlier pieces end here */
        heap_free_range pending = {covered, covered};
        for (size_t p = first_piece_of_range.items[i]; p < first_piece_of_range.items[i + 1];
             p++) {
            sweep_piece *piece = &pieces.items[p];
            for (size_t g = 0; g < piece->gaps.count; g++) {
                heap_free_range gap = piece->gaps.items[g];
                if (gap.start < covered)
                    gap.start = covered;
                if (gap.start >= gap.end)
                    continue;
                if (gap.start == pending.end) {
                    pending.end = gap.end; /* continues across a piece boundary */
                } else {
                    add_free(pending, range->start, false, poison);
                    pending = gap;
                }
            }
            if (piece->survivors_end && piece->survivors_end > covered)
                covered = piece->survivors_end;
        }
        /* The part never handed out joins the gap before it. */
        if (pending.end == range->start) {
            pending.end = range->end;
        } else {
            add_free(pending, range->start, false, poison);
            pending = (heap_free_range){range->start, range->end};
        }
        add_free(pending, range->start, last, poison);
    }
    heap_reset_free_ranges_from_stw(swept.items, swept.count);
    h->live_after_gc += survivor_bytes;
}
