/* workers.h — the GC worker pool every parallel phase runs on, with the tools a phase
 * needs: a dynamic parallel-for, a termination protocol for work stealing, per-worker
 * work queues, and per-phase work/span statistics.
 *
 * Worker 0 is the thread that calls gc_workers_run (the collecting thread); workers
 * 1..count-1 are threads started once by gc_workers_start, registered with liburcu
 * (memb) so phases may read RCU-protected tables, never attached as mutators, blocking
 * async signals, and parked on a futex between phases: after a phase they spin and yield
 * for 50 µs to catch the next phase of the same GC (not when the pool has more workers
 * than CPUs), then sleep, so idle workers between GCs use no CPU.
 *
 * Guarantees: gc_workers_run calls fn exactly once on every active worker (the first
 * gc_workers_active() of the pool; the rest stay parked) and returns when all
 * have returned; everything the caller wrote before it happens-before every fn, and
 * everything each fn wrote happens-before its return. Only one thread may run phases, and
 * a phase may not run another phase. There is no barrier inside a phase: where all workers
 * must finish one step before the next begins (live bytes, then prefix sums, then
 * forwarding), end the phase and run the next one (an empty phase costs 1.5 to 3.5 µs on 4 of 16 cores).
 *
 * Work/span accounting (issue 9). For each worker i of a phase, with the phase starting
 * at S and ending at E (the last worker's return):
 *
 *   S ---- wake_i ----> entry_i ---- busy_i + idle_i ----> exit_i ---- tail_i ----> E
 *
 * idle_i is what the phase reported with gc_phase_note_idle (time spent looking for work
 * or in termination), so busy_i is real work. The sums obey, exactly:
 *   work_ns + idle_ns + wake_ns + tail_ns == wall_ns * workers
 * span_ns is the longest serial piece the phase reported with gc_phase_note_span (the
 * largest chunk, the deepest chain); gc_predicted_speedup turns (work, span) into the
 * speed-up the phase can reach on n workers. All of these are wall-clock times: on a
 * machine with fewer cores than busy threads they include time a worker was preempted,
 * which cpu_ns (thread CPU time) shows.
 */
#ifndef CORRAL_WORKERS_H
#define CORRAL_WORKERS_H

#include "deque.h"

#include <stdatomic.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most workers a pool may have (CORRAL_GC_THREADS is checked against it). */
enum { GC_WORKERS_MAX = 256 };
/* gc_workers_current() outside any phase. */
enum { GC_WORKER_NONE = -1 };

/* Starts count - 1 threads (count 1 starts none). 0, or -1 with corral_set_error when
 * count is out of range, the pool is already started, or a thread cannot be created (the
 * threads already started are stopped again). */
int gc_workers_start(unsigned count);
/* Stops and joins the threads; gc_workers_start may be called again afterwards. A forked
 * child starts with no pool (count 1) whatever its parent had. */
void gc_workers_stop(void);
/* The pool's worker count; 1 while no pool is started (phases then run on the caller). */
unsigned gc_workers_count(void);
/* How many workers the next phases run on: the first `active` of the pool (0 or more
 * than the pool: all of it). Collecting thread only, between phases; it lasts until the
 * next call. With one, phases run on the caller and the pool sleeps on. */
void gc_workers_set_active(unsigned active);
/* The workers a phase runs on now: what gc_workers_set_active chose, within the pool. */
unsigned gc_workers_active(void);
/* The worker index of the calling thread while it runs a phase, else GC_WORKER_NONE. */
int gc_workers_current(void);

typedef struct gc_phase_stats {
    const char *name;
    uint64_t wall_ns;  /* start of the phase to the last worker's return */
    uint64_t work_ns;  /* sum over workers of busy time (own time minus idle) */
    uint64_t idle_ns;  /* sum over workers of time spent looking for work / in termination */
    uint64_t span_ns;  /* longest serial piece; set by the phase via gc_phase_note_span() */
    uint64_t steals, steal_attempts;
    unsigned workers;
    uint64_t wake_ns;  /* sum over workers of phase start -> their fn starting (wake-up) */
    uint64_t tail_ns;  /* sum over workers of their return -> the last return (imbalance) */
    uint64_t cpu_ns;   /* sum over workers of thread CPU time in fn: less than work + idle
                        * by the time workers were preempted (oversubscription) */
} gc_phase_stats;

typedef void (*gc_phase_fn)(unsigned worker, void *context);
/* Runs fn(worker, context) on each active worker, returns when all have returned; fills
 * *stats (stats may be NULL). */
void gc_workers_run(const char *name, gc_phase_fn fn, void *context, gc_phase_stats *stats);

/* Inside a phase, from the worker itself: time spent idle, one steal attempt, and the
 * longest unsplittable piece seen (any worker; the phase keeps the maximum). */
void gc_phase_note_idle(unsigned worker, uint64_t ns);
void gc_phase_note_steal(unsigned worker, bool succeeded);
void gc_phase_note_span(uint64_t ns);

/* Predicted speed-up at n workers from a phase's work and span: work / max(span, work / n).
 * 1 when there was no work; span is clamped to work. */
double gc_predicted_speedup(uint64_t work_ns, uint64_t span_ns, unsigned n);
/* One line: name, wall, work, idle, span, steals, predicted speed-up at 4, 8, 16. */
void gc_phase_stats_print(FILE *out, const gc_phase_stats *stats);
/* Adds more's times and steals to into, a phase run in several parts: the
 * spans add up too (the parts run one after another); workers is the most
 * any part had. */
void gc_phase_stats_add(gc_phase_stats *into, const gc_phase_stats *more);
/* Ends a phase run in parts (gc_phase_stats_add), begun at start_ns: the wall becomes
 * now - start_ns. The time outside the parts' walls (the collecting thread's code between
 * them, and its wake-up when a part's last worker returns) counts as work and as span (no
 * worker count shortens it), and as idle for the other workers, so that
 * work + idle + wake + tail == wall x workers still holds when every part ran on the same
 * workers. */
void gc_phase_stats_close(gc_phase_stats *stats, uint64_t start_ns);

/* Monotonic nanoseconds, the clock every phase statistic uses. */
uint64_t gc_workers_now_ns(void);

/* ---- Dynamic parallel-for ------------------------------------------------------------ */

/* Items [0, count) handed out chunk by chunk from an atomic counter: fast workers take more
 * chunks, so uneven items balance themselves. Every worker of the phase calls
 * gc_parallel_for; it returns when no chunk is left. Each chunk is timed and the longest
 * is noted as the phase's span. */
typedef struct gc_parallel_range {
    /* Writer: every worker (fetch_add, relaxed: it only partitions indices; the phase
     * start and end order the items' data). Reader: the same. The next unclaimed item. */
    _Atomic size_t next;
    size_t count;  /* set by gc_parallel_range_init, read-only during the phase */
    size_t chunk;
} gc_parallel_range;

/* Call before the phase that uses the range (not inside it). chunk 0 picks one: about 8
 * chunks per worker, at least 1 item. */
void gc_parallel_range_init(gc_parallel_range *range, size_t count, size_t chunk);
void gc_parallel_for(gc_parallel_range *range, unsigned worker,
                     void (*body)(unsigned worker, size_t first, size_t end, void *context),
                     void *context);

/* ---- Termination of work-stealing loops ---------------------------------------------- */

/* A worker whose own deque is empty and that found nothing to steal calls offer. offer
 * returns true when every worker is in offer (so every deque is empty and stays so: all
 * stop), false when any_work says work may have appeared (withdraw, look again). It never
 * hangs: waiting workers sleep on a futex, one "spin master" polls any_work with backoff
 * and wakes them when work appears. Call offer only with your own deque empty and no
 * task in hand. The caller accounts the time it spends in offer as idle. */
typedef struct gc_terminator {
    unsigned workers;
    bool (*any_work)(void *context);
    void *context;
    /* Writer: offering workers (fetch_add / CAS, seq_cst). Reader: offering workers.
     * Workers now in offer; equal to workers means terminated, and it never moves again. */
    _Atomic unsigned offered;
    /* Writer: offering workers (CAS / store, seq_cst). Reader: the same. 1 while a spin
     * master polls any_work; the others sleep. */
    _Atomic unsigned spin_master;
    /* Writer: the worker that terminates or that sees work (fetch_add, seq_cst), then
     * wakes the futex. Reader: sleeping workers (seq_cst, futex word). */
    _Atomic uint32_t wake_generation;
} gc_terminator;

/* Call before the phase (not inside it); one terminator per work-stealing loop. */
void gc_terminator_init(gc_terminator *terminator, unsigned workers,
                        bool (*any_work)(void *context), void *context);
bool gc_terminator_offer(gc_terminator *terminator, unsigned worker);

/* The collector's own threads (the pool, the concurrent marker) take no asynchronous
 * signals: the host VM's handlers expect its own threads. Synchronous faults stay
 * deliverable (blocking them would kill the process). Sets the caller's mask to that,
 * saving the old one in *saved for the caller to restore after pthread_create. */
void gc_block_async_signals(sigset_t *saved);
/* First call of each collector thread: names it (at most 15 characters) and marks it as
 * the collector's (thread_is_collector), so the trace hooks it runs never attach it. */
void gc_thread_started(const char *name);

/* ---- Work queues: one deque per worker, stealing and termination in one call ----------- */

/* The usual work-stealing loop, packaged: push onto your own deque, and ask for the next
 * task; it pops locally, else steals from other workers (counting attempts and steals),
 * else offers termination, and notes the searching time as idle.
 *
 *   while (gc_work_queues_next(&queues, worker, &task))
 *       process(task);   // may gc_work_queues_push(&queues, worker, child)
 *
 * It keeps the largest task depth it hands out, for the span. A task whose object pointer
 * has bit 0 set is a tagged task (e.g. "the rest of this array"): its depth word is the
 * phase's own data and is not taken for a depth.
 */
enum { GC_TASK_TAGGED = 1 };
/* One worker's queue: its deque and its own bookkeeping, on lines no other worker writes. */
typedef struct gc_work_queue {
    gc_deque deque;
    uint64_t max_depth;      /* owner only: deepest task it was handed this loop */
    uint64_t victim_random;  /* owner only: splitmix64 state choosing steal victims */
    char padding[GC_DEQUE_CACHE_LINE - 2 * sizeof(uint64_t)];
} gc_work_queue;

typedef struct gc_work_queues {
    unsigned workers;       /* queues allocated */
    unsigned active;        /* workers in the current loop (set by reset); the rest idle */
    gc_work_queue *queues;  /* queues[i] is owned by worker i */
    gc_terminator terminator;
} gc_work_queues;

/* Not thread-safe: call before the phase. Aborts when out of memory. */
void gc_work_queues_init(gc_work_queues *queues, unsigned workers, unsigned log2_capacity);
void gc_work_queues_destroy(gc_work_queues *queues);
/* Between phases (no worker inside next): re-arm termination for the next loop, run by
 * workers 0..active-1 (1 <= active <= workers); the others' queues must stay empty. */
void gc_work_queues_reset(gc_work_queues *queues, unsigned active);
static inline void gc_work_queues_push(gc_work_queues *queues, unsigned worker, gc_task task)
{
    gc_deque_push(&queues->queues[worker].deque, task);
}
/* True with a task, false when all work of the loop is done (on every worker). */
bool gc_work_queues_next(gc_work_queues *queues, unsigned worker, gc_task *out);
/* After the loop: the largest depth of an untagged task any worker was handed (the
 * marker's longest discovery chain, which times the per-task cost gives the span). */
uint64_t gc_work_queues_max_depth(const gc_work_queues *queues);

#endif /* CORRAL_WORKERS_H */
