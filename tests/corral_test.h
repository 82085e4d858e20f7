/* corral_test.h — what every corral test program shares: starting the
 * runtime with a set of CORRAL_* settings (each case runs in its own forked
 * child, since corral_init runs once per process). */
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

#endif /* CORRAL_TESTS_CORRAL_TEST_H */
