/* hello_managed.c — the same idea as managed C, compiled by corralc: no
 * handles and no polls to write; the corral pass tracks references in
 * locals and inserts polls, and the collector walks the stacks.
 *
 *   cc -O2 -c hello_plain.c
 *   corralc -O2 hello_managed.c hello_plain.o -o hello_managed && ./hello_managed
 */
#include <corral.h>
#include <pthread.h>
#include <stdio.h>

typedef struct node CORRAL_REF *node_ref;
struct node {
    corral_header header;
    node_ref left, right;
};

static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);

enum { THREADS = 4, DEPTH = 16, ROUNDS = 200 };

long hello_expected_nodes(int depth); /* hello_plain.c: plain C */

static node_ref make(int depth)
{
    node_ref n = corral_alloc(&node_type); /* may GC; nothing else to do */
    if (depth > 0) {
        n->left = make(depth - 1);
        n->right = make(depth - 1);
    }
    return n;
}

static long count(node_ref n)
{
    return n ? 1 + count(n->left) + count(n->right) : 0;
}

/* A thread started by corral_thread_create runs managed from its first line. */
static void *worker(void *arg)
{
    long *nodes = arg;
    node_ref kept = make(DEPTH);
    for (int round = 0; round < ROUNDS; round++)
        make(DEPTH - 4); /* garbage */
    *nodes = count(kept);
    return NULL;
}

int main(void)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 1;
    pthread_t threads[THREADS];
    long nodes[THREADS];
    for (int t = 0; t < THREADS; t++)
        corral_thread_create(&threads[t], worker, &nodes[t]);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL); /* an unmanaged call: GCs run meanwhile */
    int right = 1;
    for (int t = 0; t < THREADS; t++)
        right &= nodes[t] == hello_expected_nodes(DEPTH);
    corral_stats stats;
    corral_get_stats(&stats);
    printf("hello_managed: %s: %d threads, %llu collections\n", right ? "ok" : "WRONG", THREADS,
           (unsigned long long)stats.collections);
    corral_thread_detach();
    return right ? 0 : 1;
}
