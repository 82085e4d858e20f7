#include <corral.h>
typedef struct node CORRAL_REF *noderef;
struct node { corral_header header; noderef next; long value; };
static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
noderef build(long n) {
    noderef list = 0;
    for (long i = 0; i < n; i++) { noderef x = corral_alloc(&node_type); x->next = list; x->value = i; list = x; }
    return list;
}
long sum(noderef list) { long s = 0; while (list) { s += list->value; list = list->next; } return s; }
