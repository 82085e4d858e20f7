/* trees.h — how managed tests build c_trees.h's binary trees: references
 * live in locals across every allocation and the pass keeps them right. */
#ifndef CORRAL_TESTS_MANAGED_TREES_H
#define CORRAL_TESTS_MANAGED_TREES_H

#include "../c_trees.h"

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

#endif /* CORRAL_TESTS_MANAGED_TREES_H */
