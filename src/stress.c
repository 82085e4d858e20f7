/* stress.c — the stress schedules and their hooks. */
#include "stress.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "coordinator.h"
#include "fatal.h"
#include "gc.h"
#include "symbolize.h"

/* Set by stress_init before threads attach; read-only afterwards. */
static uint64_t seed;
static bool any_allocation_mode;

/* Allocations counted process-wide (alloc:N, alloc:random). Writers: every
 * allocating thread (relaxed fetch_add: only the count matters). */
static _Atomic uint64_t allocation_count;
/* alloc:random: the allocation count at which the next collection is due.
 * Writer: the thread whose allocation reached it (CAS). */
static _Atomic uint64_t next_random_due;
/* The generator state for alloc:random; advanced under random_lock. */
static uint64_t random_state;
static pthread_mutex_t random_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An interval uniform in [1, 2 * mean - 1]: its mean is mean. */
static uint64_t random_interval(void)
{
    uint64_t mean = corral_runtime_config.stress_alloc_random_mean;
    pthread_mutex_lock(&random_lock);
    uint64_t value = splitmix64(&random_state);
    pthread_mutex_unlock(&random_lock);
    return 1 + value % (2 * mean - 1);
}

bool stress_allocation_due(corral_thread *self)
{
    if (!any_allocation_mode)
        return false;
    const corral_config *config = &corral_runtime_config;
    if (config->stress_thread_alloc_every &&
        self->allocations % config->stress_thread_alloc_every == 0)
        return true;
    uint64_t count = atomic_fetch_add_explicit(&allocation_count, 1, memory_order_relaxed) + 1;
    if (config->stress_alloc_every && count % config->stress_alloc_every == 0)
        return true;
    if (config->stress_alloc_random_mean) {
        uint64_t due = atomic_load_explicit(&next_random_due, memory_order_relaxed);
        if (count >= due &&
            atomic_compare_exchange_strong_explicit(&next_random_due, &due,
                                                    count + random_interval(),
                                                    memory_order_relaxed, memory_order_relaxed))
            return true;
    }
    return false;
}

/* ------------------------------------------------------------ poll sites */

/* Poll sites already collected at: an open-addressing set of return
 * addresses. Writers: threads in the poll slow path, under sites_lock. */
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t *sites;
static size_t site_capacity, site_count;

static bool site_insert_locked(uintptr_t site)
{
    if ((site_count + 1) * 2 > site_capacity) {
        uintptr_t *old = sites;
        size_t old_capacity = site_capacity;
        site_capacity = site_capacity ? site_capacity * 2 : 1024;
        sites = calloc(site_capacity, sizeof *sites);
        if (!sites)
            CORRAL_FATAL("out of memory for %zu stress poll sites", site_capacity);
        site_count = 0;
        for (size_t i = 0; i < old_capacity; i++)
            if (old[i])
                site_insert_locked(old[i]);
        free(old);
    }
    for (size_t i = (site * 0x9e3779b97f4a7c15ull >> 20) & (site_capacity - 1);;
         i = (i + 1) & (site_capacity - 1)) {
        if (sites[i] == site)
            return false;
        if (!sites[i]) {
            sites[i] = site;
            site_count++;
            return true;
        }
    }
}

static void collect_at_new_poll_site(corral_thread *self)
{
    uintptr_t site = self->anchor.return_address;
    if (!site || !self->segment)
        return; /* a C caller: not a compiled poll site */
    pthread_mutex_lock(&sites_lock);
    bool first = site_insert_locked(site);
    pthread_mutex_unlock(&sites_lock);
    if (first) {
        if (corral_runtime_config.log & CORRAL_LOG_STRESS) {
            char symbol[256];
            corral_describe_code_address(site, symbol, sizeof symbol);
            fprintf(stats_log_stream(), "corral: stress: first visit of poll site %s (%s)\n",
                    symbol, self->name);
        }
        gc_collect(self, "stress-poll");
    }
}

static void collect_at_transition(corral_thread *self)
{
    gc_collect(self, "stress-transition");
}

/* ---------------------------------------------------- replayable reports */

static void print_stress_context(FILE *out)
{
    char modes[256];
    corral_config_format_stress(&corral_runtime_config, modes, sizeof modes);
    fprintf(out, "  gc: %" PRIu64 " collections completed; stress: %s; seed: %" PRIu64
                 " (replay: CORRAL_GC_SEED=%" PRIu64 ")\n",
            gc_count(), modes[0] ? modes : "off", seed, seed);
    corral_thread *self = corral_current_thread;
    if (self) {
        char symbol[256] = "none";
        if (self->anchor.return_address)
            corral_describe_code_address(self->anchor.return_address, symbol, sizeof symbol);
        fprintf(out, "  thread: %s (tid %d), last managed frame at %s\n", self->name,
                (int)self->tid, symbol);
    }
}

uint64_t stress_seed(void)
{
    return seed;
}

void stress_init(void)
{
    const corral_config *config = &corral_runtime_config;
    seed = config->seed;
    if (!seed) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        seed = ((uint64_t)now.tv_sec << 32) ^ (uint64_t)now.tv_nsec ^ 0x5eed;
    }
    random_state = seed;
    any_allocation_mode = config->stress_alloc_every || config->stress_thread_alloc_every ||
                          config->stress_alloc_random_mean;
    if (config->stress_alloc_random_mean)
        atomic_store_explicit(&next_random_due, random_interval(), memory_order_relaxed);
    if (config->stress_polls) {
        poll_set_hook(collect_at_new_poll_site);
        poll_set_always_slow(true);
    }
    if (config->stress_transitions)
        transitions_set_hook(collect_at_transition);
    corral_fatal_add_context(print_stress_context);
    char modes[256];
    corral_config_format_stress(config, modes, sizeof modes);
    if (modes[0])
        fprintf(stats_log_stream(),
                "corral: stress: CORRAL_GC_STRESS=%s seed=%" PRIu64
                " (replay with CORRAL_GC_SEED=%" PRIu64 ")\n",
                modes, seed, seed);
}
