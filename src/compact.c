/* compact.c — sliding compaction in parallel (Compressor-style forwarding,
 * region fills ordered by dependency counts as in HotSpot's ParallelGC).
 *
 * Plan. Regions holding a pinned object, and the dense prefix (leading
 * regions at least CORRAL_DENSE_PREFIX% live), stay where they are; so does
 * any region an object straddles into or out of such a region. The moving
 * regions between them form compaction spaces; each space slides its live
 * data to its own start, in address order. A region's destination is the
 * prefix sum of live bytes before it in its space; block_dest then gives
 * every object's new address from the bitmap alone (heap.h). Under
 * CORRAL_GC_STRESS=quarantine the moving regions instead go, in address
 * order, to a run of fresh regions, and are quarantined whole (quarantine.h).
 * What the later phases need of the plan is a compact_plan (compact.h),
 * which the collecting thread passes to each; the per-region part is in
 * heap_region, the forwarding in the heap's bitmaps.
 *
 * Update. With forwarding known and nothing moved yet, every reference is
 * rewritten in place: stack slots, handles, globals, weak handles, and the
 * fields of every live heap and large object. Sliding is then a pure copy of
 * live granules, which may split an object across two destination regions.
 *
 * Slide. fill(D) copies every live granule whose destination lies in region
 * D. It overwrites D's old contents, so it may start only when the data of D
 * that goes to *other* regions has been copied: pending_readers(D) counts
 * those regions, and each finished fill(E) decrements the count of every
 * source it read; the fill that reaches zero makes D ready. Data only moves
 * to lower addresses, so every dependency points to a lower region and the
 * schedule cannot deadlock. The longest chain of dependent fills is the span.
 *
 *   fill(E) done ──> pending_readers(S)-- for each source S != E
 *                        └─ reaches 0 and S is a destination ──> ready(S)
 */
#include "compact.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "call_pins.h"
#include "config.h"
#include "coordinator.h"
#include "arch.h"
#include "fatal.h"
#include "gc.h"
#include "generation.h"
#include "heap.h"
#include "los.h"
#include "mark.h"
#include "object.h"
#include "quarantine.h"
#include "region_loop.h"
#include "roots.h"
#include "thread.h"
#include "vec.h"
#include "walker.h"
#include "workers.h"

static size_t words_of_region(size_t region)
{
    return region * HEAP_WORDS_PER_REGION;
}

/* Calls fn(granule, context) for every marked object that starts in region r. */
static inline __attribute__((always_inline)) void
for_each_object_start(size_t r, void (*fn)(size_t granule, void *context), void *context)
{
    heap_for_each_object_start(r * HEAP_GRANULES_PER_REGION, (r + 1) * HEAP_GRANULES_PER_REGION,
                               fn, context);
}

/* -------------------------------------------------------------- plan */

/* A region's plan fields as a cycle starts them. */
static void reset_region_plan(heap_region *region, uint32_t live_granules, bool moves)
{
    region->live_granules = live_granules;
    region->moves = moves;
    region->has_pinned = 0;
    region->is_destination = 0;
    region->first_source = UINT32_MAX;
    region->last_source = 0;
    atomic_store_explicit(&region->pending_readers, 0, memory_order_relaxed);
    atomic_store_explicit(&region->ready_after_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&region->chain_length, 0, memory_order_relaxed);
}

static void reset_region(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    (void)context;
    /* Granules of objects starting here: right for the density test; exact
     * per-region counts for moving regions come from live bits. */
    for (size_t r = first; r < end; r++)
        reset_region_plan(&corral_heap.regions[r], mark_region_live_granules(r), true);
}

/* Builds the live bits of region r from its start bits and object sizes.
 *
 * Objects are visited in address order, so each bitmap word's bits are
 * gathered locally and written once. Two kinds of word can be shared with
 * another plan worker, and only those are written atomically:
 *   - the first word this region writes: the tail of an object spilling in
 *     from region r - 1 (set by that region's worker) may end in it;
 *   - words past this region's end: this region's last object spilling out,
 *     whose last word holds region r + 1's first object start.
 * Every other word lies inside this region and holds only granules of
 * objects that start here, so no other worker writes it. */
typedef struct live_word_writer {
    size_t region, end_word;
    size_t word;        /* word being gathered, SIZE_MAX: none */
    uint64_t bits;
    bool wrote_any;     /* false until the region's first word is written */
} live_word_writer;

static void live_word_flush(live_word_writer *writer)
{
    if (writer->word == SIZE_MAX)
        return;
    uint64_t *slot = &corral_heap.live_bits[writer->word];
    if (!writer->wrote_any || writer->word >= writer->end_word) {
        atomic_fetch_or_explicit((_Atomic uint64_t *)slot, writer->bits, memory_order_relaxed);
        if (writer->word >= writer->end_word)
            atomic_store_explicit(&corral_heap.regions[writer->region + 1].live_bits_dirty, 1,
                                  memory_order_relaxed);
    } else {
        *slot |= writer->bits;
    }
    writer->wrote_any = true;
    writer->word = SIZE_MAX;
    writer->bits = 0;
}

static void live_word_add(live_word_writer *writer, size_t first, size_t count)
{
    size_t last = first + count - 1;
    for (size_t w = first >> 6; w <= last >> 6; w++) {
        uint64_t mask = ~UINT64_C(0);
        if (w == first >> 6)
            mask &= ~UINT64_C(0) << (first & 63);
        if (w == last >> 6)
            mask &= ~UINT64_C(0) >> (63 - (last & 63));
        if (w != writer->word) {
            live_word_flush(writer);
            writer->word = w;
        }
        writer->bits |= mask;
    }
}

static inline __attribute__((always_inline)) void add_object_live_bits(size_t granule,
                                                                       void *context)
{
    live_word_add(context, granule, object_size(heap_granule_address(granule)) / CORRAL_GRANULE);
}

/* Live bits for the regions that move. Headers are read in address order,
 * so the hardware prefetcher streams them. */
static void build_live_bits(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    (void)context;
    for (size_t r = first; r < end; r++) {
        if (!corral_heap.regions[r].moves || !corral_heap.regions[r].live_granules)
            continue;
        atomic_store_explicit(&corral_heap.regions[r].live_bits_dirty, 1, memory_order_relaxed);
        live_word_writer writer = {r, words_of_region(r + 1), SIZE_MAX, 0, false};
        for_each_object_start(r, add_object_live_bits, &writer);
        live_word_flush(&writer);
    }
}

/* Exact live granules of each moving region, from its live bits. */
static void count_live_bits(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    (void)context;
    for (size_t r = first; r < end; r++) {
        heap_region *region = &corral_heap.regions[r];
        if (!region->moves)
            continue;
        const uint64_t *live = &corral_heap.live_bits[words_of_region(r)];
        uint32_t granules = 0;
        for (size_t w = 0; w < HEAP_WORDS_PER_REGION; w++)
            granules += (uint32_t)__builtin_popcountll(live[w]);
        region->live_granules = granules;
    }
}

/* A block's live granules stay put when they form one run that starts at
 * the block's destination. */
static bool block_stays(size_t word_index, uint64_t live, uint32_t destination)
{
    if (!live)
        return true;
    unsigned first = (unsigned)__builtin_ctzll(live);
    uint64_t run = live >> first;
    return (run & (run + 1)) == 0 && destination == word_index * 64 + first;
}

/* context: the plan, whose any_block_moves this sets. */
static void compute_block_destinations(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    compact_plan *plan = context;
    bool moves = false;
    for (size_t r = first; r < end; r++) {
        heap_region *region = &corral_heap.regions[r];
        if (!region->moves || !region->live_granules)
            continue;
        uint32_t destination = region->dest_granule;
        size_t base_word = words_of_region(r);
        for (size_t w = base_word; w < base_word + HEAP_WORDS_PER_REGION; w++) {
            uint64_t live = corral_heap.live_bits[w];
            corral_heap.block_dest[w] = destination;
            moves |= !block_stays(w, live, destination);
            destination += (uint32_t)__builtin_popcountll(live);
        }
    }
    if (moves)
        atomic_store_explicit(&plan->any_block_moves, true, memory_order_relaxed);
}

static void note_pinned(void *object, void *context)
{
    (void)context;
    if (heap_contains(object))
        corral_heap.regions[heap_region_index(object)].has_pinned = 1;
}

/* The start granule of the last marked object starting in region r, or
 * SIZE_MAX when none does. */
static size_t last_object_start(size_t r)
{
    size_t base_word = words_of_region(r);
    for (size_t w = base_word + HEAP_WORDS_PER_REGION; w-- > base_word;) {
        uint64_t starts = corral_heap.start_bits[w];
        if (starts)
            return w * 64 + 63 - (size_t)__builtin_clzll(starts);
    }
    return SIZE_MAX;
}

/* True when a marked object crosses the boundary at the start of region r.
 * Objects are smaller than a region, so only the last object starting in
 * region r - 1 can. */
static bool object_straddles_into(size_t r)
{
    if (r == 0)
        return false;
    size_t start = last_object_start(r - 1);
    if (start == SIZE_MAX)
        return false;
    size_t end = start + object_size(heap_granule_address(start)) / CORRAL_GRANULE;
    return end > r * HEAP_GRANULES_PER_REGION;
}

/* Moving even a few objects costs a pass over every live object to update
 * the references to them. When the regions that would move hold so little
 * live data that leaving them in place wastes less than 1/16 of the live
 * heap, leave them: the next collection finds them mostly dead (typically
 * the objects a mutator was building when this one ran) and frees them. */
static void keep_sparse_regions_in_place(const compact_plan *plan, heap_region *regions)
{
    size_t used_regions = plan->used_regions;
    if (corral_runtime_config.stress_move_all)
        return;
    uint64_t live_granules = 0, waste_granules = 0;
    for (size_t r = 0; r < used_regions; r++) {
        live_granules += regions[r].live_granules;
        if (regions[r].moves && regions[r].live_granules)
            waste_granules += HEAP_GRANULES_PER_REGION - regions[r].live_granules;
    }
    if (waste_granules == 0 || waste_granules * 16 > live_granules)
        return;
    for (size_t r = 0; r < used_regions; r++)
        if (regions[r].live_granules)
            regions[r].moves = 0;
}

static void decide_moving_regions(const compact_plan *plan, const stop_report *stop)
{
    size_t used_regions = plan->used_regions;
    heap_region *regions = corral_heap.regions;
    roots_for_each_pinned_from_stw(note_pinned, NULL);
    call_pins_for_each_from_stw(stop, note_pinned, NULL);
    /* Headerless objects have no header to find their type by elsewhere. */
    for (size_t r = 0; r < used_regions; r++)
        regions[r].moves = !regions[r].has_pinned && !corral_region_types.types[r];
    unsigned dense = corral_runtime_config.dense_prefix;
    if (dense && !corral_runtime_config.stress_move_all) {
        for (size_t r = 0; r < used_regions; r++) {
            uint64_t full = (uint64_t)HEAP_GRANULES_PER_REGION * dense;
            if ((uint64_t)regions[r].live_granules * 100 < full)
                break;
            regions[r].moves = 0;
        }
    }
    keep_sparse_regions_in_place(plan, regions);
    /* Quarantined and just-released regions hold no objects: nothing to move. */
    if (quarantine_collections())
        for (size_t r = 0; r < used_regions; r++)
            if (quarantine_region_held(r) || quarantine_region_just_released(r))
                regions[r].moves = 0;
    /* An object straddling between a region that stays and one that moves
     * would be torn apart: make both stay, until nothing changes. */
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t r = 1; r < used_regions; r++) {
            if (regions[r - 1].moves == regions[r].moves || !object_straddles_into(r))
                continue;
            regions[r - 1].moves = regions[r].moves = 0;
            changed = true;
        }
    }
    for (size_t r = 0; r < used_regions; r++)
        corral_heap.region_moves[r] = regions[r].moves;
}

static void add_free_range(compact_plan *plan, char *start, char *end, bool keep_empty)
{
    if (start >= end && !keep_empty)
        return;
    VEC_PUSH(plan->free_ranges, ((heap_free_range){start, end}));
}

/* Destinations by prefix sums over each compaction space, and the free
 * ranges that remain after sliding. */
static void assign_destinations(compact_plan *plan)
{
    heap_region *regions = corral_heap.regions;
    plan->free_ranges.count = 0;
    char *cursor = corral_heap.base;
    for (size_t r = 0; r < plan->used_regions; r++) {
        if (!regions[r].moves) {
            add_free_range(plan, cursor, heap_region_start(r), false);
            cursor = heap_region_start(r + 1);
            continue;
        }
        regions[r].dest_granule = (uint32_t)heap_granule_index(cursor);
        cursor += (size_t)regions[r].live_granules * CORRAL_GRANULE;
    }
    /* The last range runs to the end of the reservation (later regions are
     * free); it is kept even when empty, since it marks the heap's top. */
    add_free_range(plan, cursor, corral_heap.end, true);
}

/* A region live data may be evacuated into under quarantine: never used
 * (above the old top) or released at the start of this cycle. */
static bool region_is_fresh(const compact_plan *plan, size_t r)
{
    if (r >= plan->source_regions)
        return !quarantine_region_held(r);
    return quarantine_region_just_released(r);
}

/* Destinations under quarantine: the live data of all moving regions goes,
 * in address order, to the lowest run of fresh regions that holds it, so
 * every moving region is vacated whole (quarantine.h says why whole
 * regions). Data may move up; no fill then overwrites a region another fill
 * reads, since no source is a destination. False when the reservation has
 * no such run: this cycle compacts normally and quarantines nothing. */
static bool assign_destinations_quarantined(compact_plan *plan)
{
    heap_region *regions = corral_heap.regions;
    uint64_t live_granules = 0;
    for (size_t r = 0; r < plan->used_regions; r++)
        if (regions[r].moves)
            live_granules += regions[r].live_granules;
    size_t needed = (size_t)((live_granules * CORRAL_GRANULE + HEAP_REGION_SIZE - 1) >>
                             HEAP_REGION_SHIFT);
    size_t first = 0, run = 0;
    for (size_t r = 0; r < corral_heap.region_count && run < needed; r++) {
        if (!region_is_fresh(plan, r)) {
            run = 0;
            continue;
        }
        if (run++ == 0)
            first = r;
    }
    if (run < needed)
        return false;
    size_t dest_end = first + needed;
    for (size_t r = plan->used_regions; r < dest_end; r++)
        reset_region_plan(&corral_heap.regions[r], 0, false);
    if (dest_end > plan->used_regions)
        plan->used_regions = dest_end;
    char *cursor = heap_region_start(first);
    for (size_t r = 0; r < plan->source_regions; r++) {
        if (!regions[r].moves)
            continue;
        regions[r].dest_granule = (uint32_t)heap_granule_index(cursor);
        cursor += (size_t)regions[r].live_granules * CORRAL_GRANULE;
    }
    /* Free: fresh regions outside the destinations and the tail of the last
     * destination. Moving regions (about to be quarantined), held regions
     * and regions that stay are not. */
    plan->free_ranges.count = 0;
    char *free_start = corral_heap.base;
    for (size_t r = 0; r < plan->used_regions; r++) {
        bool destination = needed && r >= first && r < dest_end;
        if (!destination && region_is_fresh(plan, r))
            continue;
        add_free_range(plan, free_start, heap_region_start(r), false);
        free_start = destination && r + 1 == dest_end ? cursor : heap_region_start(r + 1);
    }
    add_free_range(plan, free_start, corral_heap.end, true);
    return true;
}

/* Which regions each region's data lands in; pending_readers counts the
 * other regions that will read it. */
static void link_sources_to_destinations(const compact_plan *plan)
{
    heap_region *regions = corral_heap.regions;
    for (size_t s = 0; s < plan->used_regions; s++) {
        if (!regions[s].moves || !regions[s].live_granules)
            continue;
        size_t first_granule = regions[s].dest_granule;
        size_t last_granule = first_granule + regions[s].live_granules - 1;
        size_t first = first_granule / HEAP_GRANULES_PER_REGION;
        size_t last = last_granule / HEAP_GRANULES_PER_REGION;
        for (size_t d = first; d <= last; d++) {
            regions[d].is_destination = 1;
            if (s < regions[d].first_source)
                regions[d].first_source = (uint32_t)s;
            if (s > regions[d].last_source)
                regions[d].last_source = (uint32_t)s;
            if (d != s)
                atomic_fetch_add_explicit(&regions[s].pending_readers, 1, memory_order_relaxed);
        }
    }
}

void compact_plan_from_stw(gc_cycle *cycle, compact_plan *plan)
{
    *plan = (compact_plan){.old_top = corral_heap.top};
    plan->used_regions = corral_heap.top > corral_heap.base
                             ? heap_region_index(corral_heap.top - 1) + 1
                             : 0;
    gc_phase_stats *stats = &cycle->phases[GC_PHASE_PLAN];
    stats->name = "plan";
    uint64_t start = gc_workers_now_ns();
    atomic_store_explicit(&plan->any_block_moves, false, memory_order_relaxed);
    plan->source_regions = plan->used_regions;
    plan->quarantining = false;
    if (quarantine_collections())
        quarantine_release_from_stw(cycle->number);
    region_loop_run("reset", plan->used_regions, reset_region, NULL, stats);
    decide_moving_regions(plan, cycle->stop);
    region_loop_run("live-bits", plan->used_regions, build_live_bits, NULL, stats);
    region_loop_run("count", plan->used_regions, count_live_bits, NULL, stats);
    if (quarantine_collections())
        plan->quarantining = assign_destinations_quarantined(plan);
    if (!plan->quarantining)
        assign_destinations(plan);
    link_sources_to_destinations(plan);
    region_loop_run("forwarding", plan->used_regions, compute_block_destinations, plan, stats);
    gc_phase_stats_close(stats, start);
}

const char *compact_plan_check(const compact_plan *plan)
{
    const heap *h = &corral_heap;
    if (plan->old_top < h->base || plan->old_top > h->end)
        return "the plan's old heap top lies outside the reservation";
    size_t below_top = plan->old_top > h->base ? heap_region_index(plan->old_top - 1) + 1 : 0;
    if (plan->source_regions != below_top)
        return "the plan's source regions are not the regions below the old heap top";
    if (plan->used_regions < plan->source_regions || plan->used_regions > h->region_count)
        return "the plan's used regions are fewer than its sources or more than the heap has";
    if (!plan->quarantining && plan->used_regions != plan->source_regions)
        return "the plan uses regions above the old heap top without quarantining";
    size_t count = plan->free_ranges.count;
    const heap_free_range *ranges = plan->free_ranges.items;
    if (!count || ranges[count - 1].end != h->end)
        return "the plan's last free range does not run to the end of the reservation";
    for (size_t i = 0; i < count; i++) {
        if (ranges[i].start < h->base || ranges[i].start > ranges[i].end)
            return "a free range of the plan is empty backwards or starts below the heap";
        if (i && ranges[i].start < ranges[i - 1].end)
            return "the plan's free ranges overlap or are out of address order";
    }
    return NULL;
}

/* Debug builds check the plan as each later phase starts. */
static void check_plan(const gc_cycle *cycle, const compact_plan *plan, const char *phase)
{
#ifdef CORRAL_DEBUG_CHECKS
    const char *problem = compact_plan_check(plan);
    if (problem)
        CORRAL_FATAL("compaction plan of gc %" PRIu64 " at the %s phase: %s (used regions "
                     "%zu, source regions %zu, %zu free ranges, quarantining %d)",
                     cycle->number, phase, problem, plan->used_regions, plan->source_regions,
                     plan->free_ranges.count, plan->quarantining);
#else
    (void)cycle;
    (void)plan;
    (void)phase;
#endif
}

/* ------------------------------------------------------------- update */

/* A stack root's word: a reference relocated with its tag kept; an
 * immediate or null as it is (tagged.h). */
static void *forward_root(void *word)
{
    uintptr_t tag = tagged_classify((uintptr_t)word);
    if (tag >= TAGGED_SKIP)
        return word;
    return (void *)((uintptr_t)heap_forward((void *)((uintptr_t)word - tag)) + tag);
}

/* Writes only references that change: most point to objects that stay.
 * Inlined into the slot walk, where plain slots pass tag 0. */
static inline __attribute__((always_inline)) void forward_tagged_slot(void **slot, uintptr_t tag,
                                                                      void *context)
{
    (void)context;
    void *old = object_slot_target(slot, tag);
    if (!old)
        return;
    void *moved = heap_forward(old);
    if (moved != old)
        object_slot_retarget(slot, moved, tag);
}

/* A plain reference slot a trace hook hands over. */
static inline __attribute__((always_inline)) void forward_slot(void **slot, void *context)
{
    forward_tagged_slot(slot, 0, context);
}

/* Rewrites the references an object holds. Out of line: inlined into the
 * region loop below, its registers spill around every object (measured
 * 10% slower on corral-fullgc's update phase). */
static __attribute__((noinline)) void update_object(void *object)
{
    object_visit_slots(object, forward_tagged_slot, forward_slot, NULL);
}

static inline __attribute__((always_inline)) void update_object_at(size_t granule,
                                                                   void *context)
{
    (void)context;
    update_object(heap_granule_address(granule));
}

/* Every object that starts in these regions. */
static void update_regions(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    (void)context;
    for (size_t r = first; r < end; r++)
        if (corral_heap.regions[r].live_granules)
            for_each_object_start(r, update_object_at, NULL);
}

typedef struct update_context {
    stop_report *stop;
    gc_parallel_range threads, regions, large;
    los_object **large_objects;
} update_context;

static void update_thread_roots(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    update_context *update = context;
    for (size_t i = first; i < end; i++) {
        corral_thread *thread = update->stop->threads[i];
        walker_update_roots_from_stw(thread, forward_root);
        roots_visit_handles_from_stw(thread, forward_tagged_slot, NULL);
    }
}

static void update_large_objects(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    update_context *update = context;
    for (size_t i = first; i < end; i++)
        update_object(los_payload(update->large_objects[i]));
}

static void update_phase(unsigned worker, void *context)
{
    update_context *update = context;
    gc_parallel_for(&update->threads, worker, update_thread_roots, update);
    if (worker == 0)
        roots_visit_globals_from_stw(forward_tagged_slot, NULL);
    gc_parallel_for(&update->regions, worker, update_regions, update);
    gc_parallel_for(&update->large, worker, update_large_objects, update);
}

void compact_update_from_stw(gc_cycle *cycle, const compact_plan *plan)
{
    check_plan(cycle, plan, "update");
    cycle->phases[GC_PHASE_UPDATE].name = "update";
    /* Nothing moves (all live data stays, e.g. in the dense prefix): every
     * reference is already right, so skip a pass over the whole heap. */
    if (!atomic_load_explicit(&plan->any_block_moves, memory_order_relaxed))
        return;
    update_context update = {.stop = cycle->stop};
    size_t large_count;
    update.large_objects = los_snapshot_from_stw(&large_count);
    gc_parallel_range_init(&update.threads, cycle->stop->thread_count, 1);
    gc_parallel_range_init(&update.regions, plan->used_regions, 1);
    gc_parallel_range_init(&update.large, large_count, 0);
    gc_workers_run("update", update_phase, &update, &cycle->phases[GC_PHASE_UPDATE]);
    roots_forward_weak_from_stw(heap_forward);
    roots_forward_finalizable_from_stw(heap_forward);
}

/* -------------------------------------------------------------- slide */

/* Regions whose fill may start. Writers/readers: slide workers under
 * ready_lock; remaining_fills is decremented (acq_rel) as fills finish. */
typedef struct slide_context {
    pthread_mutex_t ready_lock;
    uint32_t *ready;
    size_t ready_count;
    _Atomic size_t remaining_fills;
    _Atomic uint64_t moved_bytes;
    _Atomic uint64_t longest_chain_ns;
    _Atomic uint32_t longest_chain_length;
} slide_context;

static void push_ready(slide_context *slide, size_t region)
{
    pthread_mutex_lock(&slide->ready_lock);
    slide->ready[slide->ready_count++] = (uint32_t)region;
    pthread_mutex_unlock(&slide->ready_lock);
}

static bool pop_ready(slide_context *slide, size_t *region)
{
    bool found = false;
    pthread_mutex_lock(&slide->ready_lock);
    if (slide->ready_count) {
        *region = slide->ready[--slide->ready_count];
        found = true;
    }
    pthread_mutex_unlock(&slide->ready_lock);
    return found;
}

static void atomic_max_u64(_Atomic uint64_t *target, uint64_t value)
{
    uint64_t seen = atomic_load_explicit(target, memory_order_relaxed);
    while (seen < value &&
           !atomic_compare_exchange_weak_explicit(target, &seen, value, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
}

static void atomic_max_u32(_Atomic uint32_t *target, uint32_t value)
{
    uint32_t seen = atomic_load_explicit(target, memory_order_relaxed);
    while (seen < value &&
           !atomic_compare_exchange_weak_explicit(target, &seen, value, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
}

/* Copies the live granules of source region s whose destination lies in
 * [dest_first, dest_end); returns the bytes that changed place. */
static uint64_t copy_from_source(size_t s, size_t dest_first, size_t dest_end)
{
    uint64_t moved = 0;
    size_t base_word = words_of_region(s);
    for (size_t w = base_word; w < base_word + HEAP_WORDS_PER_REGION; w++) {
        uint64_t word = corral_heap.live_bits[w];
        if (!word)
            continue;
        size_t block_first = corral_heap.block_dest[w];
        if (block_first >= dest_end)
            break; /* destinations only grow from here on */
        if (block_first + (size_t)__builtin_popcountll(word) <= dest_first)
            continue;
        /* Each run of consecutive live granules is one copy. */
        uint64_t all = word;
        while (word) {
            unsigned start = (unsigned)__builtin_ctzll(word);
            uint64_t shifted = word >> start;
            unsigned length = ~shifted == 0 ? 64 - start : (unsigned)__builtin_ctzll(~shifted);
            size_t destination =
                block_first + (size_t)__builtin_popcountll(all & ((UINT64_C(1) << start) - 1));
            size_t source = w * 64 + start;
            size_t from = destination > dest_first ? destination : dest_first;
            size_t to = destination + length < dest_end ? destination + length : dest_end;
            if (from < to && destination != source) {
                memmove(heap_granule_address(from),
                        heap_granule_address(source + (from - destination)),
                        (to - from) * CORRAL_GRANULE);
                moved += (to - from) * CORRAL_GRANULE;
            }
            word = start + length >= 64 ? 0 : word & (~UINT64_C(0) << (start + length));
        }
    }
    return moved;
}

static void fill_region(slide_context *slide, size_t d)
{
    heap_region *regions = corral_heap.regions;
    uint64_t start = gc_workers_now_ns();
    size_t dest_first = d * HEAP_GRANULES_PER_REGION;
    size_t dest_end = dest_first + HEAP_GRANULES_PER_REGION;
    uint64_t moved = 0;
    for (size_t s = regions[d].first_source; s <= regions[d].last_source; s++)
        if (regions[s].moves && regions[s].live_granules)
            moved += copy_from_source(s, dest_first, dest_end);
    atomic_fetch_add_explicit(&slide->moved_bytes, moved, memory_order_relaxed);
    /* Critical path: this fill ends its chain; the sources it read may be
     * waiting on it. */
    uint64_t chain = atomic_load_explicit(&regions[d].ready_after_ns, memory_order_relaxed) +
                     (gc_workers_now_ns() - start);
    uint32_t length = atomic_load_explicit(&regions[d].chain_length, memory_order_relaxed) + 1;
    atomic_max_u64(&slide->longest_chain_ns, chain);
    atomic_max_u32(&slide->longest_chain_length, length);
    for (size_t s = regions[d].first_source; s <= regions[d].last_source; s++) {
        if (s == d || !regions[s].moves || !regions[s].live_granules)
            continue;
        atomic_max_u64(&regions[s].ready_after_ns, chain);
        atomic_max_u32(&regions[s].chain_length, length);
        /* acq_rel: the last decrement sees every copy out of s before s is overwritten. */
        if (atomic_fetch_sub_explicit(&regions[s].pending_readers, 1, memory_order_acq_rel) == 1 &&
            regions[s].is_destination)
            push_ready(slide, s);
    }
    atomic_fetch_sub_explicit(&slide->remaining_fills, 1, memory_order_acq_rel);
}

static void slide_phase(unsigned worker, void *context)
{
    slide_context *slide = context;
    unsigned idle_spins = 0;
    while (atomic_load_explicit(&slide->remaining_fills, memory_order_acquire) > 0) {
        size_t region;
        if (pop_ready(slide, &region)) {
            fill_region(slide, region);
            idle_spins = 0;
            continue;
        }
        uint64_t idle_start = gc_workers_now_ns();
        if (++idle_spins < 64)
            arch_cpu_relax();
        else
            sched_yield();
        gc_phase_note_idle(worker, gc_workers_now_ns() - idle_start);
    }
}

void compact_slide_from_stw(gc_cycle *cycle, const compact_plan *plan)
{
    check_plan(cycle, plan, "slide");
    size_t used_regions = plan->used_regions;
    heap_region *regions = corral_heap.regions;
    slide_context slide = {.ready_lock = PTHREAD_MUTEX_INITIALIZER};
    slide.ready = malloc((used_regions + 1) * sizeof *slide.ready);
    if (!slide.ready)
        CORRAL_FATAL("out of memory for the slide queue (%zu regions)", used_regions);
    size_t fills = 0;
    for (size_t d = 0; d < used_regions; d++) {
        if (!regions[d].is_destination)
            continue;
        fills++;
        if (atomic_load_explicit(&regions[d].pending_readers, memory_order_relaxed) == 0)
            slide.ready[slide.ready_count++] = (uint32_t)d;
    }
    atomic_store_explicit(&slide.remaining_fills, fills, memory_order_relaxed);
    if (fills && !slide.ready_count)
        CORRAL_FATAL("compaction plan of gc %" PRIu64 " has %zu fills and none ready",
                     cycle->number, fills);
    gc_workers_run("slide", slide_phase, &slide, &cycle->phases[GC_PHASE_SLIDE]);
    cycle->moved_bytes = atomic_load(&slide.moved_bytes);
    cycle->phases[GC_PHASE_SLIDE].span_ns = atomic_load(&slide.longest_chain_ns);
    cycle->slide_chain = atomic_load(&slide.longest_chain_length);
    free(slide.ready);
}

/* ------------------------------------------------------------- finish */

/* Clears the bitmap words this cycle wrote: start bits of regions that held
 * marked objects, live bits of regions that moved. Writing zeros over
 * untouched bitmap pages would only fault them in. */
static void clear_region_bitmaps(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    (void)context;
    for (size_t r = first; r < end; r++) {
        heap_region *region = &corral_heap.regions[r];
        size_t from = words_of_region(r), count = HEAP_WORDS_PER_REGION;
        if (region->live_granules)
            memset(&corral_heap.start_bits[from], 0, count * sizeof(uint64_t));
        if (atomic_load_explicit(&region->live_bits_dirty, memory_order_relaxed)) {
            memset(&corral_heap.live_bits[from], 0, count * sizeof(uint64_t));
            atomic_store_explicit(&region->live_bits_dirty, 0, memory_order_relaxed);
        }
    }
}

/* Generational: every survivor is old, so its start bit must be set at its
 * new address (generation.h). Built in the scratch bitmap while forwarding
 * still reads the old bits; destinations may be other regions' words. */
static inline __attribute__((always_inline)) void set_forwarded_start_bit(size_t granule,
                                                                          void *context)
{
    (void)context;
    size_t to = heap_granule_index(heap_forward(heap_granule_address(granule)));
    atomic_fetch_or_explicit((_Atomic uint64_t *)&corral_heap.scratch_bits[to >> 6],
                             UINT64_C(1) << (to & 63), memory_order_relaxed);
}

static void forward_start_bits(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    (void)context;
    for (size_t r = first; r < end; r++) {
        const heap_region *region = &corral_heap.regions[r];
        if (!region->live_granules)
            continue;
        /* A region that stays in place and receives nothing: its words are
         * its own, so copy them (a word per 64 granules) rather than forward
         * each object. Most regions of a generational heap stay. */
        if (!region->moves && !region->is_destination) {
            size_t from = words_of_region(r);
            memcpy(&corral_heap.scratch_bits[from], &corral_heap.start_bits[from],
                   HEAP_WORDS_PER_REGION * sizeof(uint64_t));
            continue;
        }
        for_each_object_start(r, set_forwarded_start_bit, NULL);
    }
}

void compact_finish_from_stw(gc_cycle *cycle, compact_plan *plan)
{
    check_plan(cycle, plan, "finish");
    size_t used_regions = plan->used_regions;
    uint64_t start = gc_workers_now_ns();
    cycle->phases[GC_PHASE_FINISH].name = "finish";
    /* Before the bitmaps are cleared: the records keep the forwarding. */
    if (plan->quarantining)
        for (size_t r = 0; r < plan->source_regions; r++)
            if (corral_heap.regions[r].moves)
                quarantine_region_from_stw(r, cycle->number);
    bool keep_old = generation_enabled();
    if (keep_old)
        region_loop_run("old bits", used_regions, forward_start_bits, NULL,
                        &cycle->phases[GC_PHASE_FINISH]);
    region_loop_run("clear", used_regions, clear_region_bitmaps, NULL, &cycle->phases[GC_PHASE_FINISH]);
    if (keep_old) {
        /* The cleared bitmap becomes the (all-zero) scratch. */
        uint64_t *old_bits = corral_heap.scratch_bits;
        corral_heap.scratch_bits = corral_heap.start_bits;
        corral_heap.start_bits = old_bits;
    }
    const heap_free_range *ranges = plan->free_ranges.items;
    if (corral_runtime_config.stress_poison)
        for (size_t i = 0; i < plan->free_ranges.count; i++)
            heap_poison_range(ranges[i].start,
                              ranges[i].end < plan->old_top ? ranges[i].end : plan->old_top);
    for (size_t r = 0; r < used_regions; r++)
        corral_heap.region_moves[r] = 0;
    heap_reset_free_ranges_from_stw(ranges, NULL, plan->free_ranges.count);
    VEC_FREE(plan->free_ranges);
    gc_phase_stats_close(&cycle->phases[GC_PHASE_FINISH], start);
}
