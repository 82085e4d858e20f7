/* stress.c — the stress schedules and their hooks. */
#include "stress.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "config.h"
#include "coordinator.h"
#include "arch.h"
#include "fatal.h"
#include "gc.h"
#include "generation.h"
#include "heap.h"
#include "los.h"
#include "ptr_table.h"
#include "quarantine.h"
#include "splitmix64.h"
#include "stats.h"
#include "symbolize.h"
#include "thread.h"

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

/* An interval uniform in [1, 2 * mean - 1]: its mean is mean. */
static uint64_t random_interval(void)
{
    uint64_t mean = corral_runtime_config.stress_alloc_random_mean;
    pthread_mutex_lock(&random_lock);
    uint64_t value = splitmix64(&random_state);
    pthread_mutex_unlock(&random_lock);
    return 1 + value % (2 * mean - 1);
}

/* mixed:N: the generator choosing minor or major. Collector only. */
static uint64_t kind_state;

stress_kind stress_collection_kind(void)
{
    const corral_config *config = &corral_runtime_config;
    if (config->stress_minor)
        return STRESS_KIND_MINOR;
    if (config->stress_mixed_major_one_in)
        return splitmix64(&kind_state) % config->stress_mixed_major_one_in == 0
                   ? STRESS_KIND_MAJOR
                   : STRESS_KIND_MINOR;
    return STRESS_KIND_POLICY;
}

/* ------------------------------------------------ why a stress GC ran */

/* The last stress-triggered collection, for fatal and crash reports: the
 * collections completed when it was requested, the requesting thread and
 * its managed site. Writers: the requesting thread (relaxed stores; the
 * fields may mix two requests racing on different threads, which only
 * blurs a report). Readers: fatal reports on any thread. */
static _Atomic uint64_t last_gc_before;
static _Atomic uintptr_t last_site;
static _Atomic unsigned last_thread_id;
static _Atomic int last_tid;
static const char *_Atomic last_cause;

static void note_stress_collection(corral_thread *self, const char *cause, uint64_t allocation)
{
    uint64_t before = gc_count();
    uintptr_t site = self->anchor.return_address;
    atomic_store_explicit(&last_gc_before, before, memory_order_relaxed);
    atomic_store_explicit(&last_site, site, memory_order_relaxed);
    atomic_store_explicit(&last_thread_id, self->id, memory_order_relaxed);
    atomic_store_explicit(&last_tid, (int)self->tid, memory_order_relaxed);
    atomic_store_explicit(&last_cause, cause, memory_order_relaxed);
    if (!(corral_runtime_config.log & CORRAL_LOG_STRESS))
        return;
    char symbol[256] = "a C caller";
    if (site)
        corral_describe_return_address(site, symbol, sizeof symbol);
    if (allocation)
        fprintf(stats_log_stream(),
                "corral: stress: %s at allocation #%" PRIu64 " after gc %" PRIu64
                " (%s, site %s)\n",
                cause, allocation, before, self->name, symbol);
    else
        fprintf(stats_log_stream(), "corral: stress: %s after gc %" PRIu64 " (%s, site %s)\n",
                cause, before, self->name, symbol);
}

bool stress_counts_allocations(void)
{
    return any_allocation_mode;
}

bool stress_allocation_due(corral_thread *self)
{
    if (!any_allocation_mode)
        return false;
    const corral_config *config = &corral_runtime_config;
    if (config->stress_thread_alloc_every &&
        self->allocations % config->stress_thread_alloc_every == 0) {
        note_stress_collection(self, "thread-alloc", self->allocations);
        return true;
    }
    uint64_t count = atomic_fetch_add_explicit(&allocation_count, 1, memory_order_relaxed) + 1;
    if (config->stress_alloc_every && count % config->stress_alloc_every == 0) {
        note_stress_collection(self, "alloc", count);
        return true;
    }
    if (config->stress_alloc_random_mean) {
        uint64_t due = atomic_load_explicit(&next_random_due, memory_order_relaxed);
        if (count >= due &&
            atomic_compare_exchange_strong_explicit(&next_random_due, &due,
                                                    count + random_interval(),
                                                    memory_order_relaxed, memory_order_relaxed)) {
            note_stress_collection(self, "alloc:random", count);
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------ poll sites */

/* Poll sites already collected at (their return addresses). Writers:
 * threads in the poll slow path, under sites_lock. */
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static ptr_table sites;

static void collect_at_new_poll_site(corral_thread *self)
{
    uintptr_t site = self->anchor.return_address;
    if (!site || !self->segment)
        return; /* a C caller: not a compiled poll site */
    bool first;
    pthread_mutex_lock(&sites_lock);
    ptr_table_insert(&sites, (void *)site, &first);
    pthread_mutex_unlock(&sites_lock);
    if (first) {
        note_stress_collection(self, "polls: first visit of a poll site", 0);
        gc_collect(self, "stress-poll", GC_WANT_ANY);
    }
}

static void collect_at_transition(corral_thread *self)
{
    note_stress_collection(self, "transitions", 0);
    gc_collect(self, "stress-transition", GC_WANT_ANY);
}

/* ---------------------------------------------------- replayable reports */

static void print_stress_context(FILE *out)
{
    char modes[256];
    corral_config_format_stress(&corral_runtime_config, modes, sizeof modes);
    /* Without stress nothing was drawn from the seed: it replays nothing. */
    if (modes[0])
        fprintf(out, "  gc: %" PRIu64 " collections completed; stress: %s; seed: %" PRIu64
                     " (replay: CORRAL_GC_SEED=%" PRIu64 ")\n",
                gc_count(), modes, seed, seed);
    else
        fprintf(out, "  gc: %" PRIu64 " collections completed; stress: off\n", gc_count());
    corral_thread *self = corral_current_thread;
    if (self) {
        char symbol[256] = "none";
        if (self->anchor.return_address)
            corral_describe_code_address(self->anchor.return_address, symbol, sizeof symbol);
        fprintf(out, "  thread: %s (tid %d), last managed frame at %s\n", self->name,
                (int)self->tid, symbol);
    }
    const char *cause = atomic_load_explicit(&last_cause, memory_order_relaxed);
    if (cause) {
        uintptr_t site = atomic_load_explicit(&last_site, memory_order_relaxed);
        char symbol[256] = "a C caller";
        if (site)
            corral_describe_return_address(site, symbol, sizeof symbol);
        fprintf(out, "  last stress collection: %s, requested after gc %" PRIu64
                     " by thread %u (tid %d) at %s\n",
                cause, atomic_load_explicit(&last_gc_before, memory_order_relaxed),
                atomic_load_explicit(&last_thread_id, memory_order_relaxed),
                atomic_load_explicit(&last_tid, memory_order_relaxed), symbol);
    }
}

/* ------------------------------------------------------- crash reports */

/* Under stress a stale reference usually ends in SIGSEGV (the poison
 * pattern is not a canonical address) far from any corral code: report it
 * like a fatal error, with the seed, the GC count, the last stress
 * collection and any register holding the pattern, then die by the signal. */
static const struct {
    int index;
    const char *name;
} registers[] = ARCH_SIGNAL_REGISTERS;

static bool near_poison(uint64_t value)
{
    return value - (CORRAL_POISON_PATTERN - 0x10000) < 0x20000;
}

static void crash_handler(int signal, siginfo_t *info, void *context)
{
    const ucontext_t *uc = context;
    uintptr_t pc = ARCH_SIGNAL_PC(uc);
    char where[256];
    corral_describe_code_address(pc, where, sizeof where);
    FILE *out = stderr;
    fflush(stdout);
    fprintf(out, "corral: fatal: %s (fault address %p) at pc %#lx (%s) under CORRAL_GC_STRESS\n",
            signal == SIGBUS ? "SIGBUS" : "SIGSEGV", info->si_addr, (unsigned long)pc, where);
    bool poisoned = near_poison((uint64_t)(uintptr_t)info->si_addr);
    for (size_t i = 0; i < sizeof registers / sizeof registers[0]; i++) {
        uint64_t value = ARCH_SIGNAL_REGISTER(uc, registers[i].index);
        if (near_poison(value)) {
            fprintf(out, "  register %s holds %#" PRIx64 "\n", registers[i].name, value);
            poisoned = true;
        }
    }
    if (poisoned)
        fprintf(out, "  that is the poison pattern 0xbadc0ffee0ddf00d (or an address near it): a "
                     "value read from memory the collector vacated, through a stale reference "
                     "that was not relocated (a root the stackmaps or handles did not cover)\n");
    print_stress_context(out);
    fflush(out);
    /* SA_RESETHAND restored the default: the fault repeats and kills us. */
    if (info->si_code <= 0)
        raise(signal);
}

static void install_crash_handler(int signal)
{
    struct sigaction previous;
    if (sigaction(signal, NULL, &previous) != 0 || previous.sa_handler != SIG_DFL ||
        (previous.sa_flags & SA_SIGINFO))
        return; /* the program handles it: leave it alone */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = crash_handler;
    action.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, NULL);
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
    kind_state = seed ^ 0x6b696e64; /* its own sequence: alloc:random's stays as it was */
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
    if (config->stress_poison)
        los_set_poison(true, CORRAL_POISON_PATTERN);
    corral_fatal_add_context(print_stress_context);
    char modes[256];
    corral_config_format_stress(config, modes, sizeof modes);
    if (modes[0]) {
        install_crash_handler(SIGSEGV);
        install_crash_handler(SIGBUS);
    }
    /* After the crash handler: quarantine's chains to it for other faults. */
    quarantine_init();
    if (modes[0])
        fprintf(stats_log_stream(),
                "corral: stress: CORRAL_GC_STRESS=%s seed=%" PRIu64
                " (replay with CORRAL_GC_SEED=%" PRIu64 ")\n",
                modes, seed, seed);
}
