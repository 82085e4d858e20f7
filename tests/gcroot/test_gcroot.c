/* Frontend IR written for @llvm.gcroot (lists_trees.ll, gc "shadow-stack")
 * running on corral: one and four mutator threads, each building and summing
 * trees and lists while collections move every object, with the heap
 * verified before and after each collection. The gcroot code calls managed C
 * (c_churn) and is called from it (the thread bodies), so collections walk
 * both kinds of frame. Each case is a forked child with a timeout. */
#include <stdio.h>
#include <string.h>

#include "gcroot_threads.h"

/* From lists_trees.ll. */
long gcroot_worker(long rounds, long depth, long tree_expected, long list_length);

/* Managed C called from gcroot code: allocates a list of n and sums it. */
long c_churn(long n)
{
    noderef list = 0;
    for (long i = 1; i <= n; i++) {
        noderef node = corral_alloc(&gcroot_node_type);
        node->value = i;
        node->left = list;
        list = node;
    }
    long sum = 0;
    for (noderef p = list; p; p = p->left)
        sum += p->value;
    return sum;
}

static long tree_expected(long depth, long value)
{
    if (depth <= 0)
        return value;
    return value + tree_expected(depth - 1, 2 * value) + tree_expected(depth - 1, 2 * value + 1);
}

enum { ROUNDS = 40, DEPTH = 7, LIST_LENGTH = 300 };

static void *worker(void *failures)
{
    *(long *)failures =
        gcroot_worker(tap_work(ROUNDS), DEPTH, tree_expected(DEPTH, 1), LIST_LENGTH);
    return NULL;
}

static void run_case(void *arg)
{
    const gcroot_case *c = arg;
    /* Under polls stress each poll site collects once, at its first visit
     * (the frontend's -O2 output has about ten), and threads that reach one
     * together share that collection. */
    bool polls_only = strstr(c->settings, "polls") != NULL;
    gcroot_check_case(c, worker, "every tree, list and churn sum right",
                      !polls_only ? 10 : c->threads == 1 ? 8 : 2);
}

/* Shadow-stack code has no write barrier: a generational run must stop at
 * the first collection that finds its frames, naming the thread. */
static void generational_refused(void *context)
{
    (void)context;
    run_case(&(gcroot_case){1, "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:97"});
}

int main(void)
{
    plan(2 * GCROOT_STRESS_SETTINGS + 1);
    gcroot_subtests(gcroot_stress_settings, GCROOT_STRESS_SETTINGS, run_case);
    run_result refused = run_child(generational_refused, NULL, 60);
    ok(WIFSIGNALED(refused.status) &&
           output_matches(refused.output, "llvm.gcroot frames on its stack \\([0-9]+ shadow-stack, "
                                          "[0-9]+ promoted\\): .* cannot run with "
                                          "CORRAL_GC_GENERATIONAL=1"),
       "CORRAL_GC_GENERATIONAL=1 with shadow-stack frames is a fatal error naming the thread");
    if (!WIFSIGNALED(refused.status))
        show_output(&refused);
    free(refused.output);
    return done_testing();
}
