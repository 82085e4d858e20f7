/* thread_churn — threads created, attached and detached continually while
 * others allocate and collect.
 *
 * Each round starts a batch of short-lived threads, half through
 * corral_thread_create and half as raw pthreads that attach from plain C
 * (thread_churn_c.c); each builds a tree, stores it in its slot of a global
 * results array, and exits (detaching, its TLAB abandoned mid-use). A
 * long-lived allocator thread collects all the while, so attaches and
 * detaches race with stops. The main thread checks every slot's tree.
 */
#include "torture.h"

#include "thread_churn.h"

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef left, right;
    long value;
};

static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type results_type = CORRAL_REF_ARRAY_TYPE("node[] results");

enum { BATCH = 6, TREE_DEPTH = 7 };

static corral_ref results; /* global root; slot i written by thread i of a round */
static _Atomic int stop_allocator;

static noderef make_tree(int depth, long value)
{
    noderef n = corral_alloc(&node_type);
    n->value = value;
    if (depth > 0) {
        n->left = make_tree(depth - 1, value + 1);
        n->right = make_tree(depth - 1, value + 2);
    }
    return n;
}

static long tree_check(noderef tree, int depth, long value)
{
    if (!tree)
        return depth < 0 ? 0 : -1000000;
    if (tree->value != value)
        return -1000000;
    return 1 + tree_check(tree->left, depth - 1, value + 1) +
           tree_check(tree->right, depth - 1, value + 2);
}

void *managed_churn_body(void *raw)
{
    long slot = (long)raw;
    make_tree(4, 0); /* garbage */
    noderef tree = make_tree(TREE_DEPTH, slot * 100);
    make_tree(3, 0);
    TORTURE_ELEMENTS(noderef, results)[slot] = tree;
    return NULL;
}

static void *allocator(void *arg)
{
    (void)arg;
    long rounds = 0;
    while (!stop_allocator) {
        noderef keep = make_tree(6, 1);
        for (int i = 0; i < 20; i++)
            make_tree(5, 2);
        if (++rounds % 10 == 0)
            corral_collect();
        CHECK_EQ(tree_check(keep, 6, 1), 127, "the allocator's tree");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("thread_churn", argc, argv);
    results = corral_alloc_array(&results_type, 2 * BATCH);
    corral_global_root_add(&results);
    pthread_t allocator_thread = torture_spawn(allocator, NULL);
    long rounds = torture_count(12, 2);
    for (long round = 0; round < rounds; round++) {
        for (long i = 0; i < 2 * BATCH; i++)
            TORTURE_ELEMENTS(noderef, results)[i] = NULL;
        pthread_t threads[BATCH];
        for (long i = 0; i < BATCH; i++)
            threads[i] = torture_spawn(managed_churn_body, (void *)i);
        c_churn_attached_threads(BATCH, BATCH); /* returns when they are done */
        for (int i = 0; i < BATCH; i++)
            torture_join(threads[i]);
        for (long i = 0; i < 2 * BATCH; i++)
            CHECK_EQ(tree_check(TORTURE_ELEMENTS(noderef, results)[i], TREE_DEPTH, i * 100),
                     (1 << (TREE_DEPTH + 1)) - 1, "a churned thread's tree");
    }
    stop_allocator = 1;
    torture_join(allocator_thread);
    corral_global_root_remove(&results);
    return torture_finish();
}
