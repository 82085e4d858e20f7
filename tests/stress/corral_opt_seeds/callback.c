#include <corral.h>
typedef struct node CORRAL_REF *noderef;
struct node { corral_header header; noderef next; long value; };
static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
long c_visit(long depth);
void *cb(void *arg) { long *d = arg; noderef n = corral_alloc(&node_type); n->value = *d; if (*d) c_visit(*d - 1); *d = n->value; return 0; }
int main(void) { corral_init(0); corral_thread_attach(); long d = 3; cb(&d); return (int)d; }
