/* gc.h — one collection, from the stopped world to the restart: the cycle
 * record every phase fills, and the entry that runs a collection (gc.c).
 * The phases have their own modules: roots and mark in mark.h, plan,
 * update, slide and finish in compact.h (a minor collection sweeps instead,
 * heap.h); the verifier runs around them (verify.h).
 *
 *   roots     walk every stopped thread's stack (parallel over threads)
 *   mark      from stacks, handles, globals, pins, the finalization queue
 *             (parallel, work stealing); clear dead weak handles; queue and
 *             resurrect dead finalizable objects; sweep the LOS
 *   plan      live bytes per region, regions that stay (pinned, dense
 *             prefix), destinations, forwarding table (parallel over regions)
 *   update    every reference: stack slots (derived first), handles, globals,
 *             heap and LOS objects, weak handles (parallel)
 *   slide     copy live data to its destination, a region at a time, each
 *             region only once the data it overwrites has been read
 *             (parallel, dependency-driven)
 *   finish    free ranges, budget, clear bitmaps, poison vacated memory
 */
#ifndef CORRAL_GC_H
#define CORRAL_GC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coordinator.h"
#include "generation.h"
#include "thread.h"
#include "workers.h"

enum gc_phase {
    GC_PHASE_ROOTS,
    GC_PHASE_MARK,
    GC_PHASE_PLAN,
    GC_PHASE_UPDATE,
    GC_PHASE_SLIDE,
    GC_PHASE_FINISH,
    GC_PHASE_COUNT
};

typedef struct gc_cycle {
    uint64_t number;
    const char *cause;
    gc_want want;
    bool minor;                    /* generational minor collection (generation.h) */
    bool at_limit;                 /* major, brought by the heap's limit (GC_KIND_MAJOR_AT_LIMIT) */
    stop_report *stop;             /* valid only while the world is stopped */
    unsigned workers;
    uint64_t request_ns, ttsp_ns, pause_ns;
    unsigned slowest_thread;       /* waited for longest by the coordinator */
    uintptr_t slowest_site;        /* its poll site */
    size_t thread_count;
    gc_phase_stats phases[GC_PHASE_COUNT];
    uint64_t start_ns;
    uint64_t marked_objects, marked_bytes; /* heap + LOS */
    uint64_t promoted_bytes;       /* minor: heap bytes that became old */
    uint64_t mark_depth;                   /* longest discovery chain */
    uint64_t stack_roots, stack_frames;
    uint64_t moved_bytes;
    uint64_t heap_before, heap_after, live_bytes;
    uint64_t heap_limit;                   /* the next collection's trigger, from the sizer */
    uint64_t nursery_bytes;                /* generational: the next nursery; 0 otherwise */
    uint64_t los_live_bytes;
    size_t finalizers_queued;
    /* Concurrent minor collections (young_marker.h): this pause begins one
     * (its roots taken, marking goes on while the program runs); or, in the
     * pause that ends one, the marking done meanwhile and the references the
     * deletion barrier logged. */
    bool concurrent_start;
    uint64_t concurrent_mark_ns;
    size_t satb_logged;
    uint64_t helper_marked_bytes;          /* by CORRAL_GC_CONCURRENT_MARKERS' helpers */
    uint64_t slide_chain;                  /* longest chain of dependent region fills */
    uint64_t verify_problems;
} gc_cycle;

/* Runs a collection (or waits for one another thread runs). Thread: MANAGED,
 * anchor recorded by the runtime entry that calls this. */
void gc_collect(corral_thread *self, const char *cause, gc_want want);
/* The same for a request whose reason was seen at GC epoch since
 * (world_epoch): returns false, having done nothing, when a collection
 * began and ended after it (the reason may be gone: look again). */
bool gc_collect_since(corral_thread *self, const char *cause, gc_want want, uint32_t since);
/* Number of collections completed (relaxed read). */
uint64_t gc_count(void);

#endif /* CORRAL_GC_H */
