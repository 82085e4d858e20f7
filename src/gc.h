/* gc.h — one collection, from the stopped world to the restart.
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

#include <corral.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
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
    stop_report *stop;             /* valid only while the world is stopped */
    unsigned workers;
    uint64_t request_ns, ttsp_ns, pause_ns;
    unsigned slowest_thread;       /* waited for longest by the coordinator */
    uintptr_t slowest_site;        /* its poll site */
    size_t thread_count;
    gc_phase_stats phases[GC_PHASE_COUNT];
    uint64_t start_ns;
    uint64_t marked_objects, marked_bytes; /* heap + LOS */
    uint64_t mark_depth;                   /* longest discovery chain */
    uint64_t stack_roots, stack_frames;
    uint64_t moved_bytes;
    uint64_t heap_before, heap_after, live_bytes;
    uint64_t heap_limit;                   /* the next collection's trigger, from the sizer */
    uint64_t los_live_bytes;
    size_t finalizers_queued;
    uint64_t slide_chain;                  /* longest chain of dependent region fills */
    uint64_t verify_problems;
} gc_cycle;

/* The configuration loaded by corral_init; read-only afterwards. */
extern corral_config corral_runtime_config;

/* Runs a collection (or waits for one another thread runs). Thread: MANAGED,
 * anchor recorded by the runtime entry that calls this. */
void gc_collect(corral_thread *self, const char *cause, gc_want want);
/* Number of collections completed (relaxed read). */
uint64_t gc_count(void);

/* Phases, in mark.c and compact.c. */
int mark_init(unsigned workers);
void mark_roots_from_stw(gc_cycle *cycle);
void mark_from_stw(gc_cycle *cycle);
bool mark_is_marked(const void *object);
/* Granules of the marked objects that start in a heap region (this cycle). */
uint32_t mark_region_live_granules(size_t region);
/* Marks again from the roots into clear bitmaps and compares (verify remark). */
void mark_remark_check_from_stw(gc_cycle *cycle);
void compact_plan_from_stw(gc_cycle *cycle);
void compact_update_from_stw(gc_cycle *cycle);
void compact_slide_from_stw(gc_cycle *cycle);
void compact_finish_from_stw(gc_cycle *cycle);
/* Clears the start bitmap below the heap top (parallel). */
void heap_clear_bitmaps_from_stw(void);
/* Clears the scratch bitmap below the heap top (parallel). */
void heap_clear_scratch_bits_from_stw(void);

/* verify.c: checks everything reachable from the roots; returns problems found. */
uint64_t verify_heap_from_stw(gc_cycle *cycle, const char *when);

/* alloc.c */
void alloc_init(size_t tlab_bytes, size_t large_object_bytes);

/* stats.c */
int stats_init(void);
void stats_print_summary(void);
void stats_record_cycle(const gc_cycle *cycle);
void stats_log_cycle(const gc_cycle *cycle);
FILE *stats_log_stream(void);

#define CORRAL_POISON_PATTERN UINT64_C(0xBADC0FFEE0DDF00D)

#endif /* CORRAL_GC_H */
