/* derived_pointers — interior pointers to fields and array elements, live
 * across calls that collect.
 *
 * Shapes: several derived pointers into one object; a pointer walking an
 * array with a collection every few steps; a pointer to a reference slot of
 * a reference array, written through after the array moved; derived
 * pointers selected by a branch (a phi of two bases); and the base itself
 * dropped, so only the derived pointer keeps the object alive. Every value
 * read through a derived pointer is checked against the object's own view.
 */
#include "torture.h"

typedef struct record CORRAL_REF *recordref;
struct record {
    corral_header header;
    recordref next;
    long a, b, c, d;
    long pad[5];
};
typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef next;
    long value;
};

static const uint32_t record_refs[] = {offsetof(struct record, next)};
static const corral_type record_type = CORRAL_STRUCT_TYPE("record", struct record, record_refs);
static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type long_array_type = CORRAL_DATA_ARRAY_TYPE("long[]", long);
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("node[]");

static uint64_t random_state;

static noderef new_node(long value)
{
    noderef n = corral_alloc(&node_type);
    n->value = value;
    return n;
}

/* Allocates a random amount of garbage; sometimes collects. */
static __attribute__((noinline)) void churn(void)
{
    long count = (long)torture_below(&random_state, 40);
    for (long i = 0; i < count; i++)
        new_node(i);
    if (torture_below(&random_state, 8) == 0)
        corral_collect();
}

static void fields_of_one_object(long round)
{
    churn();
    recordref r = corral_alloc(&record_type);
    r->a = round;
    r->b = round * 2;
    r->c = round * 3;
    r->d = round * 4;
    long CORRAL_REF *pa = &r->a;
    long CORRAL_REF *pb = &r->b;
    long CORRAL_REF *pc = &r->c;
    long CORRAL_REF *pd = &r->pad[4];
    churn();
    *pa += 1;
    churn();
    *pb += 1;
    *pd = round * 5;
    churn();
    *pc += 1;
    CHECK_EQ(r->a, round + 1, "field a after writes through a derived pointer");
    CHECK_EQ(r->b, round * 2 + 1, "field b");
    CHECK_EQ(r->c, round * 3 + 1, "field c");
    CHECK_EQ(r->pad[4], round * 5, "pad[4]");
    CHECK_EQ(*pa + *pb + *pc, round * 6 + 3, "three derived pointers read after collections");
}

/* A pointer walking an array; each step may collect. */
static void walking_pointer(long round)
{
    long length = 50 + (long)torture_below(&random_state, 400);
    churn();
    corral_ref array = corral_alloc_array(&long_array_type, (uint64_t)length);
    long CORRAL_REF *p = TORTURE_ELEMENTS(long, array);
    for (long i = 0; i < length; i++) {
        *p = i * round;
        p++;
        if (i % 7 == 0)
            churn();
    }
    /* Walk back from one past the end: a derived pointer outside the
     * elements but inside the object is never used unchecked. */
    long sum = 0;
    for (long i = length - 1; i >= 0; i--) {
        p--;
        sum += *p;
        if (i % 11 == 0)
            churn();
    }
    CHECK_EQ(sum, round * length * (length - 1) / 2, "sum read back through a walking pointer");
    CHECK(p == TORTURE_ELEMENTS(long, array), "the walking pointer is back at the first element");
}

/* A pointer to a reference slot of a reference array. */
static void reference_slot(long round)
{
    long length = 8 + (long)torture_below(&random_state, 64);
    churn();
    corral_ref array = corral_alloc_array(&ref_array_type, (uint64_t)length);
    noderef CORRAL_REF *slots = TORTURE_ELEMENTS(noderef, array);
    for (long i = 0; i < length; i++)
        slots[i] = new_node(round + i);
    long target = (long)torture_below(&random_state, (uint64_t)length);
    noderef CORRAL_REF *slot = &slots[target];
    churn();
    noderef fresh = new_node(-round);
    churn();
    *slot = fresh; /* a store through a derived pointer after moves */
    churn();
    for (long i = 0; i < length; i++) {
        long expected = i == target ? -round : round + i;
        CHECK_EQ(slots[i]->value, expected, "reference array element");
    }
    CHECK((*slot)->value == -round && *slot == fresh, "the stored slot holds the fresh node");
}

/* A derived pointer whose base is one of two objects (a phi of bases). */
static void derived_from_either(long round)
{
    churn();
    recordref left = corral_alloc(&record_type);
    churn();
    recordref right = corral_alloc(&record_type);
    left->b = 100 + round;
    right->b = 200 + round;
    bool pick_left = torture_below(&random_state, 2) == 0;
    long CORRAL_REF *chosen = pick_left ? &left->b : &right->b;
    churn();
    CHECK_EQ(*chosen, pick_left ? 100 + round : 200 + round, "derived pointer chosen by a branch");
    *chosen += 1;
    churn();
    CHECK_EQ(left->b + right->b, 301 + 2 * round, "the write went to the chosen object");
}

/* Only the derived pointer keeps its object alive. The helpers are inlined:
 * a derived pointer passed to or returned from a call that is not inlined
 * is a known bug (stress/known/derived_argument.c). */
static inline __attribute__((always_inline)) long CORRAL_REF *make_orphan(long round)
{
    recordref r = corral_alloc(&record_type);
    r->d = round * 9;
    churn();
    return &r->d;
}

static void orphaned_derived(long round)
{
    long CORRAL_REF *d = make_orphan(round);
    churn();
    corral_collect();
    churn();
    CHECK_EQ(*d, round * 9, "a field reached only through a derived pointer");
}

/* Derived pointers passed down to a function that collects (inlined). */
static inline __attribute__((always_inline)) long
bump_after_gc(long CORRAL_REF *field, long CORRAL_REF *other, long delta)
{
    churn();
    corral_collect();
    *field += delta;
    churn();
    return *field + *other;
}

static void derived_arguments(long round)
{
    recordref r = corral_alloc(&record_type);
    r->a = round;
    r->c = 7;
    long sum = bump_after_gc(&r->a, &r->c, 3);
    CHECK_EQ(sum, round + 10, "derived pointers as arguments across a collection");
    CHECK_EQ(r->a, round + 3, "the callee's write through a derived argument");
}

int main(int argc, char **argv)
{
    torture_start("derived_pointers", argc, argv);
    random_state = torture_stream(1);
    long rounds = torture_count(400, 10);
    for (long round = 1; round <= rounds; round++) {
        fields_of_one_object(round);
        walking_pointer(round);
        reference_slot(round);
        derived_from_either(round);
        orphaned_derived(round);
        derived_arguments(round);
    }
    return torture_finish();
}
