/* deep_recursion — thousands of managed frames, each holding references,
 * walked by every collection.
 *
 * Three mutually recursive functions with different frame shapes (several
 * references, one reference among many scalars, a derived pointer into a
 * field) descend a few thousand frames; each frame allocates, links its node
 * to its caller's, and checks on the way back that its own locals were
 * relocated (value, link, parent's value, the field behind the derived
 * pointer). Collections happen anywhere in the descent (allocation, an
 * explicit collect every few hundred frames, and the other threads), so the
 * walker sees deep stacks of both the collecting thread and parked ones.
 */
#include "torture.h"

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef next;
    noderef extra;
    long value;
    long tag;
};

static const uint32_t node_refs[] = {offsetof(struct node, next), offsetof(struct node, extra)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type long_array_type = CORRAL_DATA_ARRAY_TYPE("long[]", long);

enum { THREADS = 2 };

static noderef new_node(long value, long tag, noderef next)
{
    noderef n = corral_alloc(&node_type);
    n->value = value;
    n->tag = tag;
    n->next = next;
    return n;
}

/* Garbage between the frames' nodes, so every collection slides them. */
static void garbage(int count)
{
    for (int i = 0; i < count; i++)
        new_node(i, -1, NULL);
}

static long descend_a(int depth, int limit, noderef chain, long tag);
static long descend_b(int depth, int limit, noderef chain, long tag);
static long descend_c(int depth, int limit, noderef chain, long tag);

/* The bottom: collect with every frame above live. */
static long bottom(noderef chain, long tag)
{
    garbage(50);
    corral_collect();
    long sum = 0;
    for (noderef p = chain; p; p = p->next) {
        if (p->tag != tag)
            TORTURE_FAIL("node %ld of the chain has tag %ld, expected %ld", p->value, p->tag,
                         tag);
        sum += p->value;
    }
    return sum;
}

static long next_frame(int depth, int limit, noderef chain, long tag)
{
    if (depth == limit)
        return bottom(chain, tag);
    if (depth % 300 == 0)
        corral_collect();
    switch (depth % 3) {
    case 0:
        return descend_a(depth + 1, limit, chain, tag);
    case 1:
        return descend_b(depth + 1, limit, chain, tag);
    default:
        return descend_c(depth + 1, limit, chain, tag);
    }
}

/* Several references live across the call. */
static long descend_a(int depth, int limit, noderef chain, long tag)
{
    noderef mine = new_node(depth, tag, chain);
    garbage(depth % 4);
    noderef side = new_node(-depth, tag, NULL);
    mine->extra = side;
    noderef spare = new_node(depth * 7, tag, side);
    long below = next_frame(depth, limit, mine, tag);
    CHECK_EQ(mine->value, depth, "descend_a: own node value");
    CHECK(mine->next == chain, "descend_a: own node's link at depth %d", depth);
    CHECK(mine->extra == side, "descend_a: side link at depth %d", depth);
    CHECK_EQ(side->value, -depth, "descend_a: side value");
    CHECK(spare->next == side && spare->value == depth * 7, "descend_a: spare at depth %d",
          depth);
    if (chain)
        CHECK_EQ(chain->value, depth - 1, "descend_a: parent value");
    return below;
}

/* One reference among scalars that are live too. */
static long descend_b(int depth, int limit, noderef chain, long tag)
{
    long a = depth * 3, b = depth ^ 0x55, c = tag + depth;
    noderef mine = new_node(depth, tag, chain);
    long below = next_frame(depth, limit, mine, tag);
    CHECK_EQ(a + b + c, depth * 3 + (depth ^ 0x55) + tag + depth, "descend_b: scalars");
    CHECK_EQ(mine->value, depth, "descend_b: own node value");
    CHECK(mine->next == chain, "descend_b: own node's link at depth %d", depth);
    return below;
}

/* A derived pointer into this frame's node, and a data array. */
static long descend_c(int depth, int limit, noderef chain, long tag)
{
    noderef mine = new_node(depth, tag, chain);
    long CORRAL_REF *field = &mine->value;
    corral_ref numbers = corral_alloc_array(&long_array_type, 1 + depth % 17);
    long CORRAL_REF *elements = TORTURE_ELEMENTS(long, numbers);
    for (int i = 0; i <= depth % 17; i++)
        elements[i] = depth + i;
    long CORRAL_REF *last = &elements[depth % 17];
    long below = next_frame(depth, limit, mine, tag);
    CHECK_EQ(*field, depth, "descend_c: value through a derived pointer");
    CHECK_EQ(*last, depth + depth % 17, "descend_c: last element through a derived pointer");
    CHECK(mine->next == chain, "descend_c: own node's link at depth %d", depth);
    *field += 0; /* the derived pointer is still writable */
    return below;
}

static long expected_sum(int limit)
{
    return (long)limit * (limit + 1) / 2;
}

static long depth_limit;
static long rounds;

static void *recurse_thread(void *arg)
{
    long id = (long)arg;
    uint64_t random = torture_stream((uint64_t)id);
    for (long round = 0; round < rounds; round++) {
        int limit = (int)(depth_limit / 2 + (long)torture_below(&random, (uint64_t)depth_limit / 2));
        long tag = id * 1000 + round;
        long sum = descend_a(1, limit, NULL, tag);
        CHECK_EQ(sum, expected_sum(limit), "sum of the chain at the bottom");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("deep_recursion", argc, argv);
    depth_limit = torture_count(3000, 300);
    if (depth_limit > 3000)
        depth_limit = 3000; /* SIZE adds rounds, not depth */
    rounds = torture_count(3, 1);
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(recurse_thread, (void *)(i + 1));
    recurse_thread((void *)0);
    for (int i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    return torture_finish();
}
