/* callbacks — managed code calling unmanaged C that calls back into managed
 * code, nested, on several threads.
 *
 * managed frames -> c_visit (plain C, reached through a GC-transition
 * wrapper) -> corral_call_managed -> managed_visit_callback -> c_visit -> ...
 * Each managed callback builds a small tree, holds it across the nested
 * visit and checks it afterwards, so every collection walks a stack of many
 * managed segments separated by C frames. A second shape sorts with qsort
 * whose C comparator enters managed code for every comparison (and the
 * comparison allocates), with the sorted objects held by the caller. A
 * third hands C a struct of managed callbacks that C calls directly (each
 * allocating), as C libraries call what they were given in memory.
 */
#include "torture.h"

#include "callbacks.h"

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef left, right;
    long value;
};

static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type items_type = CORRAL_REF_ARRAY_TYPE("node[] items");

enum { THREADS = 2, SORTED = 200 };

static long rounds;
static corral_ref items; /* global root: what managed_compare compares */

static noderef make_tree(int depth, long value)
{
    noderef n = corral_alloc(&node_type);
    n->value = value;
    if (depth > 0) {
        n->left = make_tree(depth - 1, value * 2);
        n->right = make_tree(depth - 1, value * 2 + 1);
    }
    return n;
}

static long tree_sum(noderef tree)
{
    return tree ? tree->value + tree_sum(tree->left) + tree_sum(tree->right) : 0;
}

/* Callbacks in a visit of depth d: fanout * (1 + fanout * (...)). */
static long expected_callbacks(long depth, long fanout)
{
    return depth < 0 ? 0 : fanout * (1 + expected_callbacks(depth - 1, fanout));
}

void *managed_visit_callback(void *raw)
{
    callback_args *args = raw;
    long tag = args->thread * 1000000 + args->depth * 1000 + args->index + 1;
    noderef mine = make_tree(3, tag);
    long expected = tree_sum(mine);
    make_tree(2, 0); /* garbage below the next allocations */
    long below = 0;
    if (args->depth > 0)
        below = c_visit(args->depth - 1, args->fanout, args->thread);
    if (args->index == 0)
        corral_collect();
    CHECK_EQ(mine->value, tag, "a callback's tree root after the nested visit");
    CHECK_EQ(tree_sum(mine), expected, "a callback's tree after the nested visit");
    args->result = 1 + below;
    return NULL;
}

void *managed_compare(void *raw)
{
    compare_pair *pair = raw;
    noderef CORRAL_REF *all = TORTURE_ELEMENTS(noderef, items);
    noderef left = all[pair->left];
    if ((pair->left ^ pair->right) % 5 == 0)
        make_tree(1, 0); /* a collection now and then, inside qsort */
    noderef right = TORTURE_ELEMENTS(noderef, items)[pair->right];
    pair->result = left->value < right->value ? -1 : left->value > right->value;
    return NULL;
}

static long ops_step(long thread, long i)
{
    noderef tree = make_tree(2, thread * 100 + i); /* allocates, C below */
    make_tree(1, 0);
    return tree_sum(tree);
}

static long ops_finish(long thread, long sum)
{
    noderef last = make_tree(1, thread);
    return sum + last->value;
}

static const callback_ops ops = {ops_step, ops_finish};

/* What c_run_ops(&ops, thread, count) returns, computed without C. */
static long expected_ops(long thread, long count)
{
    long sum = 0;
    for (long i = 0; i < count; i++)
        sum += tree_sum(make_tree(2, thread * 100 + i));
    return sum + thread;
}

static void sort_round(uint64_t *random)
{
    long indexes[SORTED];
    for (long i = 0; i < SORTED; i++) {
        noderef n = make_tree(0, (long)torture_below(random, 1000));
        TORTURE_ELEMENTS(noderef, items)[i] = n;
        indexes[i] = i;
    }
    noderef keep = make_tree(2, 77); /* held across the whole sort */
    c_sort(indexes, SORTED);
    noderef CORRAL_REF *all = TORTURE_ELEMENTS(noderef, items);
    for (long i = 1; i < SORTED; i++)
        CHECK(all[indexes[i - 1]]->value <= all[indexes[i]]->value,
              "qsort with managed comparisons: position %ld out of order", i);
    CHECK_EQ(tree_sum(keep), tree_sum(make_tree(2, 77)), "a tree held across qsort");
}

static void *visit_thread(void *arg)
{
    long thread = (long)arg;
    uint64_t random = torture_stream((uint64_t)thread);
    for (long round = 0; round < rounds; round++) {
        long depth = 1 + (long)torture_below(&random, 3);
        long fanout = 1 + (long)torture_below(&random, 3);
        noderef held = make_tree(4, thread + 5);
        long expected = tree_sum(held);
        long got = c_visit(depth, fanout, thread);
        CHECK_EQ(got, expected_callbacks(depth, fanout), "callbacks run by a nested visit");
        CHECK_EQ(c_run_ops(&ops, thread, 6), expected_ops(thread, 6),
                 "a struct of callbacks C calls directly");
        CHECK_EQ(tree_sum(held), expected, "a tree held across nested callbacks");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("callbacks", argc, argv);
    rounds = torture_count(25, 1);
    items = corral_alloc_array(&items_type, SORTED);
    corral_global_root_add(&items);
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(visit_thread, (void *)(i + 1));
    visit_thread((void *)0);
    uint64_t random = torture_stream(100);
    for (long i = 0; i < torture_count(2, 1); i++)
        sort_round(&random);
    for (int i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    corral_global_root_remove(&items);
    return torture_finish();
}
