/* GCBench (Hans Boehm, John Ellis, William Kovac) on Boehm GC.
 *
 *   boehm-gcbench [STRETCH_DEPTH LONG_LIVED_DEPTH ARRAY_SIZE MIN_DEPTH MAX_DEPTH]
 * defaults 18 16 500000 4 16: the published parameters. Trees of depth d are
 * built NumIters(d) = 2*TreeSize(STRETCH)/TreeSize(d) times top-down
 * (Populate) and as many times bottom-up (MakeTree), while a long-lived tree
 * and a long-lived array of doubles stay reachable. The same algorithm is in
 * peers/malloc/gcbench.c, peers/java/GCBench.java and managed/gcbench.c.
 */
#include "boehm.h"

static const char bench_name[] = "gcbench";
static const char impl[] = "boehm";

struct node {
    struct node *left, *right;
    int i, j; /* GCBench's payload, never read: it sizes the node */
};

static struct node *new_node(struct node *left, struct node *right)
{
    struct node *node = GC_malloc(sizeof *node);
    if (!node)
        bench_out_of_memory(bench_name, impl);
    node->left = left;
    node->right = right;
    return node;
}

/* Top-down: give node two children, down to depth levels below it. */
static void populate(int depth, struct node *node)
{
    if (depth <= 0)
        return;
    depth--;
    node->left = new_node(NULL, NULL);
    node->right = new_node(NULL, NULL);
    populate(depth, node->left);
    populate(depth, node->right);
}

/* Bottom-up: children first, then their parent. */
static struct node *make_tree(int depth)
{
    if (depth <= 0)
        return new_node(NULL, NULL);
    struct node *left = make_tree(depth - 1);
    struct node *right = make_tree(depth - 1);
    return new_node(left, right);
}

static long count_nodes(const struct node *node)
{
    return node ? 1 + count_nodes(node->left) + count_nodes(node->right) : 0;
}

/* The last tree of each loop is counted: proof the work was really done. */
static void time_construction(int stretch_depth, int depth)
{
    long iterations = 2 * bench_tree_size(stretch_depth) / bench_tree_size(depth);
    long top_down_check = 0, bottom_up_check = 0;
    for (long i = 0; i < iterations; i++) {
        struct node *tree = new_node(NULL, NULL);
        populate(depth, tree);
        if (i == iterations - 1)
            top_down_check = count_nodes(tree);
    }
    for (long i = 0; i < iterations; i++) {
        struct node *tree = make_tree(depth);
        if (i == iterations - 1)
            bottom_up_check = count_nodes(tree);
    }
    bench_check_long(bench_name, impl, "top-down tree size", top_down_check, bench_tree_size(depth));
    bench_check_long(bench_name, impl, "bottom-up tree size", bottom_up_check, bench_tree_size(depth));
    printf("Creating %ld trees of depth %d\t top-down check: %ld\t bottom-up check: %ld\n", iterations, depth,
           top_down_check, bottom_up_check);
}

int main(int argc, char **argv)
{
    int stretch_depth = (int)bench_arg_long(argc, argv, 1, "STRETCH_DEPTH", 18, 1, 26);
    int long_lived_depth = (int)bench_arg_long(argc, argv, 2, "LONG_LIVED_DEPTH", 16, 1, 26);
    long array_size = bench_arg_long(argc, argv, 3, "ARRAY_SIZE", 500000, 1001, 1L << 28);
    int min_depth = (int)bench_arg_long(argc, argv, 4, "MIN_DEPTH", 4, 0, 26);
    int max_depth = (int)bench_arg_long(argc, argv, 5, "MAX_DEPTH", 16, min_depth, 26);

    boehm_setup(0);
    uint64_t start = bench_now_ns();
    printf("Garbage Collector Test\n");

    struct node *stretch = make_tree(stretch_depth);
    printf(" Stretching memory with a binary tree of depth %d\t check: %ld\n", stretch_depth,
           count_nodes(stretch));
    stretch = NULL;

    printf(" Creating a long-lived binary tree of depth %d\n", long_lived_depth);
    struct node *long_lived = new_node(NULL, NULL);
    populate(long_lived_depth, long_lived);

    printf(" Creating a long-lived array of %ld doubles\n", array_size);
    double *array = GC_malloc_atomic(sizeof(double) * (size_t)array_size);
    if (!array)
        bench_out_of_memory(bench_name, impl);
    for (long i = 0; i < array_size / 2; i++)
        array[i] = 1.0 / (double)i;

    for (int depth = min_depth; depth <= max_depth; depth += 2)
        time_construction(stretch_depth, depth);

    long long_lived_check = count_nodes(long_lived);
    bench_check_long(bench_name, impl, "long-lived tree size", long_lived_check, bench_tree_size(long_lived_depth));
    bench_check_long(bench_name, impl, "array[1000] == 1.0/1000", array[1000] == 1.0 / 1000, 1);
    printf("long-lived tree of depth %d\t check: %ld\t array check: ok\n", long_lived_depth, long_lived_check);
    uint64_t wall = bench_now_ns() - start;

    char params[128], extra[256];
    snprintf(params, sizeof params, "stretch:%d,long_lived:%d,array:%ld,depths:%d-%d", stretch_depth,
             long_lived_depth, array_size, min_depth, max_depth);
    struct bench_result result = {bench_name, impl, 1, params, wall, boehm_gc_count(), &boehm_pauses,
                                  boehm_extra(extra, sizeof extra, NULL)};
    bench_print_result(&result);
    return 0;
}
