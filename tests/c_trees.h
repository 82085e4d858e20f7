/* c_trees.h — the binary trees the tests build, plain C and managed alike:
 * one node type, and a checksum in which each node's value is its height
 * and left and right weigh differently, so a lost, swapped or stale node
 * changes it. The builder here is plain C's: it holds references only in
 * handles across anything that may collect. Managed tests build with
 * managed/trees.h's, which keeps them in locals. */
#ifndef CORRAL_TESTS_C_TREES_H
#define CORRAL_TESTS_C_TREES_H

#include <corral.h>

/* In plain C CORRAL_REF is empty: noderef is struct node *. */
typedef struct node CORRAL_REF *noderef;
typedef struct node {
    corral_header header;
    noderef left, right;
    long value;
} node;

static const uint32_t node_refs[] = {offsetof(node, left), offsetof(node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", node, node_refs);

static __attribute__((unused)) long checksum(noderef tree)
{
    return tree ? tree->value + 2 * checksum(tree->left) + 3 * checksum(tree->right) : 0;
}

static __attribute__((unused)) long expected_checksum(int depth)
{
    return depth < 0 ? 0 : depth + 5 * expected_checksum(depth - 1);
}

#ifndef __CORRAL_MANAGED__
/* Builds a tree and returns a raw reference, which the caller must store
 * (in a handle or the heap) before it allocates again. Children are stored
 * with corral_store_ref: a collection inside the recursion may have made
 * the parent old (CORRAL_GC_GENERATIONAL=1). */
static __attribute__((unused)) node *make_tree(int depth)
{
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle self = corral_handle_new(corral_alloc(&node_type));
    ((node *)*self)->value = depth;
    if (depth > 0) {
        node *left = make_tree(depth - 1);
        corral_store_ref(*self, (corral_ref *)&((node *)*self)->left, left);
        node *right = make_tree(depth - 1);
        corral_store_ref(*self, (corral_ref *)&((node *)*self)->right, right);
    }
    node *result = *self;
    corral_handle_scope_close(scope);
    return result;
}
#endif

#endif /* CORRAL_TESTS_C_TREES_H */
