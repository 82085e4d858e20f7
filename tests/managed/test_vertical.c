/* The vertical slice, compiled by corralc: managed C holding references in
 * locals across calls, derived pointers to fields and array elements live
 * across collections, a deep recursion collected at the bottom, and trees
 * whose every node moves. Built at -O0..-O3 (see CMakeLists.txt); each case
 * runs in a forked child with its own CORRAL_* settings. */
#include <corral.h>

#include "corral_test.h"
#include "trees.h"

static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("node[]");
static const corral_type long_array_type = CORRAL_DATA_ARRAY_TYPE("long[]", long);

/* Top-down: the parent is allocated first and held across both calls. */

static long node_count(noderef tree)
{
    return tree ? 1 + node_count(tree->left) + node_count(tree->right) : 0;
}

/* ---------------------------------------------------------------- cases */

static void binary_trees(void *arg)
{
    test_start(arg, true);
    noderef garbage = make_tree(14); /* below the long-lived tree: it must slide */
    (void)garbage;
    garbage = NULL;
    noderef tree = make_tree(18);
    long expected = expected_checksum(18);
    corral_stats before, after;
    corral_get_stats(&before);
    for (int round = 0; round < 6; round++) {
        noderef churn = make_tree(12);
        if (checksum(churn) != expected_checksum(12))
            fail("churn tree checksum in round %d", round);
        corral_collect();
    }
    corral_get_stats(&after);
    ok(checksum(tree) == expected, "depth-18 tree checksum intact after GCs");
    ok(node_count(tree) == (1L << 19) - 1, "depth-18 tree has every node");
    ok(after.collections > before.collections, "collections ran (%llu)",
       (unsigned long long)after.collections);
    ok(after.bytes_moved > 0, "objects moved (%llu bytes)", (unsigned long long)after.bytes_moved);
}

/* Derived pointers: a pointer to a field and to an array element, both
 * live across collections that move their objects. */
static void derived_pointers(void *arg)
{
    test_start(arg, true);
    noderef garbage = make_tree(12);
    (void)garbage;
    garbage = NULL;
    noderef holder = new_node(7);
    long CORRAL_REF *field = &holder->value;
    corral_ref array = corral_alloc_array(&long_array_type, 64);
    long CORRAL_REF *elements = (long CORRAL_REF *)((char CORRAL_REF *)array + sizeof(corral_array_header));
    for (int i = 0; i < 64; i++)
        elements[i] = i * 3;
    long CORRAL_REF *element = &elements[40];
    long sum_before = 0;
    for (int i = 0; i < 64; i++)
        sum_before += elements[i];
    corral_stats stats_before;
    corral_get_stats(&stats_before);
    for (int round = 0; round < 5; round++) {
        make_tree(10);
        corral_collect();
        *field += 1;
        *element += 1;
    }
    corral_stats stats_after;
    corral_get_stats(&stats_after);
    is_int(holder->value, 12, "a field written through a derived pointer after 5 moving GCs");
    is_int(elements[40], 125, "an array element written through a derived pointer");
    long sum_after = 0;
    for (int i = 0; i < 64; i++)
        sum_after += elements[i];
    is_int(sum_after, sum_before + 5, "the rest of the array is intact");
    ok(stats_after.bytes_moved > stats_before.bytes_moved, "the objects did move");
}

/* Every frame of a 100-deep recursion holds its own node; the collection
 * happens at the bottom; each frame checks its node on the way back. */
static long recurse(int depth, noderef chain)
{
    noderef mine = new_node(depth);
    mine->left = chain;
    if (depth == 100) {
        make_tree(8);
        corral_collect();
        corral_collect();
    } else if (recurse(depth + 1, mine) != 0) {
        return -1;
    }
    /* mine and chain were both relocated in this frame's stack slots. */
    if (mine->value != depth || mine->left != chain)
        return -1;
    if (depth > 1 && chain->value != depth - 1)
        return -1;
    return 0;
}

static void deep_recursion(void *arg)
{
    test_start(arg, true);
    noderef garbage = make_tree(10);
    (void)garbage;
    garbage = NULL;
    ok(recurse(1, NULL) == 0, "100 frames each keep their node across a GC at the bottom");
}

/* A reference array whose elements are stored and read across GCs. */
static void reference_arrays(void *arg)
{
    test_start(arg, true);
    corral_ref array = corral_alloc_array(&ref_array_type, 3000);
    noderef CORRAL_REF *slots =
        (noderef CORRAL_REF *)((char CORRAL_REF *)array + sizeof(corral_array_header));
    for (int i = 0; i < 3000; i++)
        slots[i] = new_node(i);
    corral_collect();
    long sum = 0;
    for (int i = 0; i < 3000; i++)
        sum += slots[i]->value;
    is_int(sum, 3000L * 2999 / 2, "3000 nodes reachable through a reference array");
}

int main(void)
{
    plan(5);
    tap_subtest("binary trees survive moving GCs (move-all, verify)", 120, binary_trees,
                "CORRAL_GC_STRESS=move-all CORRAL_GC_VERIFY=after CORRAL_GC_THREADS=2");
    tap_subtest("derived pointers are relocated", 60, derived_pointers,
                "CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=before,after");
    tap_subtest("a 100-deep recursion collected at the bottom", 60, deep_recursion,
                "CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=after");
    tap_subtest("reference arrays", 60, reference_arrays, "CORRAL_GC_VERIFY=after");
    tap_subtest("trees under a collection every 2000 allocations", 180, binary_trees,
                "CORRAL_GC_STRESS=alloc:2000,move-all,poison CORRAL_HEAP_MIN=4M");
    return done_testing();
}
