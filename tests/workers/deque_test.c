/* deque_test.c — the Chase-Lev deque: LIFO/FIFO semantics against a model, growth, and
 * every task taken exactly once while one owner pushes/pops and 1..7 thieves steal.
 *
 * Usage: deque.t [seed]
 */
#include "deque.h"
#include "tap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

static uint64_t test_seed;

/* A task whose two words check each other, so a torn slot read that escaped would show. */
static gc_task task_for(uint64_t id)
{
    return (gc_task){.object = (void *)(uintptr_t)(id * 16 + 8), .depth = id ^ 0x5bd1e995u};
}

static bool task_id(gc_task task, uint64_t *id)
{
    uint64_t word = (uint64_t)(uintptr_t)task.object;
    *id = (word - 8) / 16;
    return word % 16 == 8 && task.depth == (*id ^ 0x5bd1e995u);
}

static double now_ns(void)
{
    return tap_now() * 1e9;
}

/* ---- Single-threaded semantics ------------------------------------------------------- */

static void test_lifo_fifo(void)
{
    gc_deque deque;
    gc_deque_init(&deque, 4);
    gc_task task;
    ok(!gc_deque_pop(&deque, &task) && !gc_deque_steal(&deque, &task), "new deque is empty");
    ok(!gc_deque_maybe_nonempty(&deque), "new deque: no work hint");
    for (uint64_t id = 1; id <= 5; id++)
        gc_deque_push(&deque, task_for(id));
    ok(gc_deque_maybe_nonempty(&deque) && gc_deque_size(&deque) == 5, "5 pushed, 5 held");
    uint64_t id = 0;
    bool popped = gc_deque_pop(&deque, &task) && task_id(task, &id);
    ok(popped && id == 5, "pop takes the newest (LIFO)");
    bool stolen = gc_deque_steal(&deque, &task) && task_id(task, &id);
    ok(stolen && id == 1, "steal takes the oldest (FIFO)");
    uint64_t order[3];
    for (int i = 0; i < 3; i++)
        order[i] = gc_deque_pop(&deque, &task) && task_id(task, &id) ? id : 0;
    ok(order[0] == 4 && order[1] == 3 && order[2] == 2, "pops 4 3 2");
    ok(!gc_deque_pop(&deque, &task) && !gc_deque_steal(&deque, &task), "empty again");
    ok(!gc_deque_maybe_nonempty(&deque) && gc_deque_size(&deque) == 0, "empty: no hint");
    gc_deque_push(&deque, task_for(42));
    ok(gc_deque_pop(&deque, &task) && task_id(task, &id) && id == 42,
       "push after emptying, pop the last task");
    gc_deque_destroy(&deque);
}

static void test_growth(void)
{
    gc_deque deque;
    gc_deque_init(&deque, 1);
    enum { COUNT = 100000 };
    for (uint64_t id = 0; id < COUNT; id++)
        gc_deque_push(&deque, task_for(id));
    ok(gc_deque_capacity(&deque) >= COUNT && gc_deque_size(&deque) == COUNT,
       "grew from 2 to %zu slots holding %d tasks", gc_deque_capacity(&deque), COUNT);
    bool in_order = true;
    gc_task task;
    uint64_t id;
    for (uint64_t expected = 0; expected < COUNT / 2; expected++)
        in_order &= gc_deque_steal(&deque, &task) && task_id(task, &id) && id == expected;
    for (uint64_t expected = COUNT - 1; expected >= COUNT / 2; expected--)
        in_order &= gc_deque_pop(&deque, &task) && task_id(task, &id) && id == expected;
    ok(in_order, "after growth: steals from the old end, pops from the new end, all intact");
    ok(!gc_deque_pop(&deque, &task), "and nothing more");
    gc_deque_release_retired(&deque);
    gc_deque_push(&deque, task_for(7));
    ok(gc_deque_pop(&deque, &task) && task_id(task, &id) && id == 7,
       "usable after releasing retired arrays");
    gc_deque_destroy(&deque);
}

/* Growth in the middle of a wrapped ring: top and bottom not at slot 0. */
static void test_growth_when_wrapped(void)
{
    gc_deque deque;
    gc_deque_init(&deque, 2);
    gc_task task;
    uint64_t id, next_push = 0, next_steal = 0;
    bool intact = true;
    for (int round = 0; round < 1000; round++) {
        for (int i = 0; i < 3; i++)
            gc_deque_push(&deque, task_for(next_push++));
        for (int i = 0; i < 2; i++)
            intact &= gc_deque_steal(&deque, &task) && task_id(task, &id) && id == next_steal++;
    }
    while (gc_deque_steal(&deque, &task))
        intact &= task_id(task, &id) && id == next_steal++;
    ok(intact && next_steal == next_push, "ring wrapped and grew %zu times over: FIFO intact",
       gc_deque_capacity(&deque) / 4);
    gc_deque_destroy(&deque);
}

/* Random push/pop/steal against a plain array model. */
static void test_against_model(void)
{
    uint64_t random = test_seed;
    gc_deque deque;
    gc_deque_init(&deque, 1);
    enum { OPERATIONS = 300000 };
    static uint64_t model[OPERATIONS];
    size_t model_top = 0, model_bottom = 0;
    uint64_t next_id = 0;
    int mismatches = 0;
    for (int op = 0; op < OPERATIONS && mismatches < 5; op++) {
        unsigned choice = (unsigned)(tap_random(&random) % 8);
        gc_task task;
        uint64_t id;
        if (choice < 4) {
            gc_deque_push(&deque, task_for(next_id));
            model[model_bottom++] = next_id++;
        } else {
            bool steal = choice >= 6;
            bool got = steal ? gc_deque_steal(&deque, &task) : gc_deque_pop(&deque, &task);
            bool expected = model_top < model_bottom;
            uint64_t want = !expected ? 0 : steal ? model[model_top++] : model[--model_bottom];
            if (got != expected || (got && (!task_id(task, &id) || id != want))) {
                mismatches++;
                diag("op %d (%s): got %d, expected %d (id %llu)", op, steal ? "steal" : "pop",
                     got, expected, (unsigned long long)want);
            }
        }
        if (gc_deque_size(&deque) != model_bottom - model_top)
            mismatches++;
    }
    ok(mismatches == 0, "%d random operations agree with the model", OPERATIONS);
    gc_deque_destroy(&deque);
}

/* ---- Concurrent: one owner, N thieves ------------------------------------------------ */

typedef struct concurrent_run {
    gc_deque deque;
    uint64_t seed;
    uint64_t tasks;
    unsigned thieves;
    bool last_task_duel;  /* owner pushes one task and pops it at once: races on the last */
    _Atomic uint8_t *taken;       /* times each task was taken */
    _Atomic bool owner_done;      /* owner pushed everything and saw its deque empty */
    _Atomic unsigned thieves_ready;
    _Atomic uint64_t stolen, steal_attempts, torn;
} concurrent_run;

static void take(concurrent_run *run, gc_task task)
{
    uint64_t id;
    if (!task_id(task, &id) || id >= run->tasks) {
        atomic_fetch_add_explicit(&run->torn, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&run->taken[id], 1, memory_order_relaxed);
}

static void *thief_main(void *argument)
{
    concurrent_run *run = argument;
    uint64_t stolen = 0, attempts = 0;
    atomic_fetch_add(&run->thieves_ready, 1);
    for (;;) {
        /* Read done before trying: a failed steal after done means truly empty. */
        bool done = atomic_load_explicit(&run->owner_done, memory_order_acquire);
        gc_task task;
        attempts++;
        if (gc_deque_steal(&run->deque, &task)) {
            take(run, task);
            stolen++;
        } else if (done && !gc_deque_maybe_nonempty(&run->deque)) {
            break;
        }
    }
    atomic_fetch_add(&run->stolen, stolen);
    atomic_fetch_add(&run->steal_attempts, attempts);
    return NULL;
}

/* Bursts of pushes and pops of random lengths, so the deque grows, shrinks to empty and
 * races thieves for its last task. */
static void owner_mixed(concurrent_run *run)
{
    uint64_t random = run->seed;
    uint64_t next_id = 0;
    gc_task task;
    while (next_id < run->tasks) {
        uint64_t burst = 1 + tap_random(&random) % 200;
        for (uint64_t i = 0; i < burst && next_id < run->tasks; i++)
            gc_deque_push(&run->deque, task_for(next_id++));
        uint64_t pops = tap_random(&random) % 220;
        for (uint64_t i = 0; i < pops && gc_deque_pop(&run->deque, &task); i++)
            take(run, task);
    }
    while (gc_deque_pop(&run->deque, &task))
        take(run, task);
}

/* Tiny batches popped at once: the owner keeps racing thieves for its last task. */
static void owner_last_task_duel(concurrent_run *run)
{
    uint64_t random = run->seed;
    gc_task task;
    for (uint64_t id = 0; id < run->tasks;) {
        uint64_t batch = 1 + tap_random(&random) % 3;
        for (uint64_t i = 0; i < batch && id < run->tasks; i++)
            gc_deque_push(&run->deque, task_for(id++));
        while (gc_deque_pop(&run->deque, &task))
            take(run, task);
    }
}

static void run_concurrent(void *argument)
{
    concurrent_run *run = argument;
    gc_deque_init(&run->deque, 2);
    run->taken = calloc(run->tasks, sizeof *run->taken);
    pthread_t threads[8];
    for (unsigned i = 0; i < run->thieves; i++)
        pthread_create(&threads[i], NULL, thief_main, run);
    while (atomic_load(&run->thieves_ready) < run->thieves)
        sched_yield();
    double start = now_ns();
    if (run->last_task_duel)
        owner_last_task_duel(run);
    else
        owner_mixed(run);
    atomic_store_explicit(&run->owner_done, true, memory_order_release);
    for (unsigned i = 0; i < run->thieves; i++)
        pthread_join(threads[i], NULL);
    double took = now_ns() - start;
    uint64_t lost = 0, duplicated = 0;
    for (uint64_t id = 0; id < run->tasks; id++) {
        lost += run->taken[id] == 0;
        duplicated += run->taken[id] > 1;
    }
    ok(lost == 0, "no task lost (%llu lost)", (unsigned long long)lost);
    ok(duplicated == 0, "no task taken twice (%llu twice)", (unsigned long long)duplicated);
    ok(run->torn == 0, "no torn or foreign task returned");
    diag("%u thieves: %llu of %llu tasks stolen in %llu attempts, %zu slots at the end, "
         "%.0f ns per task overall",
         run->thieves, (unsigned long long)run->stolen, (unsigned long long)run->tasks,
         (unsigned long long)run->steal_attempts, gc_deque_capacity(&run->deque),
         took / (double)run->tasks);
    gc_deque_destroy(&run->deque);
    free(run->taken);
}

static void test_concurrent(unsigned thieves, bool last_task_duel, uint64_t tasks)
{
    concurrent_run run = {.seed = test_seed + thieves, .tasks = tasks, .thieves = thieves,
                          .last_task_duel = last_task_duel};
    char name[160];
    snprintf(name, sizeof name, "%s with %u thieves: every one of %llu tasks taken exactly once",
             last_task_duel ? "owner duels for the last task" : "owner pushes/pops bursts",
             thieves, (unsigned long long)tasks);
    tap_subtest(name, 60, run_concurrent, &run);
}

/* ---- Costs --------------------------------------------------------------------------- */

/* Warm, cache-resident deque on one thread: the fast paths' own cost. */
static void measure_costs(void)
{
    enum { BATCH = 1 << 12, ROUNDS = 1 << 9 };
    gc_deque deque;
    gc_deque_init(&deque, 12);
    gc_task task;
    uintptr_t checksum = 0;
    double push_ns = 0, pop_ns = 0, steal_ns = 0;
    for (int round = 0; round < ROUNDS; round++) {
        double start = now_ns();
        for (uint64_t id = 0; id < BATCH; id++)
            gc_deque_push(&deque, task_for(id));
        double pushed = now_ns();
        bool steal = round % 2;
        while (steal ? gc_deque_steal(&deque, &task) : gc_deque_pop(&deque, &task))
            checksum += (uintptr_t)task.object;
        double taken = now_ns();
        push_ns += pushed - start;
        *(steal ? &steal_ns : &pop_ns) += taken - pushed;
    }
    uintptr_t per_batch = (uintptr_t)BATCH * (BATCH - 1) / 2 * 16 + (uintptr_t)BATCH * 8;
    ok(checksum == per_batch * ROUNDS, "cost run took every task back");
    double tasks = (double)BATCH * ROUNDS;
    diag("cost (%s): push %.1f ns, pop %.1f ns, successful steal %.1f ns",
         TAP_UNDER_TSAN ? "TSan build: not representative" : "one thread, warm",
         push_ns / tasks, pop_ns / (tasks / 2), steal_ns / (tasks / 2));
    gc_deque_destroy(&deque);
}

int main(int argc, char **argv)
{
    test_seed = tap_seed(argc, argv);
    test_lifo_fifo();
    test_growth();
    test_growth_when_wrapped();
    test_against_model();
    uint64_t tasks = TAP_UNDER_TSAN ? 100000 : 1000000;
    for (unsigned thieves = 1; thieves <= 7; thieves++)
        test_concurrent(thieves, false, tasks);
    test_concurrent(1, true, tasks / 4);
    test_concurrent(3, true, tasks / 4);
    test_concurrent(7, true, tasks / 4);
    measure_costs();
    return done_testing();
}
