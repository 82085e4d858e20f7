/* test_quarantine_c.c — CORRAL_GC_STRESS=quarantine catches stale
 * references in plain-C embedder code (broken_plain_c.c, run in a child
 * with a timeout), and leaves other faults to the program:
 *  1. a reference in an unregistered C global, its object kept alive by a
 *     handle: under quarantine,move-all the child dies by SIGABRT with
 *     "address A was moved to B by GC n" and the function named; under
 *     move-all alone it completes silently;
 *  2. the only copy of a reference in an integer across an allocation that
 *     collects: "address A was freed by GC n" under quarantine,move-all,
 *     alloc:1; silent under move-all,alloc:1;
 *  3. a program with its own SIGSEGV handler gets the faults outside
 *     quarantined memory (the handler chains).
 * Plain C, so this also runs in the sanitizer legs. */
#include <stdbool.h>

#include "run_program.h"
#include "tap.h"

static void caught(const char *what, const char *argument, const char *other_modes,
                   const char *outcome, const char *function, const char *right_answer)
{
    char settings[256], pattern[256], symbol[128];
    snprintf(settings, sizeof settings, "CORRAL_GC_STRESS=quarantine,%s", other_modes);
    run_result bad = run_program_with(PLAIN_C_PROGRAM, argument, settings, 60);
    if (!ok(!bad.timed_out && WIFSIGNALED(bad.status) && WTERMSIG(bad.status) == SIGABRT,
            "%s: under quarantine,%s it dies by SIGABRT", what, other_modes))
        show_output(&bad);
    snprintf(pattern, sizeof pattern,
             "^corral: stale reference: address 0x[0-9a-f]+ was %s by GC [0-9]+ ", outcome);
    if (!ok(output_matches(bad.output, pattern), "%s: the report says: address A was %s by GC n", what,
            outcome))
        show_output(&bad);
    snprintf(symbol, sizeof symbol, "corral: stale reference: at %s+0x", function);
    like_str(bad.output, symbol, "%s: the faulting code is named (%s)", what, function);
    snprintf(settings, sizeof settings, "CORRAL_GC_STRESS=%s", other_modes);
    run_result quiet = run_program_with(PLAIN_C_PROGRAM, argument, settings, 60);
    if (!ok(!quiet.timed_out && WIFEXITED(quiet.status) &&
                !strstr(quiet.output, "stale reference"),
            "%s: without quarantine (%s) nothing reports it: exits %d", what, other_modes,
            WIFEXITED(quiet.status) ? WEXITSTATUS(quiet.status) : -1))
        show_output(&quiet);
    /* The result is the last line: right by luck, or whatever the old address held. */
    size_t length = strlen(quiet.output);
    while (length && quiet.output[length - 1] == '\n')
        quiet.output[--length] = '\0';
    const char *last = strrchr(quiet.output, '\n');
    diag("%s: without quarantine it printed %s (the right answer is %s)", what,
         last ? last + 1 : quiet.output, right_answer);
    free(bad.output);
    free(quiet.output);
}

int main(void)
{
    plan(4 * 2 + 1);
    caught("unregistered global", "global", "move-all", "moved to 0x[0-9a-f]+",
           "broken_plain_global", "91");
    caught("integer across an allocation", "integer", "move-all,alloc:1", "freed",
           "broken_plain_integer", "42");
    run_result chained =
        run_program_with(PLAIN_C_PROGRAM, "chain", "CORRAL_GC_STRESS=quarantine,move-all", 60);
    if (!ok(exited_ok(&chained) && strstr(chained.output, "own handler called 1 times"),
            "a fault outside quarantined memory reaches the program's own SIGSEGV handler"))
        show_output(&chained);
    free(chained.output);
    return done_testing();
}
