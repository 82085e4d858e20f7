/* terminator_test.c — work stealing with termination: random task trees processed by
 * 1..16 workers (every task exactly once, nobody stops early), work that appears late,
 * the raw terminator over a shared token pool, and many tiny loops in a row.
 *
 * Usage: terminator.t [seed]
 */
#include "workers.h"
#include "tap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

static uint64_t test_seed;

static uint64_t clock_ns(clockid_t clock)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* How long a late-work hold lets the other workers settle before measuring their CPU. */
enum { HOLD_SETTLE_NS = 10 * 1000 * 1000 };

/* ---- Random trees -------------------------------------------------------------------- */

/* Nodes in breadth-first order; node i's children are first_child[i] .. + child_count[i]. */
typedef struct tree {
    size_t size;
    uint32_t *first_child;
    uint8_t *child_count;
    uint64_t depth;  /* of the deepest node, the root at 0 */
} tree;

/* Each node gets 0..max_children children, or exactly one with probability chain_percent
 * (long chains: deep, hard to parallelise). A node about to end the tree too early gets a
 * child, so the tree has exactly `size` nodes. */
static tree tree_generate(uint64_t seed, size_t size, unsigned max_children,
                          unsigned chain_percent)
{
    tree result = {.size = size};
    result.first_child = calloc(size, sizeof *result.first_child);
    result.child_count = calloc(size, sizeof *result.child_count);
    uint64_t *depth = calloc(size, sizeof *depth);
    uint64_t random = seed;
    size_t assigned = 1;
    for (size_t node = 0; node < size && assigned < size; node++) {
        unsigned children = tap_random(&random) % 100 < chain_percent
                                ? 1
                                : (unsigned)(tap_random(&random) % (max_children + 1));
        if (children == 0 && node + 1 == assigned)
            children = 1;
        if (children > size - assigned)
            children = (unsigned)(size - assigned);
        result.first_child[node] = (uint32_t)assigned;
        result.child_count[node] = (uint8_t)children;
        for (unsigned child = 0; child < children; child++) {
            depth[assigned + child] = depth[node] + 1;
            if (depth[node] + 1 > result.depth)
                result.depth = depth[node] + 1;
        }
        assigned += children;
    }
    free(depth);
    return result;
}

static void tree_free(tree *tree)
{
    free(tree->first_child);
    free(tree->child_count);
}

typedef struct tree_walk {
    const tree *tree;
    gc_work_queues queues;
    _Atomic uint8_t *visits;             /* times each node was processed */
    _Atomic uint64_t processed;
    unsigned work_per_task;              /* rounds of hashing per node */
    _Atomic uint64_t checksum;
    /* Late work: the root is held by worker 0 for hold_ns before its children appear. */
    uint64_t hold_ns;
    _Atomic bool holding;
    _Atomic unsigned stopped_while_holding;
    uint64_t cpu_while_holding_ns;       /* the other workers', for hold_ns after settling */
    /* Each worker's thread CPU clock, published by it on entering the phase (release);
     * read by the root's holder during the hold (acquire on the flag). */
    clockid_t worker_clock[GC_WORKERS_MAX];
    _Atomic bool worker_clock_set[GC_WORKERS_MAX];
} tree_walk;

/* Node ids as fake object addresses: even (bit 0 set would make the task tagged), never 0. */
static gc_task node_task(size_t node, uint64_t depth)
{
    return (gc_task){.object = (void *)(uintptr_t)((node + 1) * 2), .depth = depth};
}

static size_t task_node(gc_task task)
{
    return (size_t)(uintptr_t)task.object / 2 - 1;
}

static uint64_t simulated_work(uint64_t value, unsigned rounds)
{
    for (unsigned round = 0; round < rounds; round++)
        value = tap_random(&value);
    return value;
}

/* The worker with the root (usually 0) holds it. The CPU the others use meanwhile is
 * measured on their own thread clocks (not the process's, which TSan's background thread
 * and thread start-up inflate), once all of them have entered the phase and had
 * HOLD_SETTLE_NS to fail to steal and start waiting. */
static void hold_root(tree_walk *walk, unsigned holder)
{
    atomic_store(&walk->holding, true);
    unsigned workers = walk->queues.active;
    for (unsigned worker = 0; worker < workers; worker++)
        while (!atomic_load_explicit(&walk->worker_clock_set[worker], memory_order_acquire))
            tap_sleep_ns(100 * 1000);
    tap_sleep_ns(HOLD_SETTLE_NS);
    uint64_t before[GC_WORKERS_MAX];
    for (unsigned worker = 0; worker < workers; worker++)
        before[worker] = clock_ns(walk->worker_clock[worker]);
    tap_sleep_ns(walk->hold_ns);
    for (unsigned worker = 0; worker < workers; worker++)
        if (worker != holder)
            walk->cpu_while_holding_ns += clock_ns(walk->worker_clock[worker]) - before[worker];
    atomic_store(&walk->holding, false);
}

static void process_node(tree_walk *walk, unsigned worker, gc_task task)
{
    size_t node = task_node(task);
    atomic_fetch_add_explicit(&walk->visits[node], 1, memory_order_relaxed);
    uint64_t value = simulated_work(node, walk->work_per_task);
    atomic_fetch_add_explicit(&walk->checksum, value & 0xff, memory_order_relaxed);
    if (node == 0 && walk->hold_ns)
        hold_root(walk, worker);
    uint32_t first = walk->tree->first_child[node];
    for (uint32_t child = 0; child < walk->tree->child_count[node]; child++)
        gc_work_queues_push(&walk->queues, worker, node_task(first + child, task.depth + 1));
}

static void walk_phase(unsigned worker, void *argument)
{
    tree_walk *walk = argument;
    /* Without its clock the holder would wait for it until the subtest's timeout. */
    int error = pthread_getcpuclockid(pthread_self(), &walk->worker_clock[worker]);
    if (error)
        bail_out("worker %u: pthread_getcpuclockid: %s", worker, strerror(error));
    atomic_store_explicit(&walk->worker_clock_set[worker], true, memory_order_release);
    gc_task task;
    uint64_t processed = 0;
    while (gc_work_queues_next(&walk->queues, worker, &task)) {
        process_node(walk, worker, task);
        processed++;
    }
    if (atomic_load(&walk->holding))
        atomic_fetch_add(&walk->stopped_while_holding, 1);
    atomic_fetch_add(&walk->processed, processed);
}

typedef struct walk_result {
    bool exact;         /* every node once, total == size */
    bool depth_right;   /* the queues saw the tree's depth */
    gc_phase_stats stats;
    uint64_t cpu_while_holding_ns;
} walk_result;

static walk_result walk_tree(const tree *tree, unsigned workers, unsigned work_per_task,
                             uint64_t hold_ns)
{
    static tree_walk walk;
    memset(&walk, 0, sizeof walk);
    walk.tree = tree;
    walk.work_per_task = work_per_task;
    walk.hold_ns = hold_ns;
    walk.visits = calloc(tree->size, sizeof *walk.visits);
    gc_work_queues_init(&walk.queues, workers, 4);
    /* The collector is worker 0: it may push on its own deque before the phase. */
    gc_work_queues_push(&walk.queues, 0, node_task(0, 0));
    walk_result result;
    gc_workers_run("tree", walk_phase, &walk, &result.stats);
    size_t wrong = 0;
    for (size_t node = 0; node < tree->size; node++)
        wrong += walk.visits[node] != 1;
    result.exact = wrong == 0 && walk.processed == tree->size && !walk.stopped_while_holding;
    if (!result.exact)
        diag("%zu nodes, %u workers: %zu visited not once, %llu processed, %u stopped early",
             tree->size, workers, wrong, (unsigned long long)walk.processed,
             walk.stopped_while_holding);
    result.depth_right = gc_work_queues_max_depth(&walk.queues) == tree->depth;
    result.cpu_while_holding_ns = walk.cpu_while_holding_ns;
    gc_work_queues_destroy(&walk.queues);
    free(walk.visits);
    return result;
}

static void run_random_trees(void *argument)
{
    unsigned workers = (unsigned)(uintptr_t)argument;
    uint64_t random = test_seed ^ workers;
    unsigned seeds = TAP_UNDER_TSAN ? 12 : 40;
    size_t largest = TAP_UNDER_TSAN ? 20000 : 200000;
    gc_workers_start(workers);
    unsigned exact = 0, depth_right = 0;
    uint64_t steals = 0, attempts = 0, nodes = 0;
    for (unsigned round = 0; round < seeds; round++) {
        uint64_t tree_seed = tap_random(&random);
        /* Sizes from 1 to `largest`, biased small so the end-game races come often. */
        size_t size = 1 + (size_t)(tap_random(&random) % (round % 3 == 0 ? 16 : largest));
        unsigned max_children = 1 + (unsigned)(tap_random(&random) % 6);
        unsigned chain_percent = (unsigned)(tap_random(&random) % 60);
        tree tree = tree_generate(tree_seed, size, max_children, chain_percent);
        walk_result result = walk_tree(&tree, workers, (unsigned)(tap_random(&random) % 64), 0);
        if (!result.exact || !result.depth_right)
            diag("replay: tree seed %llu size %zu children 0..%u chains %u%%",
                 (unsigned long long)tree_seed, size, max_children, chain_percent);
        exact += result.exact;
        depth_right += result.depth_right;
        steals += result.stats.steals;
        attempts += result.stats.steal_attempts;
        nodes += size;
        tree_free(&tree);
    }
    gc_workers_stop();
    ok(exact == seeds, "%u/%u random trees: every node processed exactly once", exact, seeds);
    ok(depth_right == seeds, "%u/%u: the deepest task seen is the tree's depth", depth_right,
       seeds);
    diag("%u workers: %llu nodes, %llu steals in %llu attempts", workers,
         (unsigned long long)nodes, (unsigned long long)steals, (unsigned long long)attempts);
}

static void test_random_trees(unsigned workers)
{
    char name[96];
    snprintf(name, sizeof name, "%u workers: random trees, every task once, then all stop",
             workers);
    tap_subtest(name, 120, run_random_trees, (void *)(uintptr_t)workers);
}

/* ---- Work that appears late ---------------------------------------------------------- */

static void run_late_work(void *argument)
{
    unsigned workers = (unsigned)(uintptr_t)argument;
    enum { CHILDREN = 250, HOLD_NS = 30 * 1000 * 1000 };
    /* A root with CHILDREN leaf children, each of them a little work. */
    tree tree = tree_generate(1, CHILDREN + 1, 0, 0);
    tree.first_child[0] = 1;
    tree.child_count[0] = CHILDREN;
    for (size_t node = 1; node <= CHILDREN; node++)
        tree.child_count[node] = 0;
    tree.depth = 1;
    gc_workers_start(workers);
    walk_result result = walk_tree(&tree, workers, 20000, HOLD_NS);
    gc_workers_stop();
    ok(result.exact, "nobody stopped while one worker held the only task, and all %d "
                     "children were processed once", CHILDREN);
    diag("%u workers: %llu steals once the work appeared; %.2f ms CPU used by the waiting "
         "workers in %.0f ms of the only task's hold",
         workers, (unsigned long long)result.stats.steals, result.cpu_while_holding_ns / 1e6,
         HOLD_NS / 1e6);
    /* Spinning waiters would use a whole core each; sleepers only the spin master's
     * wake-ups. TSan's slower syscalls get twice the allowance. */
    uint64_t allowance_ns = TAP_UNDER_TSAN ? HOLD_NS / 2 : HOLD_NS / 4;
    ok(result.cpu_while_holding_ns < allowance_ns,
       "waiting workers sleep: under %.1f ms of their CPU in %.0f ms of the hold",
       allowance_ns / 1e6, HOLD_NS / 1e6);
    tree_free(&tree);
}

/* ---- Many tiny loops in a row: the end-game race, again and again --------------------- */

static void run_tiny_loops(void *argument)
{
    unsigned workers = (unsigned)(uintptr_t)argument;
    unsigned loops = TAP_UNDER_TSAN ? 300 : 2000;
    uint64_t random = test_seed + 7 * workers;
    gc_workers_start(workers);
    unsigned exact = 0;
    for (unsigned loop = 0; loop < loops; loop++) {
        size_t size = 1 + (size_t)(tap_random(&random) % 12);
        tree tree = tree_generate(tap_random(&random), size, 3, 10);
        exact += walk_tree(&tree, workers, 0, 0).exact;
        tree_free(&tree);
    }
    gc_workers_stop();
    ok(exact == loops, "%u/%u trees of 1..12 nodes exact", exact, loops);
}

/* ---- The raw terminator over a shared token pool ------------------------------------- */

typedef struct token_pool {
    gc_terminator terminator;
    _Atomic int64_t tokens;       /* work not yet taken */
    _Atomic int64_t budget;       /* tokens that may still be created */
    _Atomic int64_t processed;
    _Atomic int64_t created;
    uint64_t seed;
} token_pool;

static bool tokens_left(void *context)
{
    token_pool *pool = context;
    return atomic_load(&pool->tokens) > 0;
}

static bool take_token(token_pool *pool)
{
    int64_t tokens = atomic_load(&pool->tokens);
    while (tokens > 0)
        if (atomic_compare_exchange_weak(&pool->tokens, &tokens, tokens - 1))
            return true;
    return false;
}

/* Processing a token creates 0..3 new ones while the budget lasts. */
static void process_token(token_pool *pool, uint64_t *random)
{
    unsigned children = (unsigned)(tap_random(random) % 4);
    int64_t granted = 0;
    for (unsigned child = 0; child < children; child++)
        if (atomic_fetch_sub(&pool->budget, 1) > 0)
            granted++;
    atomic_fetch_add(&pool->created, granted);
    atomic_fetch_add(&pool->tokens, granted);
    atomic_fetch_add(&pool->processed, 1);
}

static void token_phase(unsigned worker, void *argument)
{
    token_pool *pool = argument;
    uint64_t random = pool->seed + worker;
    for (;;) {
        if (take_token(pool))
            process_token(pool, &random);
        else if (gc_terminator_offer(&pool->terminator, worker))
            return;
    }
}

static void run_token_pool(void *argument)
{
    unsigned workers = (unsigned)(uintptr_t)argument;
    uint64_t random = test_seed * 3 + workers;
    unsigned rounds = TAP_UNDER_TSAN ? 20 : 100;
    gc_workers_start(workers);
    unsigned exact = 0;
    for (unsigned round = 0; round < rounds; round++) {
        static token_pool pool;
        int64_t initial = 1 + (int64_t)(tap_random(&random) % 4);
        atomic_store(&pool.tokens, initial);
        atomic_store(&pool.budget, (int64_t)(tap_random(&random) % 20000));
        atomic_store(&pool.processed, 0);
        atomic_store(&pool.created, 0);
        pool.seed = tap_random(&random);
        gc_terminator_init(&pool.terminator, workers, tokens_left, &pool);
        gc_workers_run("tokens", token_phase, &pool, NULL);
        exact += atomic_load(&pool.processed) == initial + atomic_load(&pool.created) &&
                 atomic_load(&pool.tokens) == 0;
    }
    gc_workers_stop();
    ok(exact == rounds, "%u/%u rounds: every token processed before all stopped", exact,
       rounds);
}

/* ---- Tagged tasks: their depth word is not a depth ------------------------------------ */

static void drain_phase(unsigned worker, void *argument)
{
    gc_work_queues *queues = argument;
    gc_task task;
    while (gc_work_queues_next(queues, worker, &task)) {
    }
}

static void run_tagged_depth(void *argument)
{
    (void)argument;
    static uint64_t objects[4];
    gc_workers_start(2);
    gc_work_queues queues;
    gc_work_queues_init(&queues, 2, 2);
    gc_work_queues_push(&queues, 0, (gc_task){&objects[0], 5});
    gc_work_queues_push(&queues, 0, (gc_task){&objects[1], 3});
    /* Like the marker's "rest of this array": depth << 40 | next index. */
    gc_work_queues_push(&queues, 0,
                        (gc_task){(void *)((uintptr_t)&objects[2] | GC_TASK_TAGGED),
                                  (UINT64_C(7) << 40) | 1024});
    gc_workers_run("tagged", drain_phase, &queues, NULL);
    is_int(gc_work_queues_max_depth(&queues), 5, "max depth ignores a tagged task's word");
    gc_work_queues_reset(&queues, 2);
    is_int(gc_work_queues_max_depth(&queues), 0, "reset clears the max depth");
    gc_work_queues_destroy(&queues);
    gc_workers_stop();
}

int main(int argc, char **argv)
{
    test_seed = tap_seed(argc, argv);
    unsigned sizes[] = {1, 2, 4, 8, 16};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        test_random_trees(sizes[i]);
    unsigned late_sizes[] = {2, 4, 8};
    for (size_t i = 0; i < sizeof late_sizes / sizeof late_sizes[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "%u workers: work appearing late is not missed",
                 late_sizes[i]);
        tap_subtest(name, 60, run_late_work, (void *)(uintptr_t)late_sizes[i]);
    }
    unsigned tiny_sizes[] = {2, 4, 8};
    for (size_t i = 0; i < sizeof tiny_sizes / sizeof tiny_sizes[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "%u workers: many tiny loops in a row", tiny_sizes[i]);
        tap_subtest(name, 120, run_tiny_loops, (void *)(uintptr_t)tiny_sizes[i]);
    }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "%u workers: raw terminator over a shared token pool",
                 sizes[i]);
        tap_subtest(name, 60, run_token_pool, (void *)(uintptr_t)sizes[i]);
    }
    tap_subtest("a tagged task's depth word is not a depth", 20, run_tagged_depth, NULL);
    return done_testing();
}
