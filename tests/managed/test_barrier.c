/* The write barrier in managed C, built with corralc --write-barrier at
 * -O0..-O3: after each kind of reference store into the heap (field, array
 * element, memcpy; small, large and pinned
 * objects) the card of the stored slot is dirty with CORRAL_GC_GENERATIONAL=1,
 * and nothing is recorded with 0 (exchange and compare-exchange of
 * references: tests/polls/ir/barrier.ll). Cards far from the stores stay clean, so a
 * barrier that dirtied everything would fail too.
 *
 * libc's memcpy, memmove, mempcpy and bcopy, which corralc's -fno-builtin
 * leaves as calls, through `(void *)` casts of an object's elements: the
 * cards they copy into are dirty too, and an old array that memmove shifts
 * and memcpy fills keeps the young nodes it is given across minor
 * collections (with the deletion barrier, -DSATB_BARRIER, across
 * collections whose snapshot the verifier checks). Before 2026-11-29 only
 * __builtin_memcpy of CORRAL_REF pointers got a barrier: the nodes were
 * freed, and the verifier named the slots memcpy filled. */
#define _GNU_SOURCE /* mempcpy */
#include <corral.h>
#include <string.h>
#include <strings.h> /* bcopy */

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

/* The copies C code writes: libc's functions on raw pointers. */
static __attribute__((noinline)) void libc_copy(int how, corral_ref to, long at, corral_ref from,
                                                long count)
{
    void *destination = (void *)&elements_of(to)[at];
    const void *source = (const void *)elements_of(from);
    size_t bytes = (size_t)count * sizeof(corral_ref);
    if (how == 0)
        memcpy(destination, source, bytes);
    else if (how == 1)
        memmove(destination, source, bytes);
    else if (how == 2)
        mempcpy(destination, source, bytes);
    else
        bcopy(source, destination, bytes);
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

    static const char *const libc_names[] = {"memcpy", "memmove", "mempcpy", "bcopy"};
    for (int how = 0; how < 4; how++) {
        corral_barrier_clean_all();
        libc_copy(how, small, 500, small, 10);
        ok(corral_barrier_recorded(&elements_of(small)[500]) == expect &&
               corral_barrier_recorded(&elements_of(small)[509]) == expect,
           "libc %s through (void *) into an object: card %s", libc_names[how],
           expect ? "dirty" : "clean");
        ok(!corral_barrier_recorded(&elements_of(small)[100]), "a card far from it stays clean");
    }

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

/* 300 references: several cards of a heap object. */
#define VECTOR_LENGTH 300
#define BATCH 8
static corral_ref vector;

/* A vector as C code grows one: each batch of new nodes goes in front, the
 * rest shifted by libc's memmove into the old array and the batch copied in
 * by memcpy (or bcopy), with no reference store of its own. */
static void shift_in_young_nodes(void *arg)
{
    test_start(arg, true);
    corral_global_root_add(&vector);
    vector = corral_alloc_array(&ref_array_type, VECTOR_LENGTH);
    for (long i = 0; i < VECTOR_LENGTH; i++)
        elements_of(vector)[i] = new_node(-1);
    corral_collect(); /* the vector is old */
    long made = 0;
    for (long round = 0; round < 400; round++) {
        corral_ref batch = corral_alloc_array(&ref_array_type, BATCH);
        for (long i = 0; i < BATCH; i++)
            elements_of(batch)[i] = new_node(made + BATCH - 1 - i);
        made += BATCH;
        libc_copy(1, vector, BATCH, vector, VECTOR_LENGTH - BATCH);
        libc_copy(round & 1 ? 0 : 3, vector, 0, batch, BATCH);
        if (round % 10 == 9)
            corral_collect_young();
    }
    long wrong = 0;
    for (long i = 0; i < VECTOR_LENGTH; i++)
        wrong += ((noderef)elements_of(vector)[i])->value != made - 1 - i;
    is_int(wrong, 0, "every node the vector holds is the one shifted there (%d)", VECTOR_LENGTH);
}

int main(void)
{
#ifdef SATB_BARRIER
    plan(1);
    tap_subtest("the deletion barrier logs what libc's memmove and memcpy overwrite", 60,
                shift_in_young_nodes,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_VERIFY=satb CORRAL_GC_STRESS=poison");
#else
    plan(4);
    tap_subtest("CORRAL_GC_GENERATIONAL=1 records every reference store", 60, generational,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_VERIFY=after");
    tap_subtest("CORRAL_GC_GENERATIONAL=0 records none", 60, not_generational,
                "CORRAL_GC_GENERATIONAL=0");
    /* Poisoned: a node freed while the vector held it reads as garbage. */
    tap_subtest("an old vector filled by libc's memmove and memcpy keeps its young nodes", 60,
                shift_in_young_nodes,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=2 CORRAL_GC_STRESS=poison");
    /* The verifier stops at the first unremembered slot, naming it. */
    tap_subtest("the same, the verifier after each collection", 60, shift_in_young_nodes,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=2 CORRAL_GC_VERIFY=after");
#endif
    return done_testing();
}
