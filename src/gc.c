/* gc.c — one collection, phase by phase (see gc.h). */
#include "gc.h"

#include <inttypes.h>
#include <string.h>

#include "barrier.h"
#include "compact.h"
#include "config.h"
#include "coordinator.h"
#include "fatal.h"
#include "generation.h"
#include "heap.h"
#include "los.h"
#include "mark.h"
#include "quarantine.h"
#include "remset.h"
#include "roots.h"
#include "stats.h"
#include "thread.h"
#include "typed_space.h"
#include "verify.h"
#include "workers.h"
#include "young_marker.h"

/* Completed collections. Writer: the collecting thread (release). Readers:
 * anyone (fatal reports, stats). */
static _Atomic uint64_t collections;

/* Completed major collections. Writer: the collecting thread (release).
 * Readers: gc_collect, whose full collection another thread's may serve. */
static _Atomic uint64_t major_collections;

/* The work (over all workers) of the last concurrent collection's first
 * pause: roots and dirty cards, marked without tracing. Collector only,
 * world stopped. */
static uint64_t first_pause_work_ns;

/* Below this much work, a first pause marks with the collecting thread
 * alone: waking a worker costs tens of microseconds, and on binary-trees'
 * 2-core runs the wake-up alone took up to 2.5 ms now and then, the p99. */
#define FIRST_PAUSE_ALONE_NS 100000u

uint64_t gc_count(void)
{
    return atomic_load_explicit(&collections, memory_order_acquire);
}

static void reset_tlabs(stop_report *stop)
{
    for (size_t i = 0; i < stop->thread_count; i++)
        if (stop->threads[i]->tlab)
            *stop->threads[i]->tlab = (corral_tlab){0};
}

static void copy_stop_report(gc_cycle *cycle, const stop_report *stop)
{
    cycle->request_ns = stop->request_ns;
    cycle->ttsp_ns = stop->ttsp_ns;
    cycle->slowest_thread = stop->slowest_thread;
    cycle->slowest_site = stop->slowest_site;
    cycle->thread_count = stop->thread_count;
}

/* The collection holds the allocation locks throughout. No stopped thread
 * can hold them (they are taken briefly, with no poll inside), so this never
 * waits; it orders the allocations of threads that detached before the stop,
 * which no state handshake covers, before everything the collector reads. */
static void lock_allocators_from_stw(void)
{
    pthread_mutex_lock(&corral_heap.alloc_lock);
    los_lock_from_stw();
}

static void unlock_allocators_from_stw(void)
{
    los_unlock_from_stw();
    pthread_mutex_unlock(&corral_heap.alloc_lock);
}

/* One worker per heap_per_worker bytes of heap, at least one, at most the pool: waking a
 * worker costs tens of microseconds, more than it saves on a small heap (measured: a GC
 * of a near-empty heap took 0.06 ms on one worker, 0.76 ms on 8 workers over 2 CPUs). */
static unsigned workers_for_heap(size_t heap_bytes, size_t heap_per_worker)
{
    unsigned pool = gc_workers_count();
    if (heap_per_worker <= 1)
        return pool; /* CORRAL_GC_HEAP_PER_WORKER=1: every worker, even for an empty heap */
    size_t wanted = heap_bytes / heap_per_worker + 1;
    return wanted < pool ? (unsigned)wanted : pool;
}

/* The end of a minor collection, after marking: young survivors age or
 * become old; the rest of the young memory becomes free ranges.
 * live_before: the old space before survivors join it. */
static void sweep_young_from_stw(gc_cycle *cycle, size_t live_before)
{
    const corral_config *config = &corral_runtime_config;
    bool keep_young = generation_keeps_young();
    size_t aging_before = heap_aging_bytes();
    gc_phase_stats *stats = &cycle->phases[GC_PHASE_FINISH];
    uint64_t start = gc_workers_now_ns();
    /* Before the nursery's sweep: remset_rescan_from_stw reads every age bit. */
    typed_space_sweep typed =
        typed_space_sweep_from_stw(true, keep_young, config->stress_poison, stats);
    cycle->promoted_bytes = typed.promoted_bytes +
                            heap_sweep_young_from_stw(config->stress_poison, keep_young,
                                                      cycle->marked_bytes, typed.young_bytes,
                                                      stats);
    if (keep_young)
        remset_rescan_from_stw(); /* reads the young large objects: before their sweep */
    cycle->los_live_bytes = los_sweep_from_stw(true);
    /* The parallel parts' statistics and the serial rest, as the compactor's
     * phases count theirs. */
    stats->name = "sweep";
    gc_phase_stats_close(stats, start);
    cycle->live_bytes = corral_heap.live_after_gc;
    generation_record_aging_from_stw(aging_before, cycle->promoted_bytes);
    generation_record_minor_from_stw(cycle->heap_before - live_before, cycle->marked_bytes,
                                     cycle->phases[GC_PHASE_MARK].wall_ns,
                                     cycle->phases[GC_PHASE_FINISH].wall_ns);
}

/* A minor collection (generation.h) in one pause. */
static void collect_young_from_stw(gc_cycle *cycle)
{
    size_t live_before = corral_heap.live_after_gc;
    remset_begin_minor_from_stw(generation_keeps_young());
    mark_from_stw(cycle);
    sweep_young_from_stw(cycle, live_before);
}

/* The second pause of a concurrent minor collection (young_marker.h). */
static void finish_young_from_stw(gc_cycle *cycle)
{
    size_t live_before = corral_heap.live_after_gc;
    young_marker_finish_marking_from_stw(cycle);
    sweep_young_from_stw(cycle, live_before);
    young_marker_close_from_stw();
}

/* A major collection: everything marked from the roots, then compacted. */
static void collect_all_from_stw(gc_cycle *cycle)
{
    const corral_config *config = &corral_runtime_config;
    mark_from_stw(cycle);
    if (config->verify & CORRAL_VERIFY_REMARK)
        mark_remark_check_from_stw(cycle);
    /* Headerless regions stay in place; the empty ones are given back before
     * the plan, which then frees them. */
    typed_space_sweep_from_stw(false, false, config->stress_poison, NULL);
    cycle->los_live_bytes = los_sweep_from_stw(generation_enabled());
    char *top_before = corral_heap.top;
    compact_plan plan;
    compact_plan_from_stw(cycle, &plan);
    compact_update_from_stw(cycle, &plan);
    compact_slide_from_stw(cycle, &plan);
    compact_finish_from_stw(cycle, &plan);
    if (generation_enabled())
        barrier_clean_below_from_stw(top_before);
    cycle->live_bytes = cycle->marked_bytes;
    heap_set_budget_from_stw(cycle->live_bytes, cycle->heap_before, cycle->at_limit,
                             cycle->request_ns, monotonic_ns());
}

static void collect_from_stw(stop_report *stop, void *context)
{
    gc_cycle *cycle = context;
    lock_allocators_from_stw();
    const corral_config *config = &corral_runtime_config;
    cycle->stop = stop;
    cycle->number = gc_count() + 1;
    copy_stop_report(cycle, stop);
    bool concurrent_open = young_marker_pause_from_stw();
    if (young_marker_needs_major())
        cycle->want = GC_WANT_MAJOR;
    cycle->heap_before = corral_heap.live_after_gc +
                         atomic_load_explicit(&corral_heap.allocated_since_gc, memory_order_relaxed);
    generation_note_heap_from_stw(cycle->heap_before);
    gc_kind kind = generation_choose_kind_from_stw(cycle->want);
    cycle->minor = kind == GC_KIND_MINOR;
    cycle->at_limit = kind == GC_KIND_MAJOR_AT_LIMIT;
    /* A minor collection while one is open is its second pause. */
    bool second_pause = concurrent_open && cycle->minor;
    if (concurrent_open && !cycle->minor)
        young_marker_abandon_from_stw(cycle);
    if (!second_pause)
        mark_set_limit_from_stw(corral_heap.top, false);
    /* A minor collection's work is the young data: size the crew by that. */
    size_t work_bytes = cycle->minor ? cycle->heap_before - corral_heap.live_after_gc
                                     : cycle->heap_before;
    cycle->workers = workers_for_heap(work_bytes, config->gc_heap_per_worker);
    bool first_pause = cycle->minor && !second_pause && young_marker_enabled();
    if (first_pause && first_pause_work_ns < FIRST_PAUSE_ALONE_NS)
        cycle->workers = 1;
    gc_workers_set_active(cycle->workers);
    reset_tlabs(stop);
    if (generation_enabled() && !cycle->minor)
        generation_prepare_major_from_stw();
    /* Snapshot at the beginning: the second pause needs no stack (but the
     * verifier checks them). */
    if (!second_pause || config->verify) {
        mark_roots_from_stw(cycle);
        generation_check_roots_from_stw(stop);
    }
    if (config->verify & CORRAL_VERIFY_SATB)
        verify_satb_close_from_stw(cycle);
    /* Half-marked, the heap breaks the verifier's rule that marked is old. */
    if ((config->verify & CORRAL_VERIFY_BEFORE) && !second_pause)
        verify_heap_from_stw(cycle, "before");
    if (second_pause) {
        finish_young_from_stw(cycle);
    } else if (first_pause) {
        young_marker_begin_from_stw(cycle);
        first_pause_work_ns = cycle->phases[GC_PHASE_MARK].work_ns;
    } else if (cycle->minor) {
        collect_young_from_stw(cycle);
    } else {
        collect_all_from_stw(cycle);
    }
    cycle->heap_after = cycle->live_bytes;
    cycle->heap_limit = corral_heap.target;
    cycle->nursery_bytes = generation_nursery_bytes();
    if ((config->verify & CORRAL_VERIFY_AFTER) && !cycle->concurrent_start)
        verify_heap_from_stw(cycle, "after");
    if (config->verify & CORRAL_VERIFY_SATB)
        verify_satb_open_from_stw(cycle);
#ifdef CORRAL_DEBUG_CHECKS
    const char *problem = heap_check();
    if (!problem)
        problem = quarantine_check();
    if (problem)
        CORRAL_FATAL("after gc %" PRIu64 ": %s", cycle->number, problem);
#endif
    cycle->stop = NULL;
    unlock_allocators_from_stw();
    if (!cycle->minor)
        atomic_fetch_add_explicit(&major_collections, 1, memory_order_release);
    /* The first pause of a concurrent one collects nothing yet. */
    if (!cycle->concurrent_start)
        atomic_store_explicit(&collections, cycle->number, memory_order_release);
}

bool gc_collect_since(corral_thread *self, const char *cause, gc_want want, uint32_t since)
{
    gc_cycle cycle;
    memset(&cycle, 0, sizeof cycle);
    cycle.cause = cause;
    cycle.want = want;
    uint64_t majors = atomic_load_explicit(&major_collections, memory_order_acquire);
    /* Another thread collected while we waited: enough, unless it was a minor
     * collection and a major one was wanted (corral_collect promises one). */
    uint64_t released_ns;
    for (;;) {
        world_collect_outcome outcome =
            world_collect(self, since, collect_from_stw, &cycle, &released_ns);
        if (outcome == WORLD_COLLECTED)
            break;
        if (outcome == WORLD_OVERTAKEN)
            return false;
        if (want != GC_WANT_MAJOR ||
            atomic_load_explicit(&major_collections, memory_order_acquire) != majors)
            return true;
    }
    cycle.pause_ns = released_ns - cycle.request_ns;
    stats_record_cycle(&cycle);
    stats_log_cycle(&cycle);
    roots_run_finalizers();
    return true;
}

void gc_collect(corral_thread *self, const char *cause, gc_want want)
{
    gc_collect_since(self, cause, want, WORLD_EPOCH_OWN);
}
