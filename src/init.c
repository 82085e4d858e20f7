/* init.c — corral_init and corral_shutdown: configuration, heap, threads,
 * stackmaps, GC workers, stress modes, in that order. */
#include <corral.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_slow.h"
#include "barrier.h"
#include "code_check.h"
#include "config.h"
#include "entry.h"
#include "fatal.h"
#include "generation.h"
#include "heap.h"
#include "mark.h"
#include "stackmap/registry.h"
#include "stats.h"
#include "stress.h"
#include "tagged.h"
#include "thread.h"
#include "workers.h"
#include "young_marker.h"

extern char **environ;

corral_config corral_runtime_config;

/* Writer: corral_init (once, CAS). Readers: corral_init, corral_shutdown. */
static _Atomic int init_state; /* 0 none, 1 running, 2 done */

static void print_gc_context(FILE *out)
{
    fprintf(out, "  heap: %p..%p, top %p, %zu bytes live after the last collection\n",
            (void *)corral_heap.base, (void *)corral_heap.end, (void *)corral_heap.top,
            corral_heap.live_after_gc);
}

/* The pause goal of concurrent minor collections with the auto nursery,
 * when CORRAL_GC_PAUSE_GOAL_US is not set: issue 19's goal for the p99. */
#define CONCURRENT_PAUSE_GOAL_US 1000u

static int start_runtime(const corral_options *options)
{
    corral_config *config = &corral_runtime_config;
    int status = corral_config_load(config, options, environ);
    if (config->help)
        corral_config_print_help(stderr);
    if (status)
        return status;
    if ((status = tagged_scheme_set(options ? options->tag_scheme : NULL)))
        return status;
    if ((status = stats_init()))
        return status;
    if ((config->stress_minor || config->stress_mixed_major_one_in) && !config->gc_generational) {
        corral_set_error("CORRAL_GC_STRESS=%s chooses minor collections, which need "
                         "CORRAL_GC_GENERATIONAL=1",
                         config->stress_minor ? "minor" : "mixed");
        return CORRAL_ERROR_CONFIG;
    }
    if (config->gc_concurrent && (!config->gc_generational || (config->verify & CORRAL_VERIFY_SATB))) {
        corral_set_error("CORRAL_GC_CONCURRENT=1 marks minor collections concurrently: %s",
                         !config->gc_generational
                             ? "it needs CORRAL_GC_GENERATIONAL=1"
                             : "it cannot be combined with CORRAL_GC_VERIFY=satb, which uses "
                               "the deletion barrier's logs itself");
        return CORRAL_ERROR_CONFIG;
    }
    if (config->gc_pause_goal_us && (!config->gc_generational || config->gc_nursery)) {
        corral_set_error("CORRAL_GC_PAUSE_GOAL_US=%u sizes the auto nursery of minor "
                         "collections: %s",
                         config->gc_pause_goal_us,
                         !config->gc_generational
                             ? "it needs CORRAL_GC_GENERATIONAL=1"
                             : "it cannot be set with CORRAL_GC_NURSERY, which fixes the nursery");
        return CORRAL_ERROR_CONFIG;
    }
    unsigned growth_expansiveness =
        generation_growth_expansiveness(config->gc_generational, config->heap_expansiveness);
    if ((status = heap_init(config->heap_min, config->heap_max, config->heap_expansiveness,
                            growth_expansiveness)))
        return status;
    if ((status = barrier_init(config->gc_generational)))
        return status;
    if ((status = threads_init(config->transition_fence == CORRAL_TRANSITION_FENCE_MEMBARRIER)))
        return status;
    char error[512];
    if (stackmap_registry_add_linked(error, sizeof error) != 0) {
        corral_set_error("the stackmaps linked into this program are corrupt: %s", error);
        return CORRAL_ERROR_STACKMAPS;
    }
    if (code_check_init(config->gc_generational, config->gc_concurrent, error, sizeof error)) {
        corral_set_error("%s", error);
        return CORRAL_ERROR_STACKMAPS;
    }
    if (gc_workers_start(config->gc_threads) != 0)
        return CORRAL_ERROR_NO_MEMORY;
    mark_init(gc_workers_count());
    /* Concurrent marking leaves the sweep in the pause, which grows with the
     * nursery: its auto nursery keeps to a pause goal unless one is given. */
    unsigned pause_goal_us = config->gc_pause_goal_us;
    if (config->gc_concurrent && !pause_goal_us && !config->gc_nursery)
        pause_goal_us = CONCURRENT_PAUSE_GOAL_US;
    generation_init(config->gc_generational, config->gc_concurrent, config->gc_nursery,
                    config->gc_promote_after, pause_goal_us, gc_workers_count());
    /* G1's ConcGCThreads: a quarter of the parallel workers, rounded. */
    unsigned markers = config->gc_concurrent_markers;
    if (!markers)
        markers = (gc_workers_count() + 2) / 4;
    if (!markers)
        markers = 1;
    young_marker_init(config->gc_concurrent, markers);
    alloc_init(config->tlab_size, config->large_object_size, config->tlab_zero,
               config->stress_poison);
    corral_fatal_add_context(print_gc_context);
    stress_init();
    if (config->stats)
        atexit(stats_print_summary);
    corral_threads_ready = true;
    return 0;
}

int corral_init(const corral_options *options)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&init_state, &expected, 1)) {
        corral_set_error("corral_init: corral is already initialised");
        return CORRAL_ERROR_STATE;
    }
    int status = start_runtime(options);
    atomic_store(&init_state, status ? 0 : 2);
    return status;
}

const char *corral_last_error(void)
{
    return corral_error_message();
}

static int register_stackmaps(const void *section, size_t size, const char *origin)
{
    char error[512];
    if (stackmap_registry_add(section, size, origin ? origin : "registered code", error,
                              sizeof error) != 0) {
        corral_set_error("corral_register_stackmaps: %s", error);
        return CORRAL_ERROR_STACKMAPS;
    }
    return 0;
}

/* A MANAGED caller registers as UNMANAGED, as HotSpot blocks a JIT thread in
 * the VM: growing the index waits for an RCU grace period, and a collection
 * holds its read lock until every MANAGED thread stops, so a MANAGED thread
 * waiting there (or for the registry lock of one that does) deadlocks the
 * process. Deferring the free with call_rcu alone would not do: call_rcu
 * wants a registered RCU thread and an unattached caller ("any thread") is
 * not one, while its grace period under the registry lock still blocks the
 * MANAGED threads queued behind it; parsing a large table MANAGED would also
 * hold up every stop. UNMANAGED, the wait lasts at most until the current
 * collection ends, a few times in a process's life (the index doubles). */
CORRAL_RUNTIME_ENTRY int corral_register_stackmaps(const void *section, size_t size,
                                                   const char *origin)
{
    corral_thread *self = corral_current_thread;
    if (!self || atomic_load_explicit(&self->state, memory_order_relaxed) != THREAD_MANAGED)
        return register_stackmaps(section, size, origin);
    /* Called from managed code: its frame becomes the anchor the walker starts from. */
    RUNTIME_ENTER(self);
    thread_publish_stopped(self, THREAD_UNMANAGED);
    int status = register_stackmaps(section, size, origin);
    thread_resume_managed(self);
    RUNTIME_LEAVE(self);
    return status;
}

void corral_shutdown(void)
{
    if (atomic_load(&init_state) != 2)
        return;
    young_marker_stop(); /* its collection stays open: the next pause finishes it */
    fflush(stats_log_stream());
}
