/* Stores whose write barrier the pass elides (into an object allocated
 * since the last safepoint), generationally, with aging: the object and
 * what it was given must survive minor collections together. An object
 * filled so holds only references no younger than itself, so a small one is
 * old no earlier than they are; a large object (and a pinned-type one,
 * which lives in the large-object space too) was old once a collection
 * marked it, and its clean cards left the survivors it held, kept young,
 * off the remembered set: the next minor collection freed them and the
 * program read poison (before 2026-11-28; the verifier named the slots).
 * Built with corralc at -O0..-O3; the pass's report shows the stores
 * elided (tests/polls/ir covers the elision itself). */
#include <corral.h>
#include <string.h>

#include "corral_test.h"
#include "node_arrays.h"

/* 5000 references, 40 KiB: a large object. */
#define LARGE_LENGTH 5000
/* 100 references: a heap object. */
#define SMALL_LENGTH 100

/* Roots the tests keep their holders in (registered global roots). */
static corral_ref large_holder, small_holder, copy_holder;
static noderef pinned_holder;

/* A new array given a and b with no safepoint in between: both stores
 * into it are elided. */
static __attribute__((noinline)) corral_ref array_of(long length, noderef a, noderef b)
{
    corral_ref array = corral_alloc_array(&ref_array_type, (uint64_t)length);
    elements_of(array)[0] = a;
    elements_of(array)[length - 1] = b;
    return array;
}

static __attribute__((noinline)) noderef pinned_pair(noderef left, noderef right)
{
    noderef pair = (noderef)corral_alloc(&pinned_node_type);
    pair->left = left;
    pair->right = right;
    pair->value = 7;
    return pair;
}

/* A new large array given a copy of from's elements: the memcpy's barrier
 * is elided as well. */
static __attribute__((noinline)) corral_ref copy_of(corral_ref from, long count)
{
    corral_ref array = corral_alloc_array(&ref_array_type, LARGE_LENGTH);
    __builtin_memcpy((char CORRAL_REF *)elements_of(array), (char CORRAL_REF *)elements_of(from),
                     (unsigned long)count * sizeof(corral_ref));
    return array;
}

static long value_at(corral_ref array, long i)
{
    noderef node = (noderef)elements_of(array)[i];
    return node ? node->value : -1;
}

static void fill_holders(void)
{
    large_holder = array_of(LARGE_LENGTH, new_node(11), new_node(12));
    small_holder = array_of(SMALL_LENGTH, new_node(21), new_node(22));
    pinned_holder = pinned_pair(new_node(31), new_node(32));
    corral_ref young = corral_alloc_array(&ref_array_type, SMALL_LENGTH);
    for (long i = 0; i < SMALL_LENGTH; i++)
        elements_of(young)[i] = new_node(100 + i);
    copy_holder = copy_of(young, SMALL_LENGTH);
}

static void survive_minor_collections(void *arg)
{
    test_start(arg, true);
    corral_global_root_add(&large_holder);
    corral_global_root_add(&small_holder);
    corral_global_root_add((corral_ref *)&pinned_holder);
    corral_global_root_add(&copy_holder);
    fill_holders();
    corral_stats before;
    corral_get_stats(&before);
    /* The first ages what the holders hold (and makes the large ones old),
     * the second would free it were it unremembered, the third promotes. */
    for (int i = 0; i < 3; i++)
        corral_collect_young();
    corral_stats after;
    corral_get_stats(&after);
    is_int(after.minor_collections - before.minor_collections, 3, "three minor collections");
    ok(value_at(large_holder, 0) == 11 && value_at(large_holder, LARGE_LENGTH - 1) == 12,
       "large array: both elements intact (%ld, %ld)", value_at(large_holder, 0),
       value_at(large_holder, LARGE_LENGTH - 1));
    ok(value_at(small_holder, 0) == 21 && value_at(small_holder, SMALL_LENGTH - 1) == 22,
       "heap array: both elements intact (%ld, %ld)", value_at(small_holder, 0),
       value_at(small_holder, SMALL_LENGTH - 1));
    ok(pinned_holder->left->value == 31 && pinned_holder->right->value == 32,
       "pinned-type object: both fields intact (%ld, %ld)", pinned_holder->left->value,
       pinned_holder->right->value);
    long wrong = 0;
    for (long i = 0; i < SMALL_LENGTH; i++)
        wrong += value_at(copy_holder, i) != 100 + i;
    is_int(wrong, 0, "large array made by memcpy: all %d elements intact", SMALL_LENGTH);
}

int main(void)
{
    plan(2);
    /* Freed memory is poisoned: a lost element reads as garbage, not as
     * the node that was there. */
    tap_subtest("elided barriers, aging: holders and what they hold survive together", 60,
                survive_minor_collections,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=2 CORRAL_GC_STRESS=poison");
    /* The verifier stops at the first unremembered slot, naming it. */
    tap_subtest("the same, the verifier after each collection", 60, survive_minor_collections,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=2 CORRAL_GC_VERIFY=after");
    return done_testing();
}
