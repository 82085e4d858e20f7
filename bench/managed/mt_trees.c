/* mt-trees in managed C on corral: the multi-mutator throughput and pause test.
 *
 *   corral-mt-trees [THREADS [TREES [LIVE_DEPTH [TREE_DEPTH [HEAP_BYTES]]]]]
 *   defaults: 1 512 20 16 0 (0: corral's default heap limit)
 * Same algorithm and parameters as peers/boehm/mt_trees.c (see there). Nodes
 * are 32 bytes: header, two references, one word of payload. HEAP_BYTES goes
 * to corral_init as heap_max (CORRAL_HEAP_MAX, when set, wins).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "corral_bench.h"

static const char bench_name[] = "mt-trees";
static const char impl[] = "corral";

#define MAX_THREADS 256
#define LIVE_SALT 1000 /* the long-lived tree's tag; mutator t uses t */

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef left, right;
    long value;
};
static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("mt-trees.node", struct node, node_refs);
_Static_assert(sizeof(struct node) == BENCH_MT_NODE_BYTES, "mt-trees nodes are 32 bytes");

static noderef make_tree(int height, long salt)
{
    noderef left = 0, right = 0;
    if (height > 0) {
        left = make_tree(height - 1, salt);
        right = make_tree(height - 1, salt);
    }
    noderef node = corral_alloc(&node_type);
    if (!node)
        bench_out_of_memory(bench_name, impl);
    node->left = left;
    node->right = right;
    node->value = height + salt;
    return node;
}

static long tree_check(noderef node)
{
    long check = 1 + node->value;
    if (node->left)
        check += tree_check(node->left) + tree_check(node->right);
    return check;
}

/* One mutator's orders and answer; main reads trees_done after the join. */
struct mutator {
    pthread_t id;
    int index;
    long trees;
    int tree_depth;
    long trees_done;
};

static void *mutator_main(void *argument)
{
    struct mutator *self = argument;
    long expected = bench_valued_tree_check(self->tree_depth, self->index);
    for (long i = 0; i < self->trees; i++) {
        noderef tree = make_tree(self->tree_depth, self->index);
        bench_check_long(bench_name, impl, "mutator tree check", tree_check(tree), expected);
        self->trees_done++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = (int)bench_arg_long(argc, argv, 1, "THREADS", 1, 1, MAX_THREADS);
    long trees = bench_arg_long(argc, argv, 2, "TREES", 512, 1, 1L << 30);
    int live_depth = (int)bench_arg_long(argc, argv, 3, "LIVE_DEPTH", 20, 0, 26);
    int tree_depth = (int)bench_arg_long(argc, argv, 4, "TREE_DEPTH", 16, 0, 26);
    long heap_bytes = bench_arg_long(argc, argv, 5, "HEAP_BYTES", 0, 0, 1L << 40);

    corral_bench_init(bench_name, (size_t)heap_bytes);
    if (corral_thread_attach() != CORRAL_OK)
        return corral_bench_failed(bench_name, "corral_thread_attach");
    noderef live = make_tree(live_depth, LIVE_SALT);

    struct mutator mutators[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        mutators[t] = (struct mutator){.index = t, .trees = trees / threads + (t < trees % threads),
                                       .tree_depth = tree_depth};
    uint64_t start = bench_now_ns();
    for (int t = 0; t < threads; t++)
        if (corral_thread_create(&mutators[t].id, mutator_main, &mutators[t]) != 0)
            bench_check_long(bench_name, impl, "corral_thread_create status", 1, 0);
    long trees_done = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(mutators[t].id, NULL);
        trees_done += mutators[t].trees_done;
    }
    uint64_t wall = bench_now_ns() - start;

    bench_check_long(bench_name, impl, "trees built", trees_done, trees);
    bench_check_long(bench_name, impl, "long-lived tree check", tree_check(live),
                     bench_valued_tree_check(live_depth, LIVE_SALT));
    printf("%d mutators built %ld trees of depth %d beside a live tree of depth %d: ok\n", threads, trees_done,
           tree_depth, live_depth);

    char params[128], more[128], extra[256];
    snprintf(params, sizeof params, "trees:%ld,live_depth:%d,tree_depth:%d,heap_max:%ld", trees, live_depth,
             tree_depth, heap_bytes);
    snprintf(more, sizeof more, "live_bytes=%ld trees_per_s=%.1f", bench_mt_live_bytes(threads, live_depth, tree_depth),
             (double)trees_done / ((double)wall / 1e9));
    long gc_count = corral_bench_gc_count(extra, sizeof extra, more);
    struct bench_result result = {bench_name, impl, threads, params, wall, gc_count, &corral_pauses, extra};
    bench_print_result(&result);
    corral_shutdown();
    return 0;
}
