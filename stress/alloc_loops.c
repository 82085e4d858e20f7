/* alloc_loops — allocation in tight loops on every thread: small objects,
 * arrays of random length (tiny, medium, occasionally large), and a
 * window of survivors.
 *
 * Each thread allocates as fast as it can into a ring (a reference array)
 * that keeps the last WINDOW objects alive; every object carries a value
 * derived from its sequence number, and arrays a checksum of their
 * elements, verified when the object leaves the ring. A second phase
 * builds and checks binary trees bottom-up (children allocated before
 * parents, the opposite of top-down). Most collections here come from
 * TLAB refills and budget exhaustion racing between threads.
 */
#include "torture.h"

typedef struct small CORRAL_REF *smallref;
struct small {
    corral_header header;
    smallref link;
    long sequence;
    long value;
};
typedef struct tree CORRAL_REF *treeref;
struct tree {
    corral_header header;
    treeref left, right;
    long depth;
};

static const uint32_t small_refs[] = {offsetof(struct small, link)};
static const corral_type small_type = CORRAL_STRUCT_TYPE("small", struct small, small_refs);
static const uint32_t tree_refs[] = {offsetof(struct tree, left), offsetof(struct tree, right)};
static const corral_type tree_type = CORRAL_STRUCT_TYPE("tree", struct tree, tree_refs);
static const corral_type ring_type = CORRAL_REF_ARRAY_TYPE("ring");
static const corral_type numbers_type = CORRAL_DATA_ARRAY_TYPE("long[]", long);

enum { THREADS = 3, WINDOW = 1024 };

static long iterations;

static long value_of(long sequence)
{
    return sequence * 2654435761L ^ (sequence >> 3);
}

/* Kind by sequence number, so the checker knows what it finds. */
static int kind_of(long sequence)
{
    return sequence % 50 == 0 ? 2 : sequence % 7 == 0 ? 1 : 0;
}

static uint64_t length_of(long sequence)
{
    if (sequence % 1000 == 0)
        return 1500 + (uint64_t)(sequence % 3000); /* 12..36 KB: the LOS */
    return (uint64_t)(sequence % 97) * ((sequence / 7) % 11 + 1);
}

static corral_ref make(long sequence, corral_ref previous)
{
    if (kind_of(sequence) == 0) {
        smallref s = corral_alloc(&small_type);
        s->sequence = sequence;
        s->value = value_of(sequence);
        s->link = kind_of(sequence - 1) == 0 ? (smallref)previous : NULL;
        return s;
    }
    uint64_t length = length_of(sequence);
    corral_ref array = corral_alloc_array(&numbers_type, length);
    long CORRAL_REF *elements = TORTURE_ELEMENTS(long, array);
    for (uint64_t i = 0; i < length; i++)
        elements[i] = value_of(sequence + (long)i);
    return array;
}

static void check(corral_ref object, long sequence)
{
    if (kind_of(sequence) == 0) {
        smallref s = object;
        CHECK(s->header.type == &small_type, "object %ld has a bad header", sequence);
        CHECK_EQ(s->sequence, sequence, "a small object's sequence number");
        CHECK_EQ(s->value, value_of(sequence), "a small object's value");
        if (s->link)
            CHECK_EQ(s->link->sequence, sequence - 1, "a small object's link");
        return;
    }
    uint64_t length = length_of(sequence);
    CHECK_EQ(TORTURE_LENGTH(object), length, "an array's length");
    long CORRAL_REF *elements = TORTURE_ELEMENTS(long, object);
    for (uint64_t i = 0; i < length; i += 1 + length / 64)
        CHECK_EQ(elements[i], value_of(sequence + (long)i), "an array element");
}

static treeref bottom_up(int depth)
{
    if (depth == 0) {
        treeref leaf = corral_alloc(&tree_type);
        return leaf;
    }
    treeref left = bottom_up(depth - 1);
    treeref right = bottom_up(depth - 1);
    treeref node = corral_alloc(&tree_type);
    node->left = left;
    node->right = right;
    node->depth = depth;
    return node;
}

static long tree_nodes(treeref tree, long depth)
{
    if (!tree)
        return 0;
    CHECK_EQ(tree->depth, depth, "a tree node's depth");
    return 1 + tree_nodes(tree->left, depth - 1) + tree_nodes(tree->right, depth - 1);
}

static void *allocating_thread(void *arg)
{
    long self = (long)arg;
    corral_ref ring = corral_alloc_array(&ring_type, WINDOW);
    long first = self * 100000000L;
    corral_ref previous = NULL;
    for (long n = 0; n < iterations; n++) {
        long sequence = first + n;
        long slot = sequence % WINDOW;
        corral_ref CORRAL_REF *slots = TORTURE_ELEMENTS(corral_ref, ring);
        if (slots[slot])
            check(slots[slot], sequence - WINDOW);
        corral_ref object = make(sequence, previous);
        TORTURE_ELEMENTS(corral_ref, ring)[slot] = object;
        previous = object;
    }
    /* Smaller trees when the work is scaled down (TORTURE_WORK). */
    int deep = torture_work >= 100 ? 12 : 8, shallow = deep - 2;
    treeref long_lived = bottom_up(deep);
    for (int i = 0; i < 4; i++) {
        treeref t = bottom_up(shallow);
        CHECK_EQ(tree_nodes(t, shallow), (1L << (shallow + 1)) - 1, "a bottom-up tree");
    }
    CHECK_EQ(tree_nodes(long_lived, deep), (1L << (deep + 1)) - 1, "a long-lived bottom-up tree");
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("alloc_loops", argc, argv);
    iterations = torture_count(25000, 100);
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(allocating_thread, (void *)(i + 1));
    allocating_thread((void *)0);
    for (int i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    return torture_finish();
}
