/* gcroot code with exceptions (invoke.ll, throw.cpp): invokes of C++ that
 * throws, directly and through a gcroot callee whose cleanup resumes, into
 * one catch-all landing pad, in one and four threads while collections move
 * every object on both sides of each GC transition (the unwind path too),
 * and at every 7th allocation, heap verified; every value returned, thrown
 * or read back from a root after the landing pad is checked. Built in both
 * gcroot modes. */
#include "gcroot_threads.h"

/* From invoke.ll: ROUNDS rounds of gcroot_invoke_worker, its wrong values
 * into *(long *)failures. */
void *gcroot_invoke_thread(void *failures);
enum { ROUNDS = 60 };

static void run_case(void *arg)
{
    const gcroot_case *c = arg;
    /* Each round calls the thrower twice, so under transitions stress it
     * collects at least twice a round (threads transitioning together share
     * a collection); otherwise allocation collects. */
    uint64_t least = !strstr(c->settings, "transitions") ? 2
                     : c->threads == 1                   ? 2 * ROUNDS
                                                         : ROUNDS / 2;
    gcroot_check_case(c, gcroot_invoke_thread,
                      "every result, exception and root right after each invoke", least);
}

static const char *const allocation_settings[] = {
    "CORRAL_GC_STRESS=alloc:7,move-all,poison CORRAL_GC_VERIFY=before,after",
};

int main(void)
{
    plan(2 * (GCROOT_TRANSITION_SETTINGS + 1));
    gcroot_subtests(gcroot_transition_settings, GCROOT_TRANSITION_SETTINGS, run_case);
    gcroot_subtests(allocation_settings, 1, run_case);
    return done_testing();
}
