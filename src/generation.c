/* generation.c — choosing minor or major collections (generation.h). */
#include "generation.h"

#include "coordinator.h"
#include "fatal.h"
#include "heap.h"
#include "los.h"
#include "region_loop.h"
#include "stress.h"
#include "typed_space.h"

/* Set by generation_init before any thread attaches; read-only afterwards. */
static bool enabled;
static size_t nursery_fixed;     /* CORRAL_GC_NURSERY, or 0 for the auto size */
static size_t nursery_least;     /* auto: never smaller */
static size_t nursery_most;      /* auto: never larger */
static bool keep_young;

/* A major collection once the old space fills three quarters of the limit. */
#define OLD_SPACE_SHARE_QUARTERS 3

/* Auto nursery, per GC worker, so a machine with more cores (and more
 * cache) collects as often in time while allocating faster. At most 16M: a
 * small nursery promotes data that dies soon after (binary-trees N=21, 2
 * workers, aging: 4M per worker took 1.5x the CPU time of 16M), but on a
 * small heap the nursery is the footprint (docs/performance.md). */
#define NURSERY_MOST_PER_WORKER ((size_t)16 << 20)
#define NURSERY_LEAST_PER_WORKER ((size_t)4 << 20)

void generation_init(bool enable, size_t nursery_bytes, unsigned promote_after,
                     unsigned gc_workers)
{
    enabled = enable;
    keep_young = enable && promote_after > 1;
    unsigned workers = gc_workers ? gc_workers : 1;
    nursery_fixed = enable ? nursery_bytes : 0;
    nursery_least = enable ? NURSERY_LEAST_PER_WORKER * workers : 0;
    nursery_most = enable ? NURSERY_MOST_PER_WORKER * workers : 0;
}

/* The auto nursery is as large as the old space, within its bounds: young
 * memory at most half the heap, as G1 caps its young generation at 60%, so
 * a program with little live data is not charged a nursery many times its
 * size, while a large heap gets the full nursery. */
static size_t nursery_bytes(void)
{
    if (nursery_fixed)
        return nursery_fixed;
    size_t old_space = corral_heap.live_after_gc;
    if (old_space < nursery_least)
        return nursery_least;
    return old_space < nursery_most ? old_space : nursery_most;
}

bool generation_enabled(void)
{
    return enabled;
}

bool generation_keeps_young(void)
{
    return keep_young;
}

size_t generation_allocation_limit(size_t heap_limit)
{
    if (!enabled)
        return heap_limit;
    size_t young_limit = corral_heap.live_after_gc + nursery_bytes();
    return young_limit < heap_limit ? young_limit : heap_limit;
}

bool generation_choose_minor_from_stw(gc_want want)
{
    if (!enabled || want == GC_WANT_MAJOR)
        return false;
    stress_kind kind = stress_collection_kind();
    if (kind == STRESS_KIND_MAJOR)
        return false;
    /* Forced minor, until the old space leaves less than a quarter nursery
     * under the limit: only a major collection lets the sizer raise the
     * limit, and without one a growing old space would make the program
     * collect ever more often. */
    if (kind == STRESS_KIND_MINOR)
        return corral_heap.live_after_gc + nursery_bytes() / 4 < corral_heap.target;
    /* The old space grows by each minor collection's survivors: collect it
     * all once it fills three quarters of the heap limit. Until then the
     * nursery is at least the last quarter (generation_allocation_limit). */
    return corral_heap.live_after_gc < corral_heap.target / 4 * OLD_SPACE_SHARE_QUARTERS;
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
