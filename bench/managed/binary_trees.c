/* binary-trees (Benchmarks Game rules) in managed C on corral.
 *
 *   corral-binary-trees [N [THREADS]]      defaults: 21 1
 * Same algorithm, task split and output as peers/boehm/binary_trees.c; nodes
 * are a corral header and two references. Worker threads are started with
 * corral_thread_create and joined with pthread_join (an unmanaged call, so
 * the waiting main thread never holds up a collection).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "corral_bench.h"

static const char bench_name[] = "binary-trees";
static const char impl[] = "corral";

#define MIN_DEPTH 4
#define MAX_THREADS 256

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef left, right;
};
static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("binary-trees.node", struct node, node_refs);

static noderef bottom_up_tree(int depth)
{
    noderef left = 0, right = 0;
    if (depth > 0) {
        left = bottom_up_tree(depth - 1);
        right = bottom_up_tree(depth - 1);
    }
    noderef node = corral_alloc(&node_type);
    if (!node)
        bench_out_of_memory(bench_name, impl);
    node->left = left;
    node->right = right;
    return node;
}

static long item_check(noderef node)
{
    return node->left ? 1 + item_check(node->left) + item_check(node->right) : 1;
}

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
        long check = 0;
        for (long i = 0; i < tasks[index].iterations; i++)
            check += item_check(bottom_up_tree(tasks[index].depth));
        __atomic_fetch_add(&depth_checks[tasks[index].depth], check, __ATOMIC_RELAXED);
    }
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

    printf("stretch tree of depth %d\t check: %ld\n", stretch_depth, item_check(bottom_up_tree(stretch_depth)));

    noderef long_lived = bottom_up_tree(max_depth);

    for (int depth = MIN_DEPTH; depth <= max_depth; depth += 2) {
        long iterations = 1L << (max_depth - depth + MIN_DEPTH);
        long chunk = (iterations + threads - 1) / threads;
        for (long first = 0; first < iterations; first += chunk)
            tasks[task_count++] = (struct task){depth, first + chunk <= iterations ? chunk : iterations - first};
    }
    if (threads == 1) {
        worker(NULL);
    } else {
        pthread_t ids[MAX_THREADS];
        for (int t = 0; t < threads; t++)
            if (corral_thread_create(&ids[t], worker, NULL) != 0)
                bench_check_long(bench_name, impl, "corral_thread_create status", 1, 0);
        for (int t = 0; t < threads; t++)
            pthread_join(ids[t], NULL);
    }

    for (int depth = MIN_DEPTH; depth <= max_depth; depth += 2)
        printf("%ld\t trees of depth %d\t check: %ld\n", 1L << (max_depth - depth + MIN_DEPTH), depth,
               depth_checks[depth]);
    printf("long lived tree of depth %d\t check: %ld\n", max_depth, item_check(long_lived));
    uint64_t wall = bench_now_ns() - start;

    char params[64], extra[256];
    snprintf(params, sizeof params, "n:%d", n);
    long gc_count = corral_bench_gc_count(extra, sizeof extra, NULL);
    struct bench_result result = {bench_name, impl, threads, params, wall, gc_count, &corral_pauses, extra};
    bench_print_result(&result);
    corral_shutdown();
    return 0;
}
