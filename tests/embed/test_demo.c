/* test_demo.c — the example VM (examples/vm, built as corral-demo) runs its
 * programs in 4 threads, interpreted and compiled, with correct results:
 * as the README's first command runs it, and under every GC stress mode
 * (docs/env.md), full and generational. Its integers are tagged immediates
 * in value handles, pair fields and compiled code's stack slots, so each
 * mode also checks that they are left alone while references move. */
#include "run_program.h"

typedef struct demo_case {
    const char *name;
    double timeout_seconds;
    const char *environment; /* CORRAL_* settings */
    const char *arguments;
    long minimum_collections;
} demo_case;

/* alloc:1000 collects at every 1000th allocation: hundreds of GCs, each
 * moving every thread's live objects, interpreted and compiled. Then the
 * remaining modes, each over both paths; alloc:random prints its seed. */
static const demo_case stress_cases[] = {
    {"interpreter, 4 threads, CORRAL_GC_STRESS=alloc:1000", 300, "CORRAL_GC_STRESS=alloc:1000",
     "--threads 4 --path interpreter", 200},
    {"JIT-compiled code, 4 threads, CORRAL_GC_STRESS=alloc:1000", 300,
     "CORRAL_GC_STRESS=alloc:1000", "--threads 4 --path jit", 200},
    {"both paths, alloc:1000 + move-all + poison, heap verified", 600,
     "CORRAL_GC_STRESS=alloc:1000,move-all,poison CORRAL_GC_VERIFY=before,after", "--threads 4",
     200},
    {"both paths, alloc:random + quarantine", 300, "CORRAL_GC_STRESS=alloc:random:500,quarantine",
     "--threads 4", 400},
    {"both paths, thread-alloc + polls + transitions", 300,
     "CORRAL_GC_STRESS=thread-alloc:300,polls,transitions", "--threads 4", 400},
    {"both paths, generational, mixed + move-all + poison, verified", 600,
     "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:random:700,mixed:4,move-all,poison "
     "CORRAL_GC_VERIFY=before,after",
     "--threads 4", 300},
    {"both paths, generational, minor + poison, verified", 600,
     "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:1000,minor,poison "
     "CORRAL_GC_VERIFY=before,after",
     "--threads 4", 200},
};
enum { STRESS_CASES = sizeof stress_cases / sizeof stress_cases[0] };

static void run_demo(void *arg)
{
    const demo_case *c = arg;
    /* Its last line: "...: all results correct; N collections in all, ...". */
    example_run_checks(DEMO, c->environment, c->arguments, "all results correct",
                       " collections in all", c->minimum_collections);
}

static void default_run(void *unused)
{
    (void)unused;
    /* The demo asks for 4 GC workers; a CORRAL_GC_THREADS around us would win. */
    command_result demo = run_command("env -u CORRAL_GC_THREADS CORRAL_LOG=gc '%s'", DEMO);
    command_ok(&demo, "corral-demo with no arguments exits with status 0");
    like_str(demo.output, "all results correct", "every thread's result is right");
    like_str(demo.output, "interpreted, 4 threads", "the interpreter ran in 4 threads");
    like_str(demo.output, "compiled (LLVM JIT), 4 threads", "the JIT's code ran in 4 threads");
    like_str(demo.output, "corral: gc 1 cause=", "CORRAL_LOG=gc printed the GC log lines");
    like_str(demo.output, "workers=4", "collections ran with 4 GC workers");
    command_result_free(&demo);
}

static void bad_arguments(void *unused)
{
    (void)unused;
    command_result demo = run_command("'%s' no-such-program", DEMO);
    is_int(demo.status, 2, "an unknown program is a usage error");
    like_str(demo.output, "no program 'no-such-program'", "naming it");
    command_result_free(&demo);
}

int main(void)
{
    plan(2 + STRESS_CASES);
    tap_subtest("corral-demo as scripts/demo runs it: both paths, GC log", 120, default_run, NULL);
    for (int i = 0; i < STRESS_CASES; i++)
        tap_subtest(stress_cases[i].name, stress_cases[i].timeout_seconds, run_demo,
                    (void *)&stress_cases[i]);
    tap_subtest("usage errors", 30, bad_arguments, NULL);
    return done_testing();
}
