/* The write barrier from plain C (corral/barrier.h): corral_store_ref marks
 * the card of the stored field, in the heap, in a large object, in a pinned
 * object and in an object of a pinned type; corral_write_barrier_range marks
 * every card of a copy; far cards stay clean; nothing is recorded with
 * CORRAL_GC_GENERATIONAL=0, and a malformed value is rejected. Each case runs
 * in its own forked child (corral_init runs once per process). */
#include <corral.h>
#include <stddef.h>
#include <string.h>

#include "corral_test.h"

typedef struct pair {
    corral_header header;
    corral_ref first, second;
} pair;

static const uint32_t pair_refs[] = {offsetof(pair, first), offsetof(pair, second)};
static const corral_type pair_type = CORRAL_STRUCT_TYPE("pair", pair, pair_refs);
static const corral_type pinned_pair_type = {CORRAL_TYPE_SIGNATURE, "pinned pair",
                                             (uint32_t)sizeof(pair), 0, CORRAL_TYPE_PINNED,
                                             2, pair_refs, 0, 0, 0, 0};
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("ref[]");

static corral_ref *slots(corral_ref array)
{
    return (corral_ref *)((char *)array + sizeof(corral_array_header));
}

/* No call below may collect between an allocation and its use: plain C
 * holds raw references only while nothing can move them. */
static void stores(const char *settings, int expect)
{
    test_start(settings, true);
    const char *state = expect ? "dirty" : "clean";
    pair *a = corral_alloc(&pair_type), *b = corral_alloc(&pair_type);
    corral_barrier_clean_all();
    ok(!corral_barrier_recorded(&a->first), "a clean card reads clean");
    corral_store_ref(a, &a->first, b);
    ok(a->first == b, "corral_store_ref stores");
    ok(corral_barrier_recorded(&a->first) == expect, "heap field: card %s", state);

    corral_ref small = corral_alloc_array(&ref_array_type, 1000);
    corral_barrier_clean_all();
    corral_store_ref(small, &slots(small)[900], b);
    ok(corral_barrier_recorded(&slots(small)[900]) == expect, "array element: card %s", state);
    ok(!corral_barrier_recorded(&slots(small)[300]), "a card 4.8 KiB away stays clean");

    corral_ref large = corral_alloc_array(&ref_array_type, 5000);
    ok(corral_barrier_recorded(&slots(large)[10]) == expect,
       "a large object is born with its cards %s (old once a collection marks it, it may hold "
       "survivors kept young, stored without a barrier)",
       state);
    corral_barrier_clean_all();
    corral_store_ref(large, &slots(large)[4000], b);
    ok(corral_barrier_recorded(&slots(large)[4000]) == expect, "large-object element: card %s",
       state);
    ok(!corral_barrier_recorded(&slots(large)[10]), "its card 32 KiB away stays clean");
    corral_barrier_clean_all();
    corral_store_ref(NULL, &slots(large)[2000], b);
    ok(corral_barrier_recorded(&slots(large)[2000]) == expect,
       "large object, holder unknown (found by a search): card %s", state);

    corral_barrier_clean_all();
    memcpy(&slots(large)[100], slots(small), 1000 * sizeof(corral_ref));
    corral_write_barrier_range(large, &slots(large)[100], 1000 * sizeof(corral_ref));
    ok(corral_barrier_recorded(&slots(large)[100]) == expect &&
           corral_barrier_recorded(&slots(large)[600]) == expect &&
           corral_barrier_recorded(&slots(large)[1099]) == expect,
       "range barrier into a large object: every card %s", state);
    ok(!corral_barrier_recorded(&slots(large)[1200]), "past the range stays clean");
    corral_barrier_clean_all();
    corral_write_barrier_range(small, &slots(small)[0], 1000 * sizeof(corral_ref));
    ok(corral_barrier_recorded(&slots(small)[0]) == expect &&
           corral_barrier_recorded(&slots(small)[999]) == expect,
       "range barrier in the heap: first and last cards %s", state);

    pair *pinned = corral_alloc(&pair_type);
    corral_pin(pinned);
    pair *by_type = corral_alloc(&pinned_pair_type);
    corral_barrier_clean_all();
    corral_store_ref(pinned, &pinned->second, b);
    corral_store_ref(by_type, &by_type->second, b);
    ok(corral_barrier_recorded(&pinned->second) == expect, "pinned object: card %s", state);
    ok(corral_barrier_recorded(&by_type->second) == expect, "pinned-type object: card %s", state);
    corral_unpin(pinned);
}

static void generational(void *arg)
{
    stores(arg, 1);
}

static void not_generational(void *arg)
{
    stores(arg, 0);
}

static void malformed(void *arg)
{
    run_setenv_list(arg);
    ok(corral_init(NULL) == CORRAL_ERROR_CONFIG, "CORRAL_GC_GENERATIONAL=2 is rejected");
    like_str(corral_last_error(), "CORRAL_GC_GENERATIONAL", "the message names the variable");
}

int main(void)
{
    plan(3);
    tap_subtest("CORRAL_GC_GENERATIONAL=1: corral_store_ref records", 60, generational,
                "CORRAL_GC_GENERATIONAL=1");
    tap_subtest("CORRAL_GC_GENERATIONAL=0 (the default): nothing recorded", 60,
                not_generational, "CORRAL_HEAP_MIN=16M");
    tap_subtest("a malformed CORRAL_GC_GENERATIONAL", 60, malformed, "CORRAL_GC_GENERATIONAL=2");
    return done_testing();
}
