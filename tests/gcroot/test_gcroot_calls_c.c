/* gcroot IR calling unmanaged C (calls_c.ll, plain_c.c): one and four
 * threads under CORRAL_GC_STRESS=transitions, which collects on both sides
 * of every call through a GC-transition wrapper, moving every object; each
 * case checks every list sum. Built in both gcroot modes. */
#include <stdio.h>

#include "gcroot_threads.h"

/* From calls_c.ll. */
long ffi_worker(long rounds, long n);

enum { ROUNDS = 6, LENGTH = 40 };

static void *worker(void *failures)
{
    *(long *)failures = ffi_worker(ROUNDS, LENGTH);
    return NULL;
}

typedef struct calls_case {
    int threads;
    const char *settings;
} calls_case;

static void run_case(void *arg)
{
    const calls_case *c = arg;
    gcroot_run run = gcroot_run_threads(c->threads, c->settings, worker);
    is_int(run.failures, 0, "%d thread(s), %s: every list sum right", c->threads, c->settings);
    /* Two C calls per node; threads that transition together share a collection. */
    uint64_t least = c->threads == 1 ? 2 * ROUNDS * LENGTH : ROUNDS * LENGTH / 2;
    ok(run.collections >= least, "%llu collections ran (at least %llu)",
       (unsigned long long)run.collections, (unsigned long long)least);
}

static const char *const settings[] = {
    "CORRAL_GC_STRESS=transitions CORRAL_GC_VERIFY=before,after",
    "CORRAL_GC_STRESS=transitions,move-all,poison CORRAL_GC_VERIFY=before,after",
};
enum { SETTINGS = sizeof settings / sizeof settings[0] };

int main(void)
{
    plan(2 * SETTINGS);
    static calls_case cases[2 * SETTINGS];
    for (int s = 0; s < SETTINGS; s++)
        for (int t = 0; t < 2; t++) {
            calls_case *c = &cases[s * 2 + t];
            *c = (calls_case){t ? 4 : 1, settings[s]};
            char name[160];
            snprintf(name, sizeof name, "%d thread(s), %s", c->threads, c->settings);
            tap_subtest(name, 120, run_case, c);
        }
    return done_testing();
}
