/* binary-trees (Benchmarks Game rules) in managed C on corral.
 *
 *   corral-binary-trees [N [THREADS]]      defaults: 21 1
 * Same algorithm, task split and output as peers/boehm/binary_trees.c; nodes
 * are a corral header and two references (24 bytes). Worker threads are
 * started with corral_thread_create and joined with pthread_join (an
 * unmanaged call, so the waiting main thread never holds up a collection).
 *
 * Built with -DBENCH_GCROOT=\"MODE\" it is the driver of the same trees
 * written as llvm.gcroot frontend IR (bench/gcroot/binary_trees.ll): the
 * trees are built and checked there, and the impl is gcroot-MODE.
 *
 * Built with -DBENCH_HEADERLESS it is corral-hl-binary-trees: the node type
 * is CORRAL_TYPE_HEADERLESS, two references and no header (16 bytes, the size
 * of Boehm's node), allocated by the same corral_alloc; the impl is corral-hl.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "corral_bench.h"

static const char bench_name[] = "binary-trees";
#if defined(BENCH_GCROOT) && defined(BENCH_HEADERLESS)
#error "BENCH_GCROOT and BENCH_HEADERLESS are separate variants"
#elif defined(BENCH_GCROOT)
static const char impl[] = "gcroot-" BENCH_GCROOT;
#elif defined(BENCH_HEADERLESS)
static const char impl[] = "corral-hl";
#else
static const char impl[] = "corral";
#endif

#define MIN_DEPTH 4
#define MAX_THREADS 256

typedef struct node CORRAL_REF *noderef;
struct node {
#ifndef BENCH_HEADERLESS
    corral_header header;
#endif
    noderef left, right;
};
static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
#ifdef BENCH_HEADERLESS
static const corral_type node_type = CORRAL_HEADERLESS_STRUCT_TYPE("binary-trees.node", struct node, node_refs);
_Static_assert(sizeof(struct node) == 2 * sizeof(void *), "headerless nodes are two references, like Boehm's");
#else
static const corral_type node_type = CORRAL_STRUCT_TYPE("binary-trees.node", struct node, node_refs);
#endif

static noderef new_node(void)
{
    noderef node = corral_alloc(&node_type);
    if (!node)
        bench_out_of_memory(bench_name, impl);
    return node;
}

/* Starts the workers on the task list and waits for them (below). */
void bt_run_tasks(void);

#ifdef BENCH_GCROOT
/* From binary_trees.ll: check sums of fresh trees; the long-lived tree is
 * built there and kept in a gcroot slot while bt_run_tasks runs. */
long bt_fresh_tree_check(long depth);
long bt_trees_check(long depth, long iterations);
long bt_long_lived_check(long depth);

/* The IR's allocation, a plain pointer as LLVM's document has it; the pass
 * may inline it into the IR's functions. No return poll: the pointer it
 * returns would be held across it. */
void *bt_new_node(void);
CORRAL_NOPOLL void *bt_new_node(void)
{
    return (void *)new_node();
}
#else
static noderef bottom_up_tree(int depth)
{
    noderef left = 0, right = 0;
    if (depth > 0) {
        left = bottom_up_tree(depth - 1);
        right = bottom_up_tree(depth - 1);
    }
    noderef node = new_node();
    node->left = left;
    node->right = right;
    return node;
}

static long item_check(noderef node)
{
    return node->left ? 1 + item_check(node->left) + item_check(node->right) : 1;
}

static long bt_fresh_tree_check(long depth)
{
    return item_check(bottom_up_tree((int)depth));
}

static long bt_trees_check(long depth, long iterations)
{
    long check = 0;
    for (long i = 0; i < iterations; i++)
        check += item_check(bottom_up_tree((int)depth));
    return check;
}

static long bt_long_lived_check(long depth)
{
    noderef long_lived = bottom_up_tree((int)depth);
    bt_run_tasks();
    return item_check(long_lived);
}
#endif

/* The work list: written by main before the workers start, then read-only. */
struct task {
    int depth;
    long iterations;
};
static struct task tasks[32 * MAX_THREADS];
static int task_count;
/* Next task to take. Writers and readers: the workers, atomically. */
static int next_task;
/* Sum of checks per depth. Writers: the workers (atomic add); reader: main after join. */
static long depth_checks[64];

static void *worker(void *unused)
{
    (void)unused;
    for (;;) {
        int index = __atomic_fetch_add(&next_task, 1, __ATOMIC_RELAXED);
        if (index >= task_count)
            return NULL;
        long check = bt_trees_check(tasks[index].depth, tasks[index].iterations);
        __atomic_fetch_add(&depth_checks[tasks[index].depth], check, __ATOMIC_RELAXED);
    }
}

/* Threads to run the tasks in. Writer: main, before bt_run_tasks. */
static int worker_threads;

void bt_run_tasks(void)
{
    if (worker_threads == 1) {
        worker(NULL);
        return;
    }
    pthread_t ids[MAX_THREADS];
    for (int t = 0; t < worker_threads; t++)
        if (corral_thread_create(&ids[t], worker, NULL) != 0)
            bench_check_long(bench_name, impl, "corral_thread_create status", 1, 0);
    for (int t = 0; t < worker_threads; t++)
        pthread_join(ids[t], NULL);
}

int main(int argc, char **argv)
{
    int n = (int)bench_arg_long(argc, argv, 1, "N", 21, 0, 30);
    int threads = (int)bench_arg_long(argc, argv, 2, "THREADS", 1, 1, MAX_THREADS);
    int max_depth = n > MIN_DEPTH + 2 ? n : MIN_DEPTH + 2;
    int stretch_depth = max_depth + 1;

    corral_bench_init(bench_name, 0);
    if (corral_thread_attach() != CORRAL_OK)
        return corral_bench_failed(bench_name, "corral_thread_attach");
    uint64_t start = bench_now_ns();

    printf("stretch tree of depth %d\t check: %ld\n", stretch_depth, bt_fresh_tree_check(stretch_depth));

    for (int depth = MIN_DEPTH; depth <= max_depth; depth += 2) {
        long iterations = 1L << (max_depth - depth + MIN_DEPTH);
        long chunk = (iterations + threads - 1) / threads;
        for (long first = 0; first < iterations; first += chunk)
            tasks[task_count++] = (struct task){depth, first + chunk <= iterations ? chunk : iterations - first};
    }
    worker_threads = threads;
    long long_lived_check = bt_long_lived_check(max_depth);

    for (int depth = MIN_DEPTH; depth <= max_depth; depth += 2)
        printf("%ld\t trees of depth %d\t check: %ld\n", 1L << (max_depth - depth + MIN_DEPTH), depth,
               depth_checks[depth]);
    printf("long lived tree of depth %d\t check: %ld\n", max_depth, long_lived_check);
    uint64_t wall = bench_now_ns() - start;

    char params[64], extra[256];
    snprintf(params, sizeof params, "n:%d", n);
    long gc_count = corral_bench_gc_count(extra, sizeof extra, NULL);
    struct bench_result result = {bench_name, impl, threads, params, wall, gc_count, &corral_pauses, extra};
    bench_print_result(&result);
    corral_shutdown();
    return 0;
}
