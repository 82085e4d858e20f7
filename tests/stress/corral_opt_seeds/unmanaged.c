#include <corral.h>
#include <stdio.h>
#include <pthread.h>
typedef struct node CORRAL_REF *noderef;
struct node { corral_header header; noderef next; long value; };
static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
CORRAL_LEAF long fast_hash(long);
long g(long v) {
    noderef n = corral_alloc(&node_type);
    n->value = fast_hash(v);
    pthread_mutex_lock(&lock);
    printf("%ld %s\n", n->value, "x");
    pthread_mutex_unlock(&lock);
    return n->value;
}
