/* corral_test.h — what every corral test program shares: starting the
 * runtime with a set of CORRAL_* settings (each case runs in its own forked
 * child, since corral_init runs once per process), and the checks that a
 * broken program is caught by CORRAL_GC_STRESS=quarantine. */
#ifndef CORRAL_TESTS_CORRAL_TEST_H
#define CORRAL_TESTS_CORRAL_TEST_H

#include <corral.h>
#include <stdbool.h>

#include "run_program.h"
#include "tap.h"

/* corral_init with those settings, then (if attach) the calling thread;
 * a failure ends the test with the runtime's message. */
static TAP_UNUSED void test_start(const char *settings, bool attach)
{
    run_setenv_list(settings);
    if (corral_init(NULL) != 0)
        bail_out("corral_init: %s", corral_last_error());
    if (attach && corral_thread_attach() != 0)
        bail_out("corral_thread_attach: %s", corral_last_error());
}

/* A broken program (run with argument, NULL for none) caught by quarantine,
 * four tests: under CORRAL_GC_STRESS=quarantine,OTHER_MODES it dies by
 * SIGABRT, reports "address A was OUTCOME by GC n" (outcome a regular
 * expression) and names function; under OTHER_MODES alone nothing reports
 * it. Returns what the program printed in that second run; the caller frees it. */
static TAP_UNUSED char *quarantine_catches(const char *what, const char *program,
                                           const char *argument, const char *other_modes,
                                           const char *outcome, const char *function)
{
    char settings[256], pattern[256], symbol[128];
    snprintf(settings, sizeof settings, "CORRAL_GC_STRESS=quarantine,%s", other_modes);
    run_result caught = run_program_with(program, argument, settings, 60);
    if (!ok(!caught.timed_out && WIFSIGNALED(caught.status) && WTERMSIG(caught.status) == SIGABRT,
            "%s: under quarantine,%s it dies by SIGABRT", what, other_modes))
        show_output(&caught);
    snprintf(pattern, sizeof pattern,
             "^corral: stale reference: address 0x[0-9a-f]+ was %s by GC [0-9]+ ", outcome);
    if (!ok(output_matches(caught.output, pattern), "%s: the report says: address A was %s by GC n",
            what, outcome))
        show_output(&caught);
    snprintf(symbol, sizeof symbol, "corral: stale reference: at %s+0x", function);
    like_str(caught.output, symbol, "%s: the faulting code is named (%s)", what, function);
    snprintf(settings, sizeof settings, "CORRAL_GC_STRESS=%s", other_modes);
    run_result quiet = run_program_with(program, argument, settings, 60);
    if (!ok(!quiet.timed_out && WIFEXITED(quiet.status) && !strstr(quiet.output, "stale reference"),
            "%s: without quarantine (%s) it is not caught: exits %d", what, other_modes,
            WIFEXITED(quiet.status) ? WEXITSTATUS(quiet.status) : -1))
        show_output(&quiet);
    free(caught.output);
    return quiet.output;
}

#endif /* CORRAL_TESTS_CORRAL_TEST_H */
