/* binary-trees (Benchmarks Game rules) on Boehm GC.
 *
 *   boehm-binary-trees [N [THREADS]]      defaults: 21 1
 * A stretch tree of depth N+1 is built and checked; a long-lived tree of
 * depth N stays reachable while 2^(N-d+4) trees of each depth d = 4, 6 .. N
 * are built bottom-up, checked (node count) and dropped. With THREADS > 1 each
 * depth's iterations are split into THREADS tasks that worker threads take
 * from a shared counter; the output is the same. Same algorithm in
 * peers/malloc/binary_trees.c, peers/java/BinaryTrees.java and
 * managed/binary_trees.c.
 */
#include <pthread.h>

#include "boehm.h"

static const char bench_name[] = "binary-trees";
static const char impl[] = "boehm";

#define MIN_DEPTH 4
#define MAX_THREADS 256

struct node {
    struct node *left, *right;
};

static struct node *bottom_up_tree(int depth)
{
    struct node *left = NULL, *right = NULL;
    if (depth > 0) {
        left = bottom_up_tree(depth - 1);
        right = bottom_up_tree(depth - 1);
    }
    struct node *node = GC_malloc(sizeof *node);
    if (!node)
        bench_out_of_memory(bench_name, impl);
    node->left = left;
    node->right = right;
    return node;
}

static long item_check(const struct node *node)
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

    boehm_setup(0);
    uint64_t start = bench_now_ns();

    printf("stretch tree of depth %d\t check: %ld\n", stretch_depth, item_check(bottom_up_tree(stretch_depth)));

    struct node *long_lived = bottom_up_tree(max_depth);

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
            if (pthread_create(&ids[t], NULL, worker, NULL) != 0)
                bench_check_long(bench_name, impl, "pthread_create status", 1, 0);
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
    struct bench_result result = {bench_name, impl, threads, params, wall, boehm_gc_count(), &boehm_pauses,
                                  boehm_extra(extra, sizeof extra, NULL)};
    bench_print_result(&result);
    return 0;
}
