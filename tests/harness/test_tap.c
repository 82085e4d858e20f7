/* The TAP harness tests itself: it runs its own binary in sample modes (a
 * passing test, a failing one, a skip, a subtest that times out, one that
 * crashes) and checks the exact TAP each prints, so a broken harness cannot
 * report PASS for the rest of the suite. */
#include "run_program.h"
#include "tap.h"

#include <stdio.h>

static void sample_sleep_forever(void *arg)
{
    (void)arg;
    for (;;)
        pause();
}

/* abort(): sanitizers intercept SIGSEGV and exit normally, not SIGABRT. */
static void sample_crash(void *arg)
{
    (void)arg;
    abort();
}

static void sample_child_fails(void *arg)
{
    (void)arg;
    ok(1 + 1 == 3, "arithmetic in the child");
}

static void sample_child_passes(void *arg)
{
    (void)arg;
    ok(1 + 1 == 2, "arithmetic in the child");
}

static int run_sample(const char *mode)
{
    if (strcmp(mode, "pass") == 0) {
        plan(2);
        ok(1, "first");
        is_int(6 * 7, 42, "second");
        return done_testing();
    }
    if (strcmp(mode, "fail") == 0) {
        plan(2);
        ok(1, "good");
        is_int(6 * 7, 41, "bad");
        return done_testing();
    }
    if (strcmp(mode, "skip") == 0) {
        plan(2);
        ok(1, "ran");
        skip(1, "not here");
        return done_testing();
    }
    if (strcmp(mode, "timeout") == 0) {
        plan(2);
        tap_subtest("sleeps forever", 0.3, sample_sleep_forever, NULL);
        tap_subtest("passes in a child", 10, sample_child_passes, NULL);
        return done_testing();
    }
    if (strcmp(mode, "crash") == 0) {
        plan(2);
        tap_subtest("crashes", 10, sample_crash, NULL);
        tap_subtest("fails in a child", 10, sample_child_fails, NULL);
        return done_testing();
    }
    if (strcmp(mode, "bail") == 0)
        bail_out("cannot go on");
    fprintf(stderr, "unknown sample mode '%s'\n", mode);
    return 2;
}

/* Runs this binary in a sample mode; returns its stdout (and its stderr, when
 * with_stderr), kept to the end of the test, and its exit status. */
static char *capture(const char *self, const char *mode, int with_stderr, int *status)
{
    command_result result =
        run_command("%s '%s' --sample %s%s", exec_wrapper(), self, mode,
                    with_stderr ? "" : " 2>/dev/null");
    *status = result.status;
    return result.output;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--sample") == 0)
        return run_sample(argv[2]);

    plan(17);
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0)
        bail_out("readlink /proc/self/exe: %s", strerror(errno));
    self[length] = '\0';
    int status;

    char *out = capture(self, "pass", 1, &status);
    is_str(out, "1..2\nok 1 - first\nok 2 - second\n", "passing sample prints plan and oks");
    is_int(status, 0, "passing sample exits 0");

    out = capture(self, "fail", 1, &status);
    like_str(out, "ok 1 - good\nnot ok 2 - bad\n", "failing sample prints not ok");
    like_str(out, "#          got: 42\n#     expected: 41", "is_int prints got and expected");
    like_str(out, "test_tap.c line", "failure names the file and line");
    is_int(status, 1, "failing sample exits 1");
    out = capture(self, "fail", 0, &status);
    ok(strstr(out, "not ok 2 - bad\n") && !strstr(out, "got: 42"),
       "a failure's diagnostics go to stderr, which prove shows");

    out = capture(self, "skip", 1, &status);
    like_str(out, "ok 2 # skip not here\n", "skip prints a skip directive");
    is_int(status, 0, "skip counts as a pass");

    out = capture(self, "timeout", 1, &status);
    like_str(out, "not ok 1 - sleeps forever # timed out after", "a hung subtest times out by name");
    like_str(out, "ok 2 - passes in a child\n", "the next subtest still runs");
    is_int(status, 1, "a timed-out subtest fails the run");

    out = capture(self, "crash", 1, &status);
    like_str(out, "not ok 1 - crashes # killed by signal 6", "a crashing subtest names the signal");
    like_str(out, "not ok 2 - fails in a child\n", "a failing check in a child fails the subtest");
    like_str(out, "#   failed: arithmetic in the child", "the child's failure is a diagnostic");

    out = capture(self, "bail", 1, &status);
    is_str(out, "Bail out! cannot go on\n", "bail_out prints Bail out!");
    is_int(status, 255, "bail_out exits 255");
    return done_testing();
}
