/* generation.c — choosing minor or major collections (generation.h). */
#include "generation.h"

#include "coordinator.h"
#include "fatal.h"
#include "heap.h"
#include "los.h"
#include "region_loop.h"
#include "stress.h"
#include "typed_space.h"
#include "young_marker.h"

/* Set by generation_init before any thread attaches; read-only afterwards. */
static bool enabled;
static size_t nursery_fixed;     /* CORRAL_GC_NURSERY, or 0 for the auto size */
static size_t nursery_least;     /* auto: never smaller */
static size_t nursery_most;      /* auto: never larger */
static bool keep_young;
static uint64_t pause_goal_ns;   /* CORRAL_GC_PAUSE_GOAL_US; 0: no goal */

/* The pause goal's costs, each a decaying average in ns per byte: marking
 * per byte marked, sweeping per young byte; and the nursery they allow
 * (SIZE_MAX until a minor collection has measured both). Writer: the
 * collecting thread, world stopped (generation_record_minor_from_stw).
 * Readers: that thread, and allocating threads on the slow path after the
 * world restarts, which the coordinator's release of the stopped threads
 * orders after the write. */
static double mark_ns_per_byte, sweep_ns_per_byte;
static size_t nursery_for_goal = SIZE_MAX;

/* The largest heap (old space plus what was allocated since) a collection
 * has started from: pages the process has already touched. Writer: the
 * collecting thread, world stopped (generation_note_heap_from_stw). Readers:
 * allocating threads on the slow path (generation_allocation_limit), after
 * the coordinator's release of the stopped threads orders them after it. */
static size_t largest_heap_before;
/* Whether, at the last minor collection that found objects aging, at most
 * half of them survived to be promoted: then what ages now is taken to die
 * as well, as in a survivor space. False until one has; a growth phase
 * (everything aging survives) makes it false again. Writer and readers as
 * largest_heap_before's (generation_record_aging_from_stw). */
static bool aging_dies;

/* The goal's nursery never falls below this: under it, the stop itself
 * (waking workers, walking stacks) outweighs what a smaller nursery saves. */
#define NURSERY_GOAL_FLOOR ((size_t)256 << 10)
/* A minor collection must mark at least this much for its marking rate to
 * count: a few objects measure the phase's start-up, not the rate. */
#define GOAL_MARK_SAMPLE_BYTES ((size_t)256 << 10)
/* Weight of the newest measurement in the decaying averages. */
#define GOAL_COST_NEW_SHARE 0.3

/* A major collection once the old space fills three quarters of the limit. */
#define OLD_SPACE_SHARE_QUARTERS 3

/* Auto nursery, per GC worker, so a machine with more cores (and more
 * cache) collects as often in time while allocating faster. At most 32M: a
 * small nursery promotes data that dies soon after and marks the same
 * survivors more often (binary-trees N=21, 2 workers: 4M per worker took
 * 1.5x the CPU time of 16M, and 32M cut the pauses' total by a further
 * 10-60% with no more RSS), but on a small heap the nursery is the
 * footprint (docs/performance.md). Concurrent: the nursery being marked and
 * the next one are both in use, and what is born while marking is held
 * until the second pause, so each is a quarter as large. */
#define NURSERY_MOST_PER_WORKER ((size_t)32 << 20)
#define NURSERY_MOST_PER_WORKER_CONCURRENT ((size_t)8 << 20)
#define NURSERY_LEAST_PER_WORKER ((size_t)4 << 20)

void generation_init(bool enable, bool concurrent, size_t nursery_bytes, unsigned promote_after,
                     unsigned pause_goal_us, unsigned gc_workers)
{
    enabled = enable;
    pause_goal_ns = enable ? (uint64_t)pause_goal_us * 1000 : 0;
    mark_ns_per_byte = sweep_ns_per_byte = 0;
    nursery_for_goal = SIZE_MAX;
    largest_heap_before = 0;
    aging_dies = false;
    keep_young = enable && promote_after > 1;
    unsigned workers = gc_workers ? gc_workers : 1;
    nursery_fixed = enable ? nursery_bytes : 0;
    nursery_least = enable ? NURSERY_LEAST_PER_WORKER * workers : 0;
    size_t most_per_worker =
        concurrent ? NURSERY_MOST_PER_WORKER_CONCURRENT : NURSERY_MOST_PER_WORKER;
    nursery_most = enable ? most_per_worker * workers : 0;
}

/* The auto nursery is as large as the old space, within its bounds: young
 * memory at most half the heap, as G1 caps its young generation at 60%, so
 * a program with little live data is not charged a nursery many times its
 * size, while a large heap gets the full nursery. A pause goal may make it
 * smaller still (generation_record_minor_from_stw). */
static size_t nursery_bytes(void)
{
    if (nursery_fixed)
        return nursery_fixed;
    /* While marking, live_after_gc holds the young memory being marked too
     * (counted, the log's nursery doubled at every first pause). */
    size_t old_space = young_marker_open() ? young_marker_old_space_bytes()
                                           : corral_heap.live_after_gc;
    size_t auto_bytes = old_space < nursery_least  ? nursery_least
                        : old_space < nursery_most ? old_space
                                                   : nursery_most;
    return auto_bytes < nursery_for_goal ? auto_bytes : nursery_for_goal;
}

size_t generation_nursery_bytes(void)
{
    return enabled ? nursery_bytes() : 0;
}

/* Adds a measurement to a decaying average (the first one is the average). */
static void track_cost(double *average, double cost)
{
    *average = *average == 0 ? cost
                             : (1 - GOAL_COST_NEW_SHARE) * *average + GOAL_COST_NEW_SHARE * cost;
}

/* The pause goal's nursery, sized for the worst case: every young byte
 * survives, and with aging so does every byte the last collection kept
 * young, so a collection may mark twice the nursery. Sizing from the
 * survival of recent collections instead (as G1 does) missed the goal by
 * far at every change of phase: the nursery a phase of garbage earned was
 * the one that met the next phase's long-lived data (docs/performance.md). */
void generation_record_minor_from_stw(size_t young_bytes, size_t marked_bytes, uint64_t mark_ns,
                                      uint64_t sweep_ns)
{
    if (!pause_goal_ns)
        return;
    if (marked_bytes >= GOAL_MARK_SAMPLE_BYTES)
        track_cost(&mark_ns_per_byte, (double)mark_ns / (double)marked_bytes);
    if (young_bytes >= NURSERY_GOAL_FLOOR / 4)
        track_cost(&sweep_ns_per_byte, (double)sweep_ns / (double)young_bytes);
    if (mark_ns_per_byte == 0 || sweep_ns_per_byte == 0)
        return; /* nothing has survived yet: garbage pauses little, the auto nursery stays */
    double survivors_per_young_byte = keep_young ? 2 : 1;
    double cost = survivors_per_young_byte * mark_ns_per_byte + sweep_ns_per_byte;
    double bytes = (double)pause_goal_ns / cost;
    nursery_for_goal = bytes >= (double)(SIZE_MAX / 2)      ? SIZE_MAX
                       : bytes < (double)NURSERY_GOAL_FLOOR ? NURSERY_GOAL_FLOOR
                                                            : (size_t)bytes;
}

/* Three quarters of c after a growth phase's collection. The old space
 * grows only by what minor collections promote, so a smaller headroom costs
 * a major collection more per phase, while the headroom over a large built
 * heap is the peak footprint: binary-trees N=21, whose stretch tree dies
 * right after the major collection that finds it alive, kept 84 MiB of
 * headroom over it at c = 16 (docs/performance.md). */
unsigned generation_growth_expansiveness(bool enable, unsigned expansiveness)
{
    return enable ? expansiveness * 3 / 4 : expansiveness;
}

bool generation_enabled(void)
{
    return enabled;
}

bool generation_keeps_young(void)
{
    return keep_young;
}

void generation_note_heap_from_stw(size_t heap_before)
{
    if (heap_before > largest_heap_before)
        largest_heap_before = heap_before;
}

void generation_record_aging_from_stw(size_t aging_before, size_t promoted_bytes)
{
    if (aging_before > 0)
        aging_dies = promoted_bytes <= aging_before / 2;
}

size_t generation_allocation_limit(size_t heap_limit)
{
    /* While a concurrent minor collection marks, the nursery may overflow
     * up to the heap limit; a mutator that reaches it helps the marker
     * finish (young_marker_assist), so the second pause is short, and what
     * was allocated meanwhile counts towards the next collection. */
    if (!enabled || young_marker_open())
        return heap_limit;
    size_t young_limit = corral_heap.live_after_gc + nursery_bytes();
    /* What the last minor collection kept young dies or becomes old at the
     * next one, as a survivor space beside eden. Counted under the limit,
     * it shrank the nursery when survival rose, so collections came more
     * often just when each marked more (binary-trees N=21: 31 minor GCs of
     * 22.5 MiB survivors, not 16 of 10.2). So, while what ages dies, the
     * heap may pass the limit by it, but only up to a heap it has already
     * held. In a growth phase what ages becomes old: passing the limit
     * there put off the major collection that raises it (binary-trees N=21
     * after the stretch tree: 250 minor GCs, not 152), and passing the
     * largest heap cost 20-80% more RSS (docs/performance.md). */
    size_t aging = aging_dies ? heap_aging_bytes() : 0;
    size_t room_limit = heap_limit + aging;
    if (room_limit > largest_heap_before)
        room_limit = heap_limit > largest_heap_before ? heap_limit : largest_heap_before;
    return young_limit < room_limit ? young_limit : room_limit;
}

gc_kind generation_choose_kind_from_stw(gc_want want)
{
    if (want == GC_WANT_MAJOR)
        return GC_KIND_MAJOR_ASKED;
    if (!enabled)
        return want == GC_WANT_ROOM ? GC_KIND_MAJOR_AT_LIMIT : GC_KIND_MAJOR_ASKED;
    stress_kind kind = stress_collection_kind();
    if (kind == STRESS_KIND_MAJOR)
        return GC_KIND_MAJOR_ASKED;
    /* Forced minor, until the old space leaves less than a quarter nursery
     * under the limit: only a major collection lets the sizer raise the
     * limit, and without one a growing old space would make the program
     * collect ever more often. */
    if (kind == STRESS_KIND_MINOR)
        return corral_heap.live_after_gc + nursery_bytes() / 4 < corral_heap.target
                   ? GC_KIND_MINOR
                   : GC_KIND_MAJOR_AT_LIMIT;
    /* The old space grows by each minor collection's survivors: collect it
     * all once it fills three quarters of the heap limit. Until then the
     * nursery is at least the last quarter (generation_allocation_limit). */
    return corral_heap.live_after_gc < corral_heap.target / 4 * OLD_SPACE_SHARE_QUARTERS
               ? GC_KIND_MINOR
               : GC_KIND_MAJOR_AT_LIMIT;
}

void generation_check_roots_from_stw(const stop_report *stop)
{
    if (!enabled)
        return;
    for (size_t i = 0; i < stop->thread_count; i++) {
        const corral_thread *thread = stop->threads[i];
        const thread_roots *roots = &thread->roots;
        if (roots->shadow_stack_entries || roots->gcroot_promoted_frames)
            CORRAL_FATAL("%s has llvm.gcroot frames on its stack (%zu shadow-stack, %zu "
                         "promoted): their code stores references without the write barrier "
                         "minor collections need, so it cannot run with "
                         "CORRAL_GC_GENERATIONAL=1 (docs/gcroot.md)",
                         thread->name, roots->shadow_stack_entries,
                         roots->gcroot_promoted_frames);
    }
}

void generation_prepare_major_from_stw(void)
{
    heap_clear_bitmaps_from_stw();
    heap_forget_ages_from_stw();
    typed_space_forget_ages_from_stw();
    los_clear_marks_from_stw();
}
