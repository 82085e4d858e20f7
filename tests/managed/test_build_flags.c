/* Managed C built with the flags distributions and build systems pass
 * (tests/managed/CMakeLists.txt gives Debian's and Fedora's hardening
 * flags, -ftrivial-auto-var-init=pattern and -fexceptions), with every
 * object moving and poisoned at each allocation:
 * - locals clang fills with its pattern before the program's first store:
 *   a reference set on one branch only, an array and a struct of references
 *   filled one element per allocation. Until 2026-11-29 the first collection
 *   found the pattern word 0xaaaaaaaaaaaaaaaa in the frame and stopped;
 * - __attribute__((cleanup)) on references, run at the end of the scope and,
 *   under -fexceptions, when pthread_exit unwinds a thread through the
 *   frames that hold them. The pass made invalid IR for such a function at
 *   -O1 and above, and a cleanup running under pthread_exit, after the
 *   thread had left managed code, read a moved object's old copy;
 * - what the hardening flags change in each frame: a stack array under the
 *   stack protector, a variable-length array and a 9000-byte buffer probed
 *   page by page (-fstack-clash-protection), a qsort callback entered
 *   through an endbr64 (-fcf-protection). */
#include <corral.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "corral_test.h"
#include "trees.h"

#define SLOTS 12
#define DEPTH 4

static noderef churn(void)
{
    return new_node(-1); /* may collect: every object moves */
}

/* The reference is set on one branch only; where it is not, the pattern
 * init wrote it, and it is live across the allocation either way. */
static __attribute__((noinline)) long set_on_one_branch(int set)
{
    noderef chosen;
    if (set)
        chosen = new_node(7);
    churn();
    return set ? chosen->value : 0;
}

struct holder {
    long count;
    noderef first, second;
    char name[5];
};

/* An array and a struct of references clang first fills with its pattern,
 * then the program one element per allocation. */
static __attribute__((noinline)) long fill_locals(void)
{
    noderef nodes[SLOTS];
    struct holder holder;
    holder.count = 2;
    for (int i = 0; i < SLOTS; i++)
        nodes[i] = new_node(i);
    holder.first = new_node(100);
    holder.second = new_node(200);
    churn();
    long sum = holder.count;
    for (int i = 0; i < SLOTS; i++)
        sum += nodes[i]->value;
    return sum + holder.first->value + holder.second->value;
}

/* Cleanups: each adds the value of the node it is handed. */
static long cleaned; /* written by the thread the cleanup runs on, read after join */

static long cleanup_wrong; /* likewise */

/* A cleanup holding a reference of its own across allocations: under
 * pthread_exit it runs after the thread left managed code. */
static void add_on_exit(noderef *slot)
{
    noderef held = new_node(77);
    for (int i = 0; i < 4; i++)
        churn();
    cleanup_wrong += held->value != 77;
    cleaned += *slot ? (*slot)->value : 1000;
}

/* Three frames, each holding a reference with a cleanup across calls that
 * may collect; the innermost exits the thread when asked. */
static __attribute__((noinline)) void nest(int depth, int exit_thread)
{
    noderef mine __attribute__((cleanup(add_on_exit))) = new_node(depth);
    noderef kept = new_node(10 * depth);
    if (depth == 0) {
        if (exit_thread)
            pthread_exit(NULL);
        churn();
        return;
    }
    nest(depth - 1, exit_thread);
    churn();
    mine->value += kept->value - 10 * depth; /* unchanged when kept is right */
}

static void *exiting_thread(void *arg)
{
    (void)arg;
    cleaned = 0;
    nest(DEPTH, 1);
    return (void *)1; /* not reached */
}

static __attribute__((noinline)) long stack_and_vla(int count)
{
    noderef fixed[8];
    noderef variable[count];
    char buffer[9000];
    for (int i = 0; i < 8; i++)
        fixed[i] = new_node(i);
    for (int i = 0; i < count; i++)
        variable[i] = new_node(100 + i);
    memset(buffer, 1, sizeof buffer);
    churn();
    long sum = buffer[0] + buffer[sizeof buffer - 1];
    for (int i = 0; i < 8; i++)
        sum += fixed[i]->value;
    for (int i = 0; i < count; i++)
        sum += variable[i]->value;
    return sum;
}

static int compare_longs(const void *a, const void *b)
{
    churn(); /* a managed callback, entered from qsort */
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void build_flags(void *arg)
{
    test_start(arg, true);
    corral_stats before, after;
    corral_get_stats(&before);

    long wrong = 0;
    for (int round = 0; round < 50; round++)
        wrong += set_on_one_branch(round & 1) != (round & 1 ? 7 : 0);
    is_int(wrong, 0, "pattern init: a reference set on one branch, 50 rounds");
    long expected = 2 + SLOTS * (SLOTS - 1) / 2 + 300;
    is_int(fill_locals(), expected, "pattern init: an array and a struct of references");

    cleaned = cleanup_wrong = 0;
    nest(DEPTH, 0);
    is_int(cleaned, DEPTH * (DEPTH + 1) / 2, "cleanups at the end of each scope");
    is_int(cleanup_wrong, 0, "a cleanup's own reference, held across allocations");

    long exits_wrong = 0, exits_wrong_held = 0;
    for (int round = 0; round < 10; round++) {
        pthread_t thread;
        void *result = (void *)1;
        cleanup_wrong = 0;
        pthread_create(&thread, NULL, exiting_thread, NULL);
        pthread_join(thread, &result);
        exits_wrong += cleaned != DEPTH * (DEPTH + 1) / 2 || result != NULL;
        exits_wrong_held += cleanup_wrong;
    }
    is_int(exits_wrong, 0, "cleanups when pthread_exit unwinds the thread, 10 threads");
    is_int(exits_wrong_held, 0, "their own references, held across allocations while unwinding");

    is_int(stack_and_vla(20), 2 + 28 + 20 * 100 + 190,
           "a protected stack array, a probed variable-length array and buffer");
    long numbers[] = {5, 3, 9, 1, 7};
    qsort(numbers, 5, sizeof numbers[0], compare_longs);
    ok(numbers[0] == 1 && numbers[4] == 9, "qsort with a managed comparator");

    corral_get_stats(&after);
    ok(after.collections - before.collections > 100, "collections between the checks (%llu)",
       (unsigned long long)(after.collections - before.collections));
}

int main(void)
{
    plan(2);
    tap_subtest("hardened build, a collection at every allocation", 120, build_flags,
                "CORRAL_GC_STRESS=alloc:1,move-all,poison CORRAL_GC_VERIFY=after");
    tap_subtest("hardened build, generational", 120, build_flags,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:1,mixed:4,move-all,poison "
                "CORRAL_GC_VERIFY=after");
    return done_testing();
}
