/* test_gcroot_example.c — examples/gcroot (llvm.gcroot frontend IR driven by
 * plain C), built in both gcroot modes, runs as its README shows and under GC
 * stress, every thread's total right. */
#include "run_program.h"

typedef struct example_case {
    const char *program;     /* path of one build */
    const char *environment; /* CORRAL_* settings */
    const char *arguments;
    long minimum_collections;
} example_case;

static void run_example(void *arg)
{
    const example_case *c = arg;
    /* Its last line: "..., N collections: ok". */
    example_run_checks(c->program, c->environment, c->arguments, "collections: ok",
                       " collections: ", c->minimum_collections);
}

int main(void)
{
    static const char *const programs[] = {EXAMPLE_SHADOW_STACK, EXAMPLE_PROMOTED};
    static const char *const modes[] = {"shadow-stack", "promoted"};
    static example_case cases[2][2];
    plan(4);
    for (int m = 0; m < 2; m++) {
        /* As the README runs it: 4 threads in a 4 MiB heap, GC log on. */
        cases[m][0] = (example_case){programs[m], "CORRAL_LOG=gc", "", 5};
        cases[m][1] = (example_case){programs[m],
                                     "CORRAL_GC_STRESS=alloc:101,move-all,poison "
                                     "CORRAL_GC_VERIFY=before,after",
                                     "4 60 40", 50};
        char name[160];
        snprintf(name, sizeof name, "gcroot-example-%s, defaults", modes[m]);
        tap_subtest(name, 120, run_example, &cases[m][0]);
        snprintf(name, sizeof name, "gcroot-example-%s, 4 threads, alloc:101 + move-all + poison, "
                                    "heap verified", modes[m]);
        tap_subtest(name, 300, run_example, &cases[m][1]);
    }
    return done_testing();
}
