/* workers.c — the GC worker pool, per-phase statistics and the dynamic parallel-for.
 *
 * A phase, seen from the collecting thread (worker 0) and a pool thread (worker i > 0):
 *
 *   collector                                   worker i (parked on phase_generation)
 *   ---------                                   --------------------------------------
 *   write current_phase, reset slots
 *   outstanding = count - 1
 *   phase_generation += 1 (release) --------->  sees the new generation (acquire)
 *   futex wake all                              entry_i = now; fn(i); exit_i = now
 *   fn(0)                                       outstanding -= 1 (release)
 *   wait until outstanding == 0 (acquire) <---  the last one wakes the collector
 *   sum the slots into gc_phase_stats           waits for the next generation: spins and
 *                                               yields 50 µs, then sleeps on the futex
 */
#include "workers.h"

#include "fatal.h"
#include "rcu_fork.h"
#include "thread.h"
#include "workers_wait.h"

#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>

/* What one worker records during a phase; one cache line each so that workers never
 * write a shared line. Writer: the worker (plain stores, inside the phase) and the
 * collector (reset, before publishing the phase). Reader: the collector, after the
 * acquire load that sees outstanding reach 0. */
typedef struct worker_slot {
    alignas(GC_DEQUE_CACHE_LINE) uint64_t entry_ns;
    uint64_t exit_ns;
    uint64_t idle_ns;
    uint64_t steals;
    uint64_t steal_attempts;
    uint64_t cpu_ns;
    /* Writer: gc_workers_start, before pthread_create (which orders it). Reader: the
     * new thread. The generation it must wait past for its first phase. */
    uint32_t start_generation;
} worker_slot;

static worker_slot worker_slots[GC_WORKERS_MAX];

/* Writer: gc_workers_start/stop on the collecting thread (relaxed: they run only while no
 * phase runs). Reader: any thread through gc_workers_count. 0 while no pool is started. */
static _Atomic unsigned pool_count;
/* Collecting thread only. */
static pthread_t pool_threads[GC_WORKERS_MAX];

/* The phase to run. Writer: gc_workers_run, plain stores before the release increment of
 * phase_generation. Reader: pool threads, after their acquire load sees the increment. */
static struct {
    gc_phase_fn fn;
    void *context;
    unsigned workers; /* workers 0..workers-1 run it; the others wait for the next one */
    bool stopping;    /* no phase: the pool threads exit */
} current_phase;

/* Writer: gc_workers_set_active on the collecting thread, between phases. Reader: the
 * collecting thread; pool threads read its copy in current_phase. 0 = the whole pool. */
static unsigned active_workers;

/* Futex word. Writer: the collector (fetch_add, release: publishes current_phase).
 * Reader: pool threads (acquire). Incremented once per phase and once per stop. */
static _Atomic uint32_t phase_generation;
/* Futex word. Writer: the collector (relaxed store, published by the generation
 * increment) and pool threads (fetch_sub, release: publishes their slot). Reader: the
 * collector (acquire). Pool threads still running the phase. */
static _Atomic uint32_t workers_outstanding;
/* Writer: any worker (CAS max, relaxed) and the collector (reset before the phase).
 * Reader: the collector after the phase, ordered by workers_outstanding. */
static _Atomic uint64_t phase_span_ns;
/* Writer and reader: gc_workers_run (exchange, acquire/release). Catches a phase started
 * inside a phase or from a second thread. */
static _Atomic bool phase_running;

/* The calling thread's worker index while it runs a phase. */
static __thread int current_worker = GC_WORKER_NONE;

uint64_t gc_workers_now_ns(void)
{
    return workers_monotonic_ns();
}

unsigned gc_workers_count(void)
{
    unsigned count = atomic_load_explicit(&pool_count, memory_order_relaxed);
    return count ? count : 1;
}

void gc_workers_set_active(unsigned active)
{
    CORRAL_CHECK(!atomic_load_explicit(&phase_running, memory_order_relaxed),
                 "gc_workers_set_active(%u) called during a phase", active);
    active_workers = active;
}

unsigned gc_workers_active(void)
{
    unsigned pool = gc_workers_count();
    return active_workers && active_workers < pool ? active_workers : pool;
}

int gc_workers_current(void)
{
    return current_worker;
}

/* ---- Pool threads -------------------------------------------------------------------- */

/* How long a worker that finished a phase, or the collector waiting for the pool, spins
 * and yields before sleeping in the kernel: long enough to catch the next phase of the
 * same GC (a futex wake-up costs 10 µs and more), short enough to sleep between GCs. A
 * pool with more workers than CPUs does not spin: the spinners would take the CPUs from
 * the workers still running (measured: 4 workers on 2 CPUs, 23 µs an empty phase with
 * futex sleeps, 100 µs with yielding). */
enum { PHASE_SPIN_NS = 50 * 1000 };
/* Writer: gc_workers_start, before creating the threads. Reader: the pool's threads and
 * the collector. PHASE_SPIN_NS, or 0 for an oversubscribed pool. */
static uint64_t phase_spin_ns;

static uint64_t spin_budget_for(unsigned count)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && count <= (unsigned long)cpus ? PHASE_SPIN_NS : 0;
}

static uint32_t wait_for_next_phase(uint32_t seen)
{
    return workers_wait_while_equal(&phase_generation, seen, phase_spin_ns);
}

/* Thread CPU time is a system call (not in the vDSO): read twice per worker per phase. */
static uint64_t thread_cpu_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void run_phase_on_worker(unsigned worker)
{
    worker_slot *slot = &worker_slots[worker];
    current_worker = (int)worker;
    uint64_t cpu_start_ns = thread_cpu_ns();
    slot->entry_ns = gc_workers_now_ns();
    current_phase.fn(worker, current_phase.context);
    slot->exit_ns = gc_workers_now_ns();
    slot->cpu_ns = thread_cpu_ns() - cpu_start_ns;
    current_worker = GC_WORKER_NONE;
}

static void finish_phase_on_worker(void)
{
    /* Release: the collector's acquire load of 0 sees this worker's slot and results. */
    if (atomic_fetch_sub_explicit(&workers_outstanding, 1, memory_order_release) == 1)
        workers_futex_wake_all(&workers_outstanding);
}

void gc_thread_started(const char *name)
{
    pthread_setname_np(pthread_self(), name);
    thread_is_collector = true;
}

static void *worker_main(void *argument)
{
    unsigned worker = (unsigned)(uintptr_t)argument;
    uint32_t seen = worker_slots[worker].start_generation;
    char name[16];
    snprintf(name, sizeof name, "corral-gc-%u", worker);
    gc_thread_started(name);
    /* Phases look up stackmaps under RCU. */
    rcu_fork_register_thread();
    for (;;) {
        seen = wait_for_next_phase(seen);
        if (current_phase.stopping)
            break;
        if (worker >= current_phase.workers)
            continue; /* not counted in workers_outstanding */
        run_phase_on_worker(worker);
        finish_phase_on_worker();
    }
    rcu_fork_unregister_thread();
    return NULL;
}

/* Wakes the first `started` pool threads to exit and joins them. */
static void stop_pool_threads(unsigned started)
{
    current_phase.stopping = true;
    atomic_fetch_add_explicit(&phase_generation, 1, memory_order_release);
    workers_futex_wake_all(&phase_generation);
    for (unsigned worker = 1; worker < started; worker++) {
        int error = pthread_join(pool_threads[worker], NULL);
        if (error)
            CORRAL_FATAL("joining GC worker %u: %s", worker, strerror(error));
    }
    current_phase.stopping = false;
}

void gc_block_async_signals(sigset_t *saved)
{
    sigset_t blocked;
    sigfillset(&blocked);
    sigdelset(&blocked, SIGSEGV);
    sigdelset(&blocked, SIGBUS);
    sigdelset(&blocked, SIGFPE);
    sigdelset(&blocked, SIGILL);
    sigdelset(&blocked, SIGTRAP);
    pthread_sigmask(SIG_SETMASK, &blocked, saved);
}

/* A forked child has none of the pool threads: it runs phases on the caller alone until it
 * starts a pool of its own (a GC in the child would otherwise wait for them forever). */
static void forget_pool_in_child(void)
{
    atomic_store_explicit(&pool_count, 0, memory_order_relaxed);
    atomic_store_explicit(&phase_running, false, memory_order_relaxed);
    current_phase.stopping = false;
}

static void install_fork_handler(void)
{
    if (pthread_atfork(NULL, NULL, forget_pool_in_child) != 0)
        CORRAL_FATAL("pthread_atfork for the GC worker pool failed");
}

int gc_workers_start(unsigned count)
{
    static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
    pthread_once(&fork_handler_once, install_fork_handler);
    if (count == 0 || count > GC_WORKERS_MAX) {
        corral_set_error("GC worker count %u: expected 1 .. %d", count, GC_WORKERS_MAX);
        return -1;
    }
    unsigned running = atomic_load_explicit(&pool_count, memory_order_relaxed);
    if (running) {
        corral_set_error("GC workers already started (%u); stop them first", running);
        return -1;
    }
    uint32_t generation = atomic_load_explicit(&phase_generation, memory_order_relaxed);
    phase_spin_ns = spin_budget_for(count);
    sigset_t saved;
    gc_block_async_signals(&saved);
    for (unsigned worker = 1; worker < count; worker++) {
        worker_slots[worker].start_generation = generation;
        int error = pthread_create(&pool_threads[worker], NULL, worker_main,
                                   (void *)(uintptr_t)worker);
        if (error) {
            pthread_sigmask(SIG_SETMASK, &saved, NULL);
            stop_pool_threads(worker);
            corral_set_error("cannot start GC worker %u of %u: %s", worker, count,
                             strerror(error));
            return -1;
        }
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    atomic_store_explicit(&pool_count, count, memory_order_relaxed);
    return 0;
}

void gc_workers_stop(void)
{
    unsigned count = atomic_load_explicit(&pool_count, memory_order_relaxed);
    if (count == 0)
        return;
    CORRAL_CHECK(!atomic_load_explicit(&phase_running, memory_order_relaxed),
                 "gc_workers_stop called during a phase");
    stop_pool_threads(count);
    atomic_store_explicit(&pool_count, 0, memory_order_relaxed);
}

/* ---- Running a phase ----------------------------------------------------------------- */

static void reset_slots(unsigned count)
{
    for (unsigned worker = 0; worker < count; worker++) {
        worker_slot *slot = &worker_slots[worker];
        slot->entry_ns = slot->exit_ns = slot->idle_ns = 0;
        slot->steals = slot->steal_attempts = slot->cpu_ns = 0;
    }
    atomic_store_explicit(&phase_span_ns, 0, memory_order_relaxed);
}

static void wake_pool_for_phase(unsigned count)
{
    /* Relaxed: the release increment below publishes it with the phase. */
    atomic_store_explicit(&workers_outstanding, count - 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&phase_generation, 1, memory_order_release);
    workers_futex_wake_all(&phase_generation);
}

static void wait_for_pool(void)
{
    uint32_t left = atomic_load_explicit(&workers_outstanding, memory_order_acquire);
    while (left != 0)
        left = workers_wait_while_equal(&workers_outstanding, left, phase_spin_ns);
}

static uint64_t at_least(uint64_t value, uint64_t floor)
{
    return value > floor ? value : floor;
}

/* Sums the slots; see workers.h for the accounting identity this keeps. */
static void collect_phase_stats(gc_phase_stats *stats, const char *name, unsigned count,
                                uint64_t start_ns)
{
    uint64_t end_ns = start_ns;
    for (unsigned worker = 0; worker < count; worker++)
        end_ns = at_least(worker_slots[worker].exit_ns, end_ns);
    *stats = (gc_phase_stats){.name = name, .wall_ns = end_ns - start_ns, .workers = count};
    for (unsigned worker = 0; worker < count; worker++) {
        const worker_slot *slot = &worker_slots[worker];
        uint64_t entry_ns = at_least(slot->entry_ns, start_ns);
        uint64_t exit_ns = at_least(slot->exit_ns, entry_ns);
        uint64_t own_ns = exit_ns - entry_ns;
        uint64_t idle_ns = slot->idle_ns < own_ns ? slot->idle_ns : own_ns;
        stats->wake_ns += entry_ns - start_ns;
        stats->work_ns += own_ns - idle_ns;
        stats->idle_ns += idle_ns;
        stats->tail_ns += end_ns - exit_ns;
        stats->steals += slot->steals;
        stats->steal_attempts += slot->steal_attempts;
        stats->cpu_ns += slot->cpu_ns;
    }
    stats->span_ns = atomic_load_explicit(&phase_span_ns, memory_order_relaxed);
}

void gc_workers_run(const char *name, gc_phase_fn fn, void *context, gc_phase_stats *stats)
{
    CORRAL_CHECK(!atomic_exchange_explicit(&phase_running, true, memory_order_acquire),
                 "GC phase '%s' started inside another phase or from a second thread", name);
    unsigned count = gc_workers_active();
    reset_slots(count);
    current_phase.fn = fn;
    current_phase.context = context;
    current_phase.workers = count;
    uint64_t start_ns = gc_workers_now_ns();
    if (count > 1)
        wake_pool_for_phase(count);
    run_phase_on_worker(0);
    if (count > 1)
        wait_for_pool();
    if (stats)
        collect_phase_stats(stats, name, count, start_ns);
    atomic_store_explicit(&phase_running, false, memory_order_release);
}

/* ---- Statistics a phase reports ------------------------------------------------------ */

void gc_phase_note_idle(unsigned worker, uint64_t ns)
{
    CORRAL_DEBUG_ASSERT(worker < GC_WORKERS_MAX, "worker %u", worker);
    worker_slots[worker].idle_ns += ns;
}

void gc_phase_note_steal(unsigned worker, bool succeeded)
{
    CORRAL_DEBUG_ASSERT(worker < GC_WORKERS_MAX, "worker %u", worker);
    worker_slots[worker].steal_attempts++;
    worker_slots[worker].steals += succeeded;
}

void gc_phase_note_span(uint64_t ns)
{
    uint64_t longest = atomic_load_explicit(&phase_span_ns, memory_order_relaxed);
    /* Relaxed: only the maximum matters, read after the phase's join. */
    while (ns > longest &&
           !atomic_compare_exchange_weak_explicit(&phase_span_ns, &longest, ns,
                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
}

double gc_predicted_speedup(uint64_t work_ns, uint64_t span_ns, unsigned n)
{
    if (work_ns == 0 || n == 0)
        return 1.0;
    double work = (double)work_ns;
    double span = (double)(span_ns < work_ns ? span_ns : work_ns);
    double per_worker = work / n;
    return work / (span > per_worker ? span : per_worker);
}

void gc_phase_stats_add(gc_phase_stats *into, const gc_phase_stats *more)
{
    into->wall_ns += more->wall_ns;
    into->work_ns += more->work_ns;
    into->idle_ns += more->idle_ns;
    into->span_ns += more->span_ns;
    into->steals += more->steals;
    into->steal_attempts += more->steal_attempts;
    into->wake_ns += more->wake_ns;
    into->tail_ns += more->tail_ns;
    into->cpu_ns += more->cpu_ns;
    if (more->workers > into->workers)
        into->workers = more->workers;
}

void gc_phase_stats_close(gc_phase_stats *stats, uint64_t start_ns)
{
    uint64_t wall = gc_workers_now_ns() - start_ns;
    uint64_t serial = wall > stats->wall_ns ? wall - stats->wall_ns : 0;
    unsigned workers = stats->workers ? stats->workers : 1;
    stats->work_ns += serial;
    stats->span_ns += serial;
    stats->idle_ns += serial * (workers - 1);
    stats->wall_ns = wall;
    stats->workers = workers;
}

void gc_phase_stats_print(FILE *out, const gc_phase_stats *stats)
{
    fprintf(out,
            "phase %s: workers %u wall %.3f ms work %.3f ms idle %.3f ms span %.3f ms "
            "wake %.3f ms tail %.3f ms cpu %.3f ms steals %llu/%llu "
            "predicted x%.1f@4 x%.1f@8 x%.1f@16\n",
            stats->name ? stats->name : "?", stats->workers, stats->wall_ns / 1e6,
            stats->work_ns / 1e6, stats->idle_ns / 1e6, stats->span_ns / 1e6,
            stats->wake_ns / 1e6, stats->tail_ns / 1e6, stats->cpu_ns / 1e6,
            (unsigned long long)stats->steals,
            (unsigned long long)stats->steal_attempts,
            gc_predicted_speedup(stats->work_ns, stats->span_ns, 4),
            gc_predicted_speedup(stats->work_ns, stats->span_ns, 8),
            gc_predicted_speedup(stats->work_ns, stats->span_ns, 16));
}

/* ---- Dynamic parallel-for ------------------------------------------------------------ */

enum { CHUNKS_PER_WORKER = 8 };

void gc_parallel_range_init(gc_parallel_range *range, size_t count, size_t chunk)
{
    if (chunk == 0) {
        chunk = count / ((size_t)CHUNKS_PER_WORKER * gc_workers_active());
        chunk = chunk ? chunk : 1;
    }
    /* Each worker overshoots the counter by at most one chunk: keep that from wrapping. */
    CORRAL_CHECK(count <= SIZE_MAX / 2 && chunk <= SIZE_MAX / 2 / (GC_WORKERS_MAX + 1),
                 "parallel range of %zu items in chunks of %zu is too large", count, chunk);
    atomic_init(&range->next, 0);
    range->count = count;
    range->chunk = chunk;
}

void gc_parallel_for(gc_parallel_range *range, unsigned worker,
                     void (*body)(unsigned worker, size_t first, size_t end, void *context),
                     void *context)
{
    uint64_t longest_chunk_ns = 0;
    for (;;) {
        size_t first = atomic_fetch_add_explicit(&range->next, range->chunk,
                                                 memory_order_relaxed);
        if (first >= range->count)
            break;
        size_t end = range->count - first < range->chunk ? range->count : first + range->chunk;
        uint64_t start_ns = gc_workers_now_ns();
        body(worker, first, end, context);
        uint64_t took_ns = gc_workers_now_ns() - start_ns;
        longest_chunk_ns = took_ns > longest_chunk_ns ? took_ns : longest_chunk_ns;
    }
    /* A chunk runs on one worker start to end: the longest one bounds the span. */
    if (longest_chunk_ns)
        gc_phase_note_span(longest_chunk_ns);
}
