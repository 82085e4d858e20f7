/* The write barrier in managed C, built with corralc --write-barrier at
 * -O0..-O3: after each kind of reference store into the heap (field, array
 * element, memcpy; small, large and pinned
 * objects) the card of the stored slot is dirty with CORRAL_GC_GENERATIONAL=1,
 * and nothing is recorded with 0 (exchange and compare-exchange of
 * references: tests/polls/ir/barrier.ll). Cards far from the stores stay clean, so a
 * barrier that dirtied everything would fail too. */
#include <corral.h>

#include "corral_test.h"
#include "node_arrays.h"

/* Stores into objects that were not just allocated: never elided. */
static __attribute__((noinline)) void set_left(noderef holder, noderef value)
{
    holder->left = value;
}

static __attribute__((noinline)) void set_element(corral_ref array, long i, corral_ref value)
{
    elements_of(array)[i] = value;
}

static __attribute__((noinline)) void copy_elements(corral_ref to, corral_ref from, long count)
{
    __builtin_memcpy((char CORRAL_REF *)elements_of(to), (char CORRAL_REF *)elements_of(from),
                     (unsigned long)count * sizeof(corral_ref));
}

static __attribute__((noinline)) void set_left_null(noderef holder)
{
    holder->left = NULL;
}

/* expect: 1 when the barrier records (CORRAL_GC_GENERATIONAL=1), else 0. */
static void stores(const char *settings, int expect)
{
    test_start(settings, true);
    noderef a = new_node(1), b = new_node(2);

    corral_barrier_clean_all();
    ok(!corral_barrier_recorded(&a->left), "a clean card reads clean");
    set_left(a, b);
    ok(corral_barrier_recorded(&a->left) == expect, "field store: card %s",
       expect ? "dirty" : "clean");

    corral_barrier_clean_all();
    set_left_null(a);
    ok(!corral_barrier_recorded(&a->left), "a null store records nothing");

    /* 1000 elements (8 KiB) stay in the heap; element 900 is 6 KiB past 300. */
    corral_ref small = corral_alloc_array(&ref_array_type, 1000);
    corral_barrier_clean_all();
    set_element(small, 900, b);
    ok(corral_barrier_recorded(&elements_of(small)[900]) == expect, "array element: card %s",
       expect ? "dirty" : "clean");
    ok(!corral_barrier_recorded(&elements_of(small)[300]), "a card 6 KiB away stays clean");

    /* 5000 elements (40 KiB): a large object, with its own cards. */
    corral_ref large = corral_alloc_array(&ref_array_type, 5000);
    corral_barrier_clean_all();
    ok(!corral_barrier_recorded(&elements_of(large)[4000]), "large object: cleaned");
    set_element(large, 4000, b);
    ok(corral_barrier_recorded(&elements_of(large)[4000]) == expect,
       "large-object element: card %s", expect ? "dirty" : "clean");
    ok(!corral_barrier_recorded(&elements_of(large)[10]), "its card 32 KiB away stays clean");

    corral_barrier_clean_all();
    copy_elements(large, small, 1000);
    ok(corral_barrier_recorded(&elements_of(large)[0]) == expect &&
           corral_barrier_recorded(&elements_of(large)[999]) == expect,
       "memcpy into a large object: first and last cards %s", expect ? "dirty" : "clean");
    ok(!corral_barrier_recorded(&elements_of(large)[2000]), "past the copy stays clean");

    /* Pinned in place (heap) and pinned by type (large-object space). */
    noderef pinned = new_node(3);
    corral_pin(pinned);
    noderef by_type = (noderef)corral_alloc(&pinned_node_type);
    corral_barrier_clean_all();
    set_left(pinned, b);
    set_left(by_type, b);
    ok(corral_barrier_recorded(&pinned->left) == expect, "pinned object: card %s",
       expect ? "dirty" : "clean");
    ok(corral_barrier_recorded(&by_type->left) == expect, "pinned-type object: card %s",
       expect ? "dirty" : "clean");
    corral_unpin(pinned);

    /* A collection in between: the stores still find their (moved) objects. */
    noderef tree = make_tree(10);
    corral_collect();
    corral_barrier_clean_all();
    set_left(tree, b);
    ok(corral_barrier_recorded(&tree->left) == expect, "after a GC: card %s",
       expect ? "dirty" : "clean");
}

static void generational(void *arg)
{
    stores(arg, 1);
}

static void not_generational(void *arg)
{
    stores(arg, 0);
}

int main(void)
{
    plan(2);
    tap_subtest("CORRAL_GC_GENERATIONAL=1 records every reference store", 60, generational,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_VERIFY=after");
    tap_subtest("CORRAL_GC_GENERATIONAL=0 records none", 60, not_generational,
                "CORRAL_GC_GENERATIONAL=0");
    return done_testing();
}
