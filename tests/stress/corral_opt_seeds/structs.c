#include <corral.h>
typedef struct node CORRAL_REF *noderef;
struct node { corral_header header; noderef next; long value; };
static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
typedef struct pair { noderef a, b; } pair;
static pair make(long v) { pair p; p.a = corral_alloc(&node_type); p.b = corral_alloc(&node_type); p.a->value = v; p.b->value = -v; return p; }
long use(long v) { pair p = make(v); corral_collect(); long s = 0; for (int i = 0; i < 3; i++) { pair q = make(i); s += q.a->value; } return p.a->value + p.b->value + s; }
int sel(int c, noderef x, noderef y) { noderef z = c ? x : y; corral_collect(); return z ? (int)z->value : 0; }
