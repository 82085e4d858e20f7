/* spin_poll — call-free loops must let collections in.
 *
 * Spinner threads run loops with no calls at all: a counted arithmetic
 * loop, a loop summing the elements of a reference array through their
 * references (so the loop's own references move under it), and an
 * uncounted wait on an atomic flag. An allocator thread needs a number of
 * collections to finish before it raises the flag: if any of those loops
 * lacked a poll, the first collection would wait forever and the runner's
 * timeout would fire. The spinners' sums are checked on every pass.
 */
#include "torture.h"

#include <stdatomic.h>

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef next;
    long value;
};

static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type ring_type = CORRAL_REF_ARRAY_TYPE("node[]");

enum { SPINNERS = 2, ARRAY = 3000 };

static _Atomic int done;
static _Atomic long spins;
/* Always 0, but the compiler cannot know: keeps the loops from being hoisted. */
static _Atomic long salt;
static long collections_wanted;

static noderef new_node(long value)
{
    noderef n = corral_alloc(&node_type);
    n->value = value;
    return n;
}

/* No calls: the pass's loop polls are all that lets a collection in. */
static long arithmetic(long iterations, long seed)
{
    long acc = seed;
    for (long i = 0; i < iterations; i++)
        acc = acc * 31 + (i ^ (acc >> 7));
    return acc;
}

static long sum_through_references(corral_ref array)
{
    long offset = atomic_load_explicit(&salt, memory_order_relaxed);
    noderef CORRAL_REF *slots = TORTURE_ELEMENTS(noderef, array);
    long sum = 0;
    for (long i = 0; i < ARRAY; i++)
        sum += slots[(i + offset) % ARRAY]->value;
    return sum;
}

static void *spinner(void *arg)
{
    long self = (long)arg;
    corral_ref array = corral_alloc_array(&ring_type, ARRAY);
    for (long i = 0; i < ARRAY; i++) {
        noderef n = new_node(i * self);
        TORTURE_ELEMENTS(noderef, array)[i] = n;
    }
    long expected = self * (long)ARRAY * (ARRAY - 1) / 2;
    long reference = arithmetic(200000, self);
    while (!done) {
        long iterations = 200000 + atomic_load_explicit(&salt, memory_order_relaxed);
        CHECK_EQ(arithmetic(iterations, self), reference, "a call-free arithmetic loop");
        for (int pass = 0; pass < 20; pass++)
            CHECK_EQ(sum_through_references(array), expected, "a call-free loop over references");
        spins++;
    }
    /* An uncounted wait on a flag: polls on its backedge too. */
    while (done < 2)
        ;
    CHECK_EQ(sum_through_references(array), expected, "the array after the collections");
    return NULL;
}

static void *allocator(void *arg)
{
    (void)arg;
    corral_stats stats;
    noderef keep = NULL;
    long kept = 0;
    do {
        for (int i = 0; i < 1000; i++) {
            noderef n = new_node(i);
            if (i % 10 == 0) {
                n->next = keep;
                keep = n;
                kept += i;
            }
        }
        corral_collect();
        corral_get_stats(&stats);
    } while (stats.collections < (uint64_t)collections_wanted);
    long sum = 0;
    for (noderef p = keep; p; p = p->next)
        sum += p->value;
    CHECK_EQ(sum, kept, "the allocator's list");
    done = 1;
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("spin_poll", argc, argv);
    collections_wanted = torture_count(40, 5);
    pthread_t threads[SPINNERS];
    for (long i = 0; i < SPINNERS; i++)
        threads[i] = torture_spawn(spinner, (void *)(i + 1));
    pthread_t allocating = torture_spawn(allocator, NULL);
    torture_join(allocating);
    /* The spinners wait for done == 2 in a loop with no calls at all. */
    corral_collect();
    done = 2;
    for (int i = 0; i < SPINNERS; i++)
        torture_join(threads[i]);
    corral_stats stats;
    corral_get_stats(&stats);
    printf("torture: spin_poll: %ld spinner passes, TTSP max %.3f ms\n", (long)spins,
           (double)stats.ttsp_max_ns / 1e6);
    return torture_finish();
}
