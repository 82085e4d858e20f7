/* c_trees.h — the binary trees plain-C tests build: C holds references only
 * in handles across anything that may collect. A node's value is its
 * height; the checksum weighs left and right differently. */
#ifndef CORRAL_TESTS_C_TREES_H
#define CORRAL_TESTS_C_TREES_H

#include <corral.h>

typedef struct node {
    corral_header header;
    struct node *left, *right;
    long value;
} node;

static const uint32_t node_refs[] = {offsetof(node, left), offsetof(node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", node, node_refs);

/* Builds a tree bottom-up and returns a raw reference, which the caller
 * must store (in a handle or the heap) before it allocates again. */
static __attribute__((unused)) node *make_tree(int depth)
{
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle self = corral_handle_new(corral_alloc(&node_type));
    ((node *)*self)->value = depth;
    if (depth > 0) {
        node *left = make_tree(depth - 1);
        ((node *)*self)->left = left;
        node *right = make_tree(depth - 1);
        ((node *)*self)->right = right;
    }
    node *result = *self;
    corral_handle_scope_close(scope);
    return result;
}

static __attribute__((unused)) long checksum(const node *tree)
{
    return tree ? tree->value + 2 * checksum(tree->left) + 3 * checksum(tree->right) : 0;
}

static __attribute__((unused)) long expected_checksum(int depth)
{
    return depth < 0 ? 0 : depth + 5 * expected_checksum(depth - 1);
}

#endif /* CORRAL_TESTS_C_TREES_H */
