/* trees.h — the binary trees managed tests build: each node's value is its
 * height, and a checksum weighs left and right differently, so a lost,
 * swapped or stale node changes it. Managed C: references live in locals
 * across every allocation and the pass keeps them right. */
#ifndef CORRAL_TESTS_MANAGED_TREES_H
#define CORRAL_TESTS_MANAGED_TREES_H

#include <corral.h>

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef left, right;
    long value;
};

static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);

static __attribute__((unused)) noderef new_node(long value)
{
    noderef n = (noderef)corral_alloc(&node_type);
    n->value = value;
    return n;
}

/* Top-down: the parent is allocated first and held across both calls. */
static __attribute__((unused)) noderef make_tree(int depth)
{
    noderef n = new_node(depth);
    if (depth > 0) {
        n->left = make_tree(depth - 1);
        n->right = make_tree(depth - 1);
    }
    return n;
}

static __attribute__((unused)) long checksum(noderef tree)
{
    return tree ? tree->value + 2 * checksum(tree->left) + 3 * checksum(tree->right) : 0;
}

static __attribute__((unused)) long expected_checksum(int depth)
{
    return depth < 0 ? 0 : depth + 5 * expected_checksum(depth - 1);
}

#endif /* CORRAL_TESTS_MANAGED_TREES_H */
