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
 *     quarantined memory (the handler chains);
 *  4. an allocation fast path of the program's own that does not zero the
 *     object: under poison the marker names the poison pattern and the
 *     verifier the slot; CORRAL_TLAB_ZERO=1 makes the program right.
 * Plain C, so this also runs in the sanitizer legs. */
#include <stdbool.h>

#include "corral_test.h"

static void caught(const char *what, const char *argument, const char *other_modes,
                   const char *outcome, const char *function, const char *right_answer)
{
    char *quiet = quarantine_catches(what, PLAIN_C_PROGRAM, argument, other_modes, outcome,
                                     function);
    /* The result is the last line: right by luck, or whatever the old address held. */
    size_t length = strlen(quiet);
    while (length && quiet[length - 1] == '\n')
        quiet[--length] = '\0';
    const char *last = strrchr(quiet, '\n');
    diag("%s: without quarantine it printed %s (the right answer is %s)", what,
         last ? last + 1 : quiet, right_answer);
    free(quiet);
}

/* Case 4: settings, then whether it must die, and what its output holds. */
static void unzeroed(const char *settings, bool dies, const char *says)
{
    run_result run = run_program_with(PLAIN_C_PROGRAM, "unzeroed", settings, 60);
    bool right = dies ? !run.timed_out && WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGABRT
                      : exited_ok(&run);
    if (!ok(right && strstr(run.output, says), "unzeroed fast path, %s: %s, output has \"%s\"",
            settings, dies ? "dies" : "exits 0", says))
        show_output(&run);
    free(run.output);
}

int main(void)
{
    plan(4 * 2 + 1 + 3);
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
    unzeroed("CORRAL_GC_STRESS=poison", true, "marking found the poison pattern 0xbadc0ffee0ddf00d");
    unzeroed("CORRAL_GC_STRESS=poison CORRAL_GC_VERIFY=before", true,
             "of type node at offset 16 holds 0xbadc0ffee0ddf00d: the poison pattern itself");
    unzeroed("CORRAL_GC_STRESS=poison CORRAL_TLAB_ZERO=1", false, "41");
    return done_testing();
}
