/* node_arrays.h — what managed tests use to hold nodes in the heap: an
 * array of references and a node type pinned by its type (so it lives in
 * the large-object space), with element access that keeps the array's
 * address space. */
#ifndef CORRAL_TESTS_MANAGED_NODE_ARRAYS_H
#define CORRAL_TESTS_MANAGED_NODE_ARRAYS_H

#include "trees.h"

static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("node[]");
static const corral_type pinned_node_type = {CORRAL_TYPE_SIGNATURE, "pinned node",
                                             (uint32_t)sizeof(struct node), 0, CORRAL_TYPE_PINNED,
                                             2, node_refs, 0, 0, 0, 0};

typedef corral_ref CORRAL_REF *slotref;

static inline __attribute__((always_inline, unused)) slotref elements_of(corral_ref array)
{
    return (slotref)((char CORRAL_REF *)array + sizeof(corral_array_header));
}

#endif /* CORRAL_TESTS_MANAGED_NODE_ARRAYS_H */
