/* workers_terminator.c — termination of work-stealing loops, and the per-worker work
 * queues built on it.
 *
 * The terminator (after HotSpot's TaskTerminator, with a futex for the sleepers):
 *
 *                         gc_terminator_offer(worker)
 *                                    |
 *                           offered += 1
 *                                    |
 *           offered == n ? --yes--> wake everyone --------------------------+
 *                                    | no                                  |
 *                                    v                                     v
 *     +--------------------->  [ WAITING ]  -- offered == n ------------> TERMINATED
 *     |                        |          |                             (return true)
 *     |          spin master free:        taken: sleep on                 ^
 *     |          claim it                 wake_generation (futex)         |
 *     |                        |          |   woken: any_work? --yes--+   |
 *     |                        v          +-- no: back to WAITING     |   |
 *     |                [ SPIN MASTER ]                                 |   |
 *     |   polls offered and any_work with backoff                     |   |
 *     |   (pause, yield, then timed futex sleeps up to 1 ms)          |   |
 *     |     offered == n ------------------------------------------------+
 *     |     any_work -> give up the role, wake everyone --+            |
 *     |                                                   v            v
 *     +-- (caller steals, offers again) <-- RETRY <-- withdraw: offered -= 1 unless it is
 *                                       (return false)   already n (then TERMINATED)
 *
 * Why it cannot terminate early: a worker enters offer with an empty deque and no task in
 * hand, and while in offer it pushes nothing; thieves only take. So when all n workers are
 * in offer at once, every deque is empty and stays empty. offered counts exactly the
 * workers in offer, and a withdraw is a CAS that refuses to move it down from n, so n is
 * reached only in that state and, once reached, is final.
 *
 * Why it cannot hang: a sleeper is always woken by whoever changes the outcome — the last
 * offerer (termination) or the spin master leaving (work appeared) — and a sleeper reads
 * wake_generation before it checks for a spin master, so it cannot miss a wake that
 * follows (all seq_cst). While nobody is spin master, a waiting worker claims the role.
 * The spin master itself never sleeps for more than 1 ms at a time.
 */
#include "workers.h"

#include "fatal.h"
#include "splitmix64.h"
#include "workers_wait.h"

#include <stdlib.h>
#include <string.h>

enum {
    SPIN_MASTER_FIRST_SLEEP_NS = 10 * 1000,
    SPIN_MASTER_LONGEST_SLEEP_NS = 1000 * 1000,
};

void gc_terminator_init(gc_terminator *terminator, unsigned workers,
                        bool (*any_work)(void *context), void *context)
{
    CORRAL_CHECK(workers >= 1, "a terminator needs at least one worker");
    terminator->workers = workers;
    terminator->any_work = any_work;
    terminator->context = context;
    atomic_init(&terminator->offered, 0);
    atomic_init(&terminator->spin_master, 0);
    atomic_init(&terminator->wake_generation, 0);
}

static void wake_all_waiting(gc_terminator *terminator)
{
    atomic_fetch_add_explicit(&terminator->wake_generation, 1, memory_order_seq_cst);
    workers_futex_wake_all(&terminator->wake_generation);
}

static bool terminated(gc_terminator *terminator)
{
    return atomic_load_explicit(&terminator->offered, memory_order_seq_cst) ==
           terminator->workers;
}

/* Leaves offer to look for work again; false, unless termination won the race (true). */
static bool withdraw(gc_terminator *terminator)
{
    unsigned offered = atomic_load_explicit(&terminator->offered, memory_order_seq_cst);
    for (;;) {
        if (offered == terminator->workers)
            return true;
        if (atomic_compare_exchange_weak_explicit(&terminator->offered, &offered, offered - 1,
                                                  memory_order_seq_cst, memory_order_seq_cst))
            return false;
    }
}

static bool claim_spin_master(gc_terminator *terminator)
{
    unsigned free_role = 0;
    return atomic_compare_exchange_strong_explicit(&terminator->spin_master, &free_role, 1,
                                                   memory_order_seq_cst, memory_order_seq_cst);
}

static void release_spin_master(gc_terminator *terminator)
{
    atomic_store_explicit(&terminator->spin_master, 0, memory_order_seq_cst);
}

/* The spin master's wait: pause, then yield, then sleep, each time longer. */
static void spin_master_wait(gc_terminator *terminator, uint32_t generation,
                             workers_backoff *backoff, uint64_t *sleep_ns)
{
    if (!workers_backoff_exhausted(backoff)) {
        workers_backoff_step(backoff);
        return;
    }
    /* A wake (termination) ends the sleep at once; new work waits at most this long. */
    workers_futex_wait(&terminator->wake_generation, generation, *sleep_ns);
    *sleep_ns = *sleep_ns * 2 < SPIN_MASTER_LONGEST_SLEEP_NS ? *sleep_ns * 2
                                                              : SPIN_MASTER_LONGEST_SLEEP_NS;
}

static bool act_as_spin_master(gc_terminator *terminator)
{
    workers_backoff backoff = {0};
    uint64_t sleep_ns = SPIN_MASTER_FIRST_SLEEP_NS;
    for (;;) {
        /* Read the generation first, so a termination wake after the check is not lost. */
        uint32_t generation =
            atomic_load_explicit(&terminator->wake_generation, memory_order_seq_cst);
        if (terminated(terminator)) {
            release_spin_master(terminator);
            return true;
        }
        if (terminator->any_work(terminator->context)) {
            release_spin_master(terminator);
            wake_all_waiting(terminator);
            return withdraw(terminator);
        }
        spin_master_wait(terminator, generation, &backoff, &sleep_ns);
    }
}

static bool wait_for_outcome(gc_terminator *terminator)
{
    for (;;) {
        /* Read the generation before looking at the role, so that a spin master leaving
         * after we saw it taken changes the word we sleep on. */
        uint32_t generation =
            atomic_load_explicit(&terminator->wake_generation, memory_order_seq_cst);
        if (terminated(terminator))
            return true;
        if (claim_spin_master(terminator))
            return act_as_spin_master(terminator);
        workers_futex_wait(&terminator->wake_generation, generation, 0);
        if (atomic_load_explicit(&terminator->wake_generation, memory_order_seq_cst) !=
                generation &&
            !terminated(terminator) && terminator->any_work(terminator->context))
            return withdraw(terminator);
    }
}

bool gc_terminator_offer(gc_terminator *terminator, unsigned worker)
{
    unsigned before = atomic_fetch_add_explicit(&terminator->offered, 1, memory_order_seq_cst);
    CORRAL_CHECK(before < terminator->workers,
                 "worker %u offered termination after it was decided (%u of %u offered)",
                 worker, before, terminator->workers);
    if (before + 1 == terminator->workers) {
        /* Everyone is idle with an empty deque: nothing can be left. */
        CORRAL_CHECK(!terminator->any_work(terminator->context),
                     "all %u workers offered termination but a deque still holds work "
                     "(a worker offered with a non-empty deque?)",
                     terminator->workers);
        wake_all_waiting(terminator);
        return true;
    }
    return wait_for_outcome(terminator);
}

/* ---- Work queues --------------------------------------------------------------------- */

static bool any_queue_has_work(void *context)
{
    const gc_work_queues *queues = context;
    for (unsigned worker = 0; worker < queues->active; worker++)
        if (gc_deque_maybe_nonempty(&queues->queues[worker].deque))
            return true;
    return false;
}

void gc_work_queues_init(gc_work_queues *queues, unsigned workers, unsigned log2_capacity)
{
    CORRAL_CHECK(workers >= 1 && workers <= GC_WORKERS_MAX, "work queues for %u workers",
                 workers);
    queues->workers = queues->active = workers;
    queues->queues = aligned_alloc(GC_DEQUE_CACHE_LINE, workers * sizeof(gc_work_queue));
    if (!queues->queues)
        CORRAL_FATAL("out of memory allocating work queues for %u GC workers", workers);
    for (unsigned worker = 0; worker < workers; worker++) {
        gc_work_queue *queue = &queues->queues[worker];
        gc_deque_init(&queue->deque, log2_capacity);
        queue->max_depth = 0;
        queue->victim_random = 0x9e3779b97f4a7c15ull * (worker + 1);
    }
    gc_terminator_init(&queues->terminator, workers, any_queue_has_work, queues);
}

void gc_work_queues_destroy(gc_work_queues *queues)
{
    for (unsigned worker = 0; worker < queues->workers; worker++)
        gc_deque_destroy(&queues->queues[worker].deque);
    free(queues->queues);
    queues->queues = NULL;
}

void gc_work_queues_reset(gc_work_queues *queues, unsigned active)
{
    CORRAL_CHECK(active >= 1 && active <= queues->workers,
                 "work queues of %u workers reset for %u", queues->workers, active);
    queues->active = active;
    for (unsigned worker = 0; worker < queues->workers; worker++) {
        gc_work_queue *queue = &queues->queues[worker];
        CORRAL_CHECK(gc_deque_size(&queue->deque) == 0,
                     "work queue %u reset with %zu tasks in it", worker,
                     gc_deque_size(&queue->deque));
        gc_deque_release_retired(&queue->deque);
        queue->max_depth = 0;
    }
    gc_terminator_init(&queues->terminator, active, any_queue_has_work, queues);
}

uint64_t gc_work_queues_max_depth(const gc_work_queues *queues)
{
    uint64_t deepest = 0;
    for (unsigned worker = 0; worker < queues->workers; worker++)
        if (queues->queues[worker].max_depth > deepest)
            deepest = queues->queues[worker].max_depth;
    return deepest;
}

/* Two sweeps over the other workers, each from a random start: every deque is tried
 * (so work anywhere is found) and thieves spread over victims. */
static bool try_steal_round(gc_work_queues *queues, unsigned thief, gc_task *out)
{
    unsigned others = queues->active - 1;
    for (unsigned sweep = 0; sweep < 2 && others > 0; sweep++) {
        unsigned start = (unsigned)(splitmix64(&queues->queues[thief].victim_random) % others);
        for (unsigned step = 0; step < others; step++) {
            unsigned victim = (thief + 1 + (start + step) % others) % queues->active;
            bool stolen = gc_deque_steal(&queues->queues[victim].deque, out);
            gc_phase_note_steal(thief, stolen);
            if (stolen)
                return true;
        }
    }
    return false;
}

static bool search_for_work(gc_work_queues *queues, unsigned worker, gc_task *out)
{
    uint64_t start_ns = gc_workers_now_ns();
    bool found;
    for (;;) {
        if (try_steal_round(queues, worker, out)) {
            found = true;
            break;
        }
        if (gc_terminator_offer(&queues->terminator, worker)) {
            found = false;
            break;
        }
    }
    gc_phase_note_idle(worker, gc_workers_now_ns() - start_ns);
    return found;
}

bool gc_work_queues_next(gc_work_queues *queues, unsigned worker, gc_task *out)
{
    gc_work_queue *queue = &queues->queues[worker];
    if (!gc_deque_pop(&queue->deque, out) && !search_for_work(queues, worker, out))
        return false;
    bool tagged = (uintptr_t)out->object & GC_TASK_TAGGED;
    if (!tagged && out->depth > queue->max_depth)
        queue->max_depth = out->depth;
    return true;
}
