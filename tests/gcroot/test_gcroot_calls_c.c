/* gcroot IR calling unmanaged C (calls_c.ll, plain_c.c): one and four
 * threads under CORRAL_GC_STRESS=transitions, which collects on both sides
 * of every call through a GC-transition wrapper, moving every object; each
 * case checks every list sum. Built in both gcroot modes. */

#include "gcroot_threads.h"

/* From calls_c.ll. */
long ffi_worker(long rounds, long n);

enum { ROUNDS = 6, LENGTH = 40 };

static void *worker(void *failures)
{
    *(long *)failures = ffi_worker(tap_work(ROUNDS), LENGTH);
    return NULL;
}

static void run_case(void *arg)
{
    const gcroot_case *c = arg;
    /* Two C calls per node; threads that transition together share a collection. */
    long rounds = tap_work(ROUNDS);
    gcroot_check_case(c, worker, "every list sum right",
                      c->threads == 1 ? 2 * rounds * LENGTH : rounds * LENGTH / 2);
}

int main(void)
{
    plan(2 * GCROOT_TRANSITION_SETTINGS);
    gcroot_subtests(gcroot_transition_settings, GCROOT_TRANSITION_SETTINGS, run_case);
    return done_testing();
}
