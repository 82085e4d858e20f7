/* test_demo.c — the example VM (examples/vm, built as corral-demo) runs its
 * programs in 4 threads, interpreted and compiled, with correct results:
 * as the README's first command runs it, and under every GC stress mode
 * (docs/env.md), full and generational. Its integers are tagged immediates
 * in value handles, pair fields and compiled code's stack slots, so each
 * mode also checks that they are left alone while references move.
 * Under emulation (TAP_WORK_PERCENT, TAP_EXEC_WRAPPER: the AArch64 leg) each
 * mode collects less often, for a tenth of the collections, in a 64 MiB heap. */
#include "run_program.h"

typedef struct demo_case {
    const char *name;
    double timeout_seconds;
    const char *environment; /* CORRAL_* settings; %ld is the stress interval */
    long interval;           /* allocations between collections, at full work */
    const char *arguments;
    long minimum_collections; /* at full work */
} demo_case;

/* alloc:1000 collects at every 1000th allocation: hundreds of GCs, each
 * moving every thread's live objects, interpreted and compiled. Then the
 * remaining modes, each over both paths; alloc:random prints its seed. */
static const demo_case stress_cases[] = {
    {"interpreter, 4 threads, CORRAL_GC_STRESS=alloc", 300, "CORRAL_GC_STRESS=alloc:%ld", 1000,
     "--threads 4 --path interpreter", 200},
    {"JIT-compiled code, 4 threads, CORRAL_GC_STRESS=alloc", 300, "CORRAL_GC_STRESS=alloc:%ld",
     1000, "--threads 4 --path jit", 200},
    {"both paths, alloc + move-all + poison, heap verified", 600,
     "CORRAL_GC_STRESS=alloc:%ld,move-all,poison CORRAL_GC_VERIFY=before,after", 1000,
     "--threads 4", 200},
    {"both paths, alloc:random + quarantine", 300, "CORRAL_GC_STRESS=alloc:random:%ld,quarantine",
     500, "--threads 4", 400},
    {"both paths, thread-alloc + polls + transitions", 300,
     "CORRAL_GC_STRESS=thread-alloc:%ld,polls,transitions", 300, "--threads 4", 400},
    {"both paths, generational, mixed + move-all + poison, verified", 600,
     "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:random:%ld,mixed:4,move-all,poison "
     "CORRAL_GC_VERIFY=before,after",
     700, "--threads 4", 300},
    {"both paths, generational, minor + poison, verified", 600,
     "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:%ld,minor,poison "
     "CORRAL_GC_VERIFY=before,after",
     1000, "--threads 4", 200},
};
enum { STRESS_CASES = sizeof stress_cases / sizeof stress_cases[0] };

static void run_demo(void *arg)
{
    const demo_case *c = arg;
    /* The demo's work is fixed: a tenth of the work is a tenth of the
     * collections. tap_work(100) is the percentage. */
    long interval = c->interval * 100 / tap_work(100);
    char environment[512];
    int used = snprintf(environment, sizeof environment, c->environment, interval);
    /* Every heap verification reads /proc/self/maps, which qemu builds page
     * by page of the reservation: 35 ms by default, under 1 ms in 64 MiB,
     * more than the demo ever uses (docs/platforms.md). */
    if (*exec_wrapper())
        snprintf(environment + used, sizeof environment - (size_t)used, " CORRAL_HEAP_MAX=64M");
    /* Its last line: "...: all results correct; N collections in all, ...". */
    example_run_checks(DEMO, environment, c->arguments, "all results correct",
                       " collections in all", tap_work(c->minimum_collections));
}

static void default_run(void *unused)
{
    (void)unused;
    /* The demo asks for 4 GC workers; a CORRAL_GC_THREADS around us would win. */
    command_result demo =
        run_command("env -u CORRAL_GC_THREADS CORRAL_LOG=gc %s '%s'", exec_wrapper(), DEMO);
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
    command_result demo = run_command("%s '%s' no-such-program", exec_wrapper(), DEMO);
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
