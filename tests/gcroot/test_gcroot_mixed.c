/* References crossing between gcroot code and managed C (mixed.ll): trees
 * whose levels alternate between the two, each level receiving its parent
 * as an argument and returning its node, so every collection finds roots in
 * gcroot slots (shadow-stack frames or promoted stackmap entries) and in
 * managed C's stackmaps at once. One and four threads, moving collections,
 * heap verified before and after each; every node's value and every parent
 * link is checked. Built in both gcroot modes at -O0..-O3. */
#include <stdio.h>
#include <string.h>

#include "gcroot_threads.h"

/* From mixed.ll. */
noderef gcroot_build(long depth, long value, noderef parent);
long gcroot_check(noderef tree, long depth, long value);
long gcroot_rounds(long rounds, long depth);
/* Defined with plain ptr parameters and result: see mixed.ll. */
noderef gcroot_pair(noderef left, noderef right);

/* Declared in mixed.ll with plain ptr; allocates, so the tree may move. */
noderef c_left(noderef tree)
{
    noderef scratch = corral_alloc(&gcroot_node_type);
    scratch->left = tree;
    return scratch->left->left;
}

/* A managed C level: node value, its children built by gcroot code, and
 * the parent (live across those calls) checked; a wrong one marks -1. */
noderef c_build(long depth, long value, noderef parent)
{
    noderef node = corral_alloc(&gcroot_node_type);
    node->value = value;
    if (depth > 0) {
        noderef left = gcroot_build(depth - 1, 2 * value, node);
        node->left = left;
        noderef right = gcroot_build(depth - 1, 2 * value + 1, node);
        node->right = right;
    }
    if (parent && parent->value != value / 2)
        node->value = -1;
    return node;
}

/* Wrong values under tree, whose children gcroot_check checks. */
long c_check(noderef tree, long depth, long value)
{
    if (!tree)
        return 1;
    noderef scratch = corral_alloc(&gcroot_node_type); /* a collection point */
    scratch->value = value;
    long failures = tree->value != value;
    if (depth > 0) {
        failures += gcroot_check(tree->left, depth - 1, 2 * value);
        failures += gcroot_check(tree->right, depth - 1, 2 * value + 1);
    }
    return failures + (scratch->value != value);
}

/* At least MIN_ROUNDS under TAP_WORK_PERCENT: 10 collections under alloc:211. */
enum { ROUNDS = 12, MIN_ROUNDS = 2, DEPTH = 6 };

static void *worker(void *failures)
{
    long bad = 0;
    long rounds = tap_work(ROUNDS) > MIN_ROUNDS ? tap_work(ROUNDS) : MIN_ROUNDS;
    noderef keep = gcroot_build(DEPTH, 1, 0);
    for (long round = 0; round < rounds; round++) {
        noderef from_c = c_build(DEPTH, 1, 0);
        noderef from_gcroot = gcroot_build(DEPTH, 1, 0);
        bad += gcroot_check(from_c, DEPTH, 1) + c_check(from_gcroot, DEPTH, 1);
        bad += c_check(from_c, DEPTH, 1) + gcroot_check(from_gcroot, DEPTH, 1);
        noderef pair = gcroot_pair(from_c, from_gcroot);
        bad += pair->left != from_c || pair->right != from_gcroot || pair->value != 2 + 1;
    }
    bad += gcroot_rounds(rounds, DEPTH);
    bad += c_check(keep, DEPTH, 1) + gcroot_check(keep, DEPTH, 1);
    *(long *)failures = bad;
    return NULL;
}

static void run_case(void *arg)
{
    const gcroot_case *c = arg;
    /* Under polls stress each poll site collects once; threads share them. */
    bool polls_only = strstr(c->settings, "polls") != NULL;
    gcroot_check_case(c, worker, "every node and parent link right", !polls_only ? 10 : 2);
}

int main(void)
{
    plan(2 * GCROOT_STRESS_SETTINGS);
    gcroot_subtests(gcroot_stress_settings, GCROOT_STRESS_SETTINGS, run_case);
    return done_testing();
}
