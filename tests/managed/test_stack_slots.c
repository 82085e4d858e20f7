/* References in stack memory (docs/managed-c.md rule 1): out-parameters, a
 * stack array walked by pointer, structs of three references returned and
 * passed by value (sret and byval on x86-64), a struct mixing integers and
 * references, an array of structs, a copy of a heap object, recursion with
 * a frame per level, setjmp/longjmp past frames that keep such slots,
 * variable-length arrays and alloca() of references (in loops, and one per
 * level of a recursion) and a char buffer holding references.
 * Every callee allocates between the stores and the loads, so under
 * CORRAL_GC_STRESS=alloc:1,move-all,poison every object has moved and its
 * old copy is poisoned before each read. Until 2026-11-28 the pass refused
 * the typed ones ("stack slot ... holds a reference") and the variable-length
 * arrays, and let the untyped ones through unseen. Built with corralc at
 * -O0..-O3. */
#include <corral.h>
#include <pthread.h>
#include <setjmp.h>

#include "corral_test.h"
#include "trees.h"

#define ARRAY 16

struct triple {
    noderef a, b, c;
};

struct tagged {
    long tag;
    noderef node;
    long count;
};

static noderef churn(void)
{
    return new_node(-1); /* may collect: every object moves */
}

/* Two out-parameters, each written after an allocation. */
static __attribute__((noinline)) void make_pair(long value, noderef *first, noderef *second)
{
    *first = new_node(value);
    churn();
    *second = new_node(value + 1);
    churn();
}

static __attribute__((noinline)) struct triple make_triple(long value)
{
    struct triple t;
    t.a = new_node(value);
    t.b = new_node(value + 1);
    t.c = new_node(value + 2);
    return t;
}

static __attribute__((noinline)) long sum_triple(struct triple t)
{
    churn();
    return t.a->value + t.b->value + t.c->value;
}

static __attribute__((noinline)) long sum_tagged(struct tagged t)
{
    churn();
    return t.tag + t.node->value + t.count;
}

/* Reads a stack struct through its address, after an allocation. */
static __attribute__((noinline)) long sum_node_copy(const node *copy)
{
    churn();
    return copy->left->value + copy->right->value + copy->value;
}

/* Reverses an array the caller keeps on its stack, allocating per swap. */
static __attribute__((noinline)) void reverse(noderef *nodes, int count)
{
    for (int i = 0, j = count - 1; i < j; i++, j--) {
        noderef swap = nodes[i];
        churn();
        nodes[i] = nodes[j];
        nodes[j] = swap;
    }
}

/* Each level keeps three nodes in a stack array across the deeper levels. */
static __attribute__((noinline)) long nest(int depth)
{
    noderef local[3];
    for (int i = 0; i < 3; i++)
        local[i] = new_node(depth * 10 + i);
    long below = depth > 0 ? nest(depth - 1) : 0;
    long wrong = 0;
    for (int i = 0; i < 3; i++)
        wrong += local[i]->value != depth * 10 + i;
    return below + wrong;
}

static __attribute__((noinline)) void jump_from_below(jmp_buf *target, int depth)
{
    noderef deeper[2] = {new_node(depth), churn()};
    if (depth == 0)
        longjmp(*target, deeper[0]->value + 1);
    jump_from_below(target, depth - 1);
    churn(); /* never reached */
}

/* setjmp in a function whose array is kept in a frame: longjmp from frames
 * that pushed frames of their own leaves the chain as it was at setjmp. */
static __attribute__((noinline)) long after_longjmp(void)
{
    noderef kept[4];
    for (int i = 0; i < 4; i++)
        kept[i] = new_node(100 + i);
    jmp_buf buf;
    volatile int jumps = 0;
    if (setjmp(buf) == 0)
        jump_from_below(&buf, 5);
    jumps++;
    long wrong = jumps != 1;
    for (int i = 0; i < 4; i++) {
        churn();
        wrong += kept[i]->value != 100 + i;
    }
    return wrong;
}

/* ---- stack memory allocated at run time, and untyped stack memory */

static volatile int opaque_length = 6; /* lengths the optimiser cannot fold */

/* A variable-length array of references per round, each round's memory
 * freed by the loop's stackrestore; reversed by a callee. */
static __attribute__((noinline)) long variable_length_arrays(int rounds)
{
    long wrong = 0;
    for (int round = 0; round < rounds; round++) {
        int length = opaque_length + round % 3;
        noderef nodes[length];
        for (int i = 0; i < length; i++)
            nodes[i] = new_node(round * 100 + i);
        reverse(nodes, length);
        for (int i = 0; i < length; i++) {
            churn();
            wrong += nodes[i]->value != round * 100 + length - 1 - i;
        }
    }
    return wrong;
}

/* alloca() in a loop: every block stays until the function returns, so
 * all of them are entries of the chain at once. */
static __attribute__((noinline)) long allocas_in_a_loop(int blocks)
{
    noderef *block[8];
    for (int b = 0; b < blocks && b < 8; b++) {
        int length = opaque_length + b;
        block[b] = __builtin_alloca((size_t)length * sizeof(noderef));
        for (int i = 0; i < length; i++) {
            block[b][i] = new_node(b * 1000 + i);
            churn();
        }
    }
    long wrong = 0;
    for (int b = 0; b < blocks && b < 8; b++)
        for (int i = 0; i < opaque_length + b; i++) {
            churn();
            wrong += block[b][i]->value != b * 1000 + i;
        }
    return wrong;
}

/* A char buffer holding references, as an argument vector is often built. */
static __attribute__((noinline)) long untyped_buffer(void)
{
    _Alignas(noderef) char buffer[5 * sizeof(noderef)];
    noderef *arguments = (noderef *)(void *)buffer;
    for (int i = 0; i < 5; i++)
        arguments[i] = new_node(70 + i);
    reverse(arguments, 5);
    long wrong = 0;
    for (int i = 0; i < 5; i++) {
        churn();
        wrong += arguments[i]->value != 74 - i;
    }
    return wrong;
}

/* Recursion with a variable-length array and a fixed one per level. */
static __attribute__((noinline)) long nest_variable(int depth)
{
    noderef fixed[2] = {new_node(depth), new_node(-depth)};
    noderef varying[opaque_length];
    for (int i = 0; i < opaque_length; i++)
        varying[i] = new_node(depth * 10 + i);
    long below = depth > 0 ? nest_variable(depth - 1) : 0;
    long wrong = fixed[0]->value != depth || fixed[1]->value != -depth;
    for (int i = 0; i < opaque_length; i++)
        wrong += varying[i]->value != depth * 10 + i;
    return below + wrong;
}

/* One check of a count of wrong values: 1 when it failed. */
static int none_wrong(bool report, long wrong, const char *what)
{
    if (report)
        is_int(wrong, 0, "%s", what);
    return wrong != 0;
}

/* The checks; returns how many failed (reported through TAP when report). */
static int run_checks(bool report)
{
    int failed = 0;
    noderef first = NULL, second = NULL;
    make_pair(7, &first, &second);
    churn();
    bool pair_ok = first->value == 7 && second->value == 8;
    failed += !pair_ok;
    if (report)
        ok(pair_ok, "out-parameters written by an allocating callee");

    noderef nodes[ARRAY];
    for (int i = 0; i < ARRAY; i++)
        nodes[i] = new_node(i);
    reverse(nodes, ARRAY);
    long wrong = 0;
    for (noderef *p = nodes; p < nodes + ARRAY; p++) {
        churn();
        wrong += (*p)->value != ARRAY - 1 - (p - nodes);
    }
    failed += wrong != 0;
    if (report)
        is_int(wrong, 0, "a stack array reversed by a callee, walked by pointer");

    struct triple t = make_triple(100);
    churn();
    long direct = t.a->value + t.b->value + t.c->value;
    long passed = sum_triple(t);
    failed += direct != 303 || passed != 303;
    if (report)
        ok(direct == 303 && passed == 303,
           "a struct of three references returned and passed by value (%ld, %ld)", direct,
           passed);

    struct tagged g = {5, new_node(9), 3};
    long mixed = sum_tagged(g);
    churn();
    failed += mixed != 17 || g.node->value != 9;
    if (report)
        ok(mixed == 17 && g.node->value == 9,
           "a struct of integers and a reference passed by value");

    struct triple ts[4];
    for (int i = 0; i < 4; i++)
        ts[i] = make_triple(i * 10);
    long sums = 0;
    for (int i = 0; i < 4; i++)
        sums += sum_triple(ts[i]);
    failed += sums != 3 * (0 + 10 + 20 + 30) + 4 * 3;
    if (report)
        is_int(sums, 3 * (0 + 10 + 20 + 30) + 4 * 3, "an array of structs of references");

    noderef parent = new_node(50);
    parent->left = new_node(51);
    parent->right = new_node(52);
    node copy = *parent; /* the heap object's fields, copied to the stack */
    churn();
    bool copy_ok = copy.left->value == 51 && copy.right->value == 52 &&
                   sum_node_copy(&copy) == 51 + 52 + 50;
    failed += !copy_ok;
    if (report)
        ok(copy_ok, "a heap object copied to a stack struct");

    long nested = nest(40);
    failed += nested != 0;
    if (report)
        is_int(nested, 0, "40 levels of recursion, each keeping a stack array");

    long jumped = after_longjmp();
    failed += jumped != 0;
    if (report)
        is_int(jumped, 0, "longjmp past frames keeping slots: the array at the setjmp is kept");

    failed += none_wrong(report, variable_length_arrays(12),
                         "a variable-length array of references per loop round");
    failed += none_wrong(report, allocas_in_a_loop(5),
                         "5 alloca() blocks of references, all live until the return");
    failed += none_wrong(report, untyped_buffer(), "a char buffer holding references");
    failed += none_wrong(report, nest_variable(30),
                         "30 levels of recursion, each keeping a variable-length array");
    return failed;
}

#ifdef CONCURRENT
/* Concurrent marking with the deletion barrier: stack slots are roots of
 * the snapshot, and what the program stores there later is no heap store. */
#define PLAN 2
#define MIN_COLLECTIONS 20 /* a collection every 4 allocations or so */
#define SETTINGS                                                                            \
    "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_CONCURRENT=1 CORRAL_GC_NURSERY=256k "             \
    "CORRAL_GC_STRESS=alloc:random:4,mixed:2,move-all,poison CORRAL_GC_VERIFY=after"
#else
#define PLAN 3
#define MIN_COLLECTIONS 100
#endif

static void single_thread(void *arg)
{
    test_start(arg, true);
    corral_stats before, after;
    corral_get_stats(&before);
    run_checks(true);
    corral_get_stats(&after);
    ok(after.collections - before.collections > MIN_COLLECTIONS,
       "collections between the checks (%llu)",
       (unsigned long long)(after.collections - before.collections));
}

static void *checks_thread(void *arg)
{
    (void)arg;
    long failed = 0;
    for (int round = 0; round < 20; round++)
        failed += run_checks(false);
    return (void *)(intptr_t)failed;
}

static void four_threads(void *arg)
{
    test_start(arg, true);
    pthread_t threads[4];
    for (int t = 0; t < 4; t++)
        pthread_create(&threads[t], NULL, checks_thread, NULL);
    long failed = 0;
    for (int t = 0; t < 4; t++) {
        void *result;
        pthread_join(threads[t], &result);
        failed += (long)(intptr_t)result;
    }
    is_int(failed, 0, "4 threads, 20 rounds each: every check holds");
}

int main(void)
{
    plan(PLAN);
#ifdef CONCURRENT
    tap_subtest("stack slots, concurrent marking", 120, single_thread, SETTINGS);
    tap_subtest("stack slots on 4 threads, concurrent marking", 120, four_threads, SETTINGS);
#else
    tap_subtest("stack slots, a collection at every allocation", 120, single_thread,
                "CORRAL_GC_STRESS=alloc:1,move-all,poison CORRAL_GC_VERIFY=after");
    tap_subtest("stack slots, generational", 120, single_thread,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:1,mixed:4,move-all,poison "
                "CORRAL_GC_VERIFY=after");
    tap_subtest("stack slots on 4 threads", 120, four_threads,
                "CORRAL_HEAP_MIN=1M CORRAL_GC_STRESS=alloc:random:8,move-all,poison");
#endif
    return done_testing();
}
