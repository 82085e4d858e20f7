/* mt-trees with malloc/free: the no-GC baseline; each tree is freed once checked.
 *
 *   malloc-mt-trees [THREADS [TREES [LIVE_DEPTH [TREE_DEPTH [HEAP_BYTES]]]]]
 *   defaults: 1 512 20 16 0 (HEAP_BYTES is accepted and ignored: malloc has no limit)
 * Main builds one shared long-lived tree of depth LIVE_DEPTH (32-byte nodes:
 * two references and one word of payload) and keeps it reachable; THREADS
 * mutators then share TREES trees of depth TREE_DEPTH among them, each one
 * built bottom-up, checked and dropped. The timed region is the mutator phase.
 * Same algorithm in peers/boehm/mt_trees.c, peers/java/MtTrees.java and
 * managed/mt_trees.c.
 */
#include <pthread.h>
#include <stdlib.h>

#include "bench.h"

static const char bench_name[] = "mt-trees";
static const char impl[] = "malloc";

#define MAX_THREADS 256
#define LIVE_SALT 1000 /* the long-lived tree's tag; mutator t uses t */

struct node {
    struct node *left, *right;
    long value;
};

static struct node *make_tree(int height, long salt)
{
    struct node *left = NULL, *right = NULL;
    if (height > 0) {
        left = make_tree(height - 1, salt);
        right = make_tree(height - 1, salt);
    }
    struct node *node = malloc(sizeof *node);
    if (!node)
        bench_out_of_memory(bench_name, impl);
    node->left = left;
    node->right = right;
    node->value = height + salt;
    return node;
}

static long tree_check(const struct node *node)
{
    long check = 1 + node->value;
    if (node->left)
        check += tree_check(node->left) + tree_check(node->right);
    return check;
}

static void free_tree(struct node *node)
{
    if (node->left) {
        free_tree(node->left);
        free_tree(node->right);
    }
    free(node);
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
        struct node *tree = make_tree(self->tree_depth, self->index);
        bench_check_long(bench_name, impl, "mutator tree check", tree_check(tree), expected);
        free_tree(tree);
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

    (void)heap_bytes; /* accepted so bench/run calls every peer alike */
    struct node *live = make_tree(live_depth, LIVE_SALT);

    struct mutator mutators[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        mutators[t] = (struct mutator){.index = t, .trees = trees / threads + (t < trees % threads),
                                       .tree_depth = tree_depth};
    uint64_t start = bench_now_ns();
    for (int t = 0; t < threads; t++)
        if (pthread_create(&mutators[t].id, NULL, mutator_main, &mutators[t]) != 0)
            bench_check_long(bench_name, impl, "pthread_create status", 1, 0);
    long trees_done = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(mutators[t].id, NULL);
        trees_done += mutators[t].trees_done;
    }
    uint64_t wall = bench_now_ns() - start;

    bench_check_long(bench_name, impl, "trees built", trees_done, trees);
    bench_check_long(bench_name, impl, "long-lived tree check", tree_check(live),
                     bench_valued_tree_check(live_depth, LIVE_SALT));
    free_tree(live);
    printf("%d mutators built %ld trees of depth %d beside a live tree of depth %d: ok\n", threads, trees_done,
           tree_depth, live_depth);

    char params[128], extra[128];
    snprintf(params, sizeof params, "trees:%ld,live_depth:%d,tree_depth:%d,heap_max:%ld", trees, live_depth,
             tree_depth, heap_bytes);
    snprintf(extra, sizeof extra, "live_bytes=%ld trees_per_s=%.1f", bench_mt_live_bytes(threads, live_depth, tree_depth),
             (double)trees_done / ((double)wall / 1e9));
    struct bench_result result = {bench_name, impl, threads, params, wall, -1, NULL, extra};
    bench_print_result(&result);
    return 0;
}
