/* GCBench (Hans Boehm, John Ellis, William Kovac) in managed C on corral.
 *
 *   corral-gcbench [STRETCH_DEPTH LONG_LIVED_DEPTH ARRAY_SIZE MIN_DEPTH MAX_DEPTH]
 * defaults 18 16 500000 4 16. Same algorithm, parameters and output as
 * peers/boehm/gcbench.c; nodes carry corral's one-word header (32 bytes).
 *
 * Built with -DBENCH_HEADERLESS it is corral-hl-gcbench: the node type is
 * CORRAL_TYPE_HEADERLESS (24 bytes, Boehm's node); the double array keeps
 * its header. The impl is corral-hl.
 */
#include <stddef.h>
#include <stdio.h>

#include "corral_bench.h"

static const char bench_name[] = "gcbench";
#ifdef BENCH_HEADERLESS
static const char impl[] = "corral-hl";
#else
static const char impl[] = "corral";
#endif

typedef struct node CORRAL_REF *noderef;
struct node {
#ifndef BENCH_HEADERLESS
    corral_header header;
#endif
    noderef left, right;
    int i, j; /* GCBench's payload, never read: it sizes the node */
};
static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
#ifdef BENCH_HEADERLESS
static const corral_type node_type = CORRAL_HEADERLESS_STRUCT_TYPE("gcbench.node", struct node, node_refs);
#else
static const corral_type node_type = CORRAL_STRUCT_TYPE("gcbench.node", struct node, node_refs);
#endif

typedef struct double_array CORRAL_REF *doublesref;
struct double_array {
    corral_array_header header;
    double elements[];
};
static const corral_type doubles_type = CORRAL_DATA_ARRAY_TYPE("gcbench.double[]", double);

static noderef new_node(noderef left, noderef right)
{
    noderef node = corral_alloc(&node_type);
    if (!node)
        bench_out_of_memory(bench_name, impl);
    node->left = left;
    node->right = right;
    return node;
}

static void populate(int depth, noderef node)
{
    if (depth <= 0)
        return;
    depth--;
    node->left = new_node(0, 0);
    node->right = new_node(0, 0);
    populate(depth, node->left);
    populate(depth, node->right);
}

static noderef make_tree(int depth)
{
    if (depth <= 0)
        return new_node(0, 0);
    noderef left = make_tree(depth - 1);
    noderef right = make_tree(depth - 1);
    return new_node(left, right);
}

static long count_nodes(noderef node)
{
    return node ? 1 + count_nodes(node->left) + count_nodes(node->right) : 0;
}

static void time_construction(int stretch_depth, int depth)
{
    long iterations = 2 * bench_tree_size(stretch_depth) / bench_tree_size(depth);
    long top_down_check = 0, bottom_up_check = 0;
    for (long i = 0; i < iterations; i++) {
        noderef tree = new_node(0, 0);
        populate(depth, tree);
        if (i == iterations - 1)
            top_down_check = count_nodes(tree);
    }
    for (long i = 0; i < iterations; i++) {
        noderef tree = make_tree(depth);
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

    corral_bench_init(bench_name, 0);
    if (corral_thread_attach() != CORRAL_OK)
        return corral_bench_failed(bench_name, "corral_thread_attach");
    uint64_t start = bench_now_ns();
    printf("Garbage Collector Test\n");

    noderef stretch = make_tree(stretch_depth);
    printf(" Stretching memory with a binary tree of depth %d\t check: %ld\n", stretch_depth,
           count_nodes(stretch));
    stretch = 0;

    printf(" Creating a long-lived binary tree of depth %d\n", long_lived_depth);
    noderef long_lived = new_node(0, 0);
    populate(long_lived_depth, long_lived);

    printf(" Creating a long-lived array of %ld doubles\n", array_size);
    doublesref array = corral_alloc_array(&doubles_type, (uint64_t)array_size);
    if (!array)
        bench_out_of_memory(bench_name, impl);
    for (long i = 0; i < array_size / 2; i++)
        array->elements[i] = 1.0 / (double)i;

    for (int depth = min_depth; depth <= max_depth; depth += 2)
        time_construction(stretch_depth, depth);

    long long_lived_check = count_nodes(long_lived);
    bench_check_long(bench_name, impl, "long-lived tree size", long_lived_check, bench_tree_size(long_lived_depth));
    bench_check_long(bench_name, impl, "array[1000] == 1.0/1000", array->elements[1000] == 1.0 / 1000, 1);
    bench_check_long(bench_name, impl, "array length", (long)array->header.length, array_size);
    printf("long-lived tree of depth %d\t check: %ld\t array check: ok\n", long_lived_depth, long_lived_check);
    uint64_t wall = bench_now_ns() - start;

    char params[128], extra[256];
    snprintf(params, sizeof params, "stretch:%d,long_lived:%d,array:%ld,depths:%d-%d", stretch_depth,
             long_lived_depth, array_size, min_depth, max_depth);
    long gc_count = corral_bench_gc_count(extra, sizeof extra, NULL);
    struct bench_result result = {bench_name, impl, 1, params, wall, gc_count, &corral_pauses, extra};
    bench_print_result(&result);
    corral_shutdown();
    return 0;
}
