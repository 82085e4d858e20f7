/* tap.h — a small Test Anything Protocol producer for corral's tests.
 *
 * Header-only so that every test binary, including managed C programs built
 * with corralc, can use it without linking anything.
 *
 *   plan(3);                       1..3
 *   ok(x == 1, "x is one");        ok 1 - x is one
 *   is_int(got, 42, "answer");     prints got/expected on failure
 *   skip(1, "no TSan here");       ok 3 # skip no TSan here
 *   return done_testing();         exit status 0 iff all passed
 *
 * Forked subtests (libuv style): tap_subtest("name", seconds, fn, arg) runs fn
 * in a child process with a timeout. Inside the child, ok()/is_*() failures are
 * printed as diagnostics and make the child exit non-zero; the parent prints
 * one "ok N - name" line, or "not ok N - name # timed out after S s" and kills
 * the child. Every multithreaded test runs this way, so a deadlock fails with
 * a name instead of hanging CI. TAP_TIMEOUT_SCALE (a positive number) stretches
 * every timeout, for sanitizer builds and emulation. TAP_WORK_PERCENT (1-100,
 * default 100) shrinks the rounds and cycles of the longest tests through
 * tap_work(n), never what they check: the emulated AArch64 run sets it.
 *
 * Seeds: tap_seed(argc, argv) returns the seed from argv[1] or TAP_SEED, else
 * one from the clock, and prints "# seed: N" so any failure can be replayed.
 *
 * Also: tap_now() (monotonic seconds), tap_sleep_ns(), TAP_UNDER_TSAN (1 in
 * a ThreadSanitizer build, for tests that shrink their workloads) and
 * TAP_UNDER_ASAN (1 in an AddressSanitizer build, where a forked subtest
 * also fails on a leak LeakSanitizer finds in it).
 */
#ifndef CORRAL_TESTS_TAP_H
#define CORRAL_TESTS_TAP_H

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Counters of the current process; the child of a subtest has its own copy. */
static int tap_test_number;  /* tests reported so far */
static int tap_failures;     /* of which failed */
static int tap_planned = -1; /* -1: no plan yet (done_testing prints one) */
static int tap_in_subtest;   /* 1 in a forked child: failures are diagnostics */

#define TAP_UNUSED __attribute__((unused))

/* Informational diagnostics go to stdout, which prove hides; a failure's go to
 * stderr (as Test::More's do), so a CI log shows why a test failed. */
static TAP_UNUSED void tap_vdiag_to(FILE *stream, const char *fmt, va_list ap)
{
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    /* Every line of a diagnostic starts with "# " so TAP parsers ignore it. */
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        fprintf(stream, "# %s%s\n", tap_in_subtest ? "  " : "", line);
    }
    fflush(stream);
}

static TAP_UNUSED __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vdiag_to(stdout, fmt, ap);
    va_end(ap);
}

static TAP_UNUSED __attribute__((format(printf, 1, 2))) void tap_failure_diag(const char *fmt, ...)
{
    fflush(stdout); /* keeps the "not ok" line ahead of its explanation */
    va_list ap;
    va_start(ap, fmt);
    tap_vdiag_to(stderr, fmt, ap);
    va_end(ap);
}

static TAP_UNUSED void plan(int count)
{
    tap_planned = count;
    printf("1..%d\n", count);
    fflush(stdout);
}

static TAP_UNUSED __attribute__((noreturn, format(printf, 1, 2))) void bail_out(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("Bail out! %s\n", buf);
    fflush(stdout);
    exit(255);
}

/* Reports one result; returns the condition so callers can chain. */
static TAP_UNUSED __attribute__((format(printf, 5, 6))) int tap_report(int passed, const char *expr, const char *file, int line,
                                 const char *fmt, ...)
{
    char name[1024] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(name, sizeof name, fmt, ap);
        va_end(ap);
    }
    if (tap_in_subtest) {
        if (!passed) {
            tap_failures++;
            tap_failure_diag("failed: %s\n  at %s:%d: %s", name, file, line, expr);
        }
        return passed;
    }
    tap_test_number++;
    if (!passed)
        tap_failures++;
    printf("%sok %d%s%s\n", passed ? "" : "not ", tap_test_number, name[0] ? " - " : "", name);
    if (!passed)
        tap_failure_diag("  Failed test at %s line %d:\n    %s", file, line, expr);
    fflush(stdout);
    return passed;
}

#define ok(cond, ...) tap_report(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)
#define pass(...) tap_report(1, "pass", __FILE__, __LINE__, __VA_ARGS__)
#define fail(...) tap_report(0, "fail", __FILE__, __LINE__, __VA_ARGS__)

/* Compare two integers; on failure print both. */
#define is_int(got, expected, ...)                                                        \
    do {                                                                                  \
        intmax_t tap_got_ = (intmax_t)(got), tap_exp_ = (intmax_t)(expected);             \
        if (!tap_report(tap_got_ == tap_exp_, #got " == " #expected, __FILE__, __LINE__,  \
                        __VA_ARGS__))                                                     \
            tap_failure_diag("         got: %jd\n    expected: %jd", tap_got_, tap_exp_); \
    } while (0)

/* Compare two C strings (NULL-safe); on failure print both. */
#define is_str(got, expected, ...)                                                          \
    do {                                                                                    \
        const char *tap_gs_ = (got), *tap_es_ = (expected);                                 \
        int tap_same_ = (tap_gs_ && tap_es_) ? strcmp(tap_gs_, tap_es_) == 0                \
                                             : tap_gs_ == tap_es_;                          \
        if (!tap_report(tap_same_, #got " eq " #expected, __FILE__, __LINE__, __VA_ARGS__)) \
            tap_failure_diag("         got: '%s'\n    expected: '%s'",                      \
                             tap_gs_ ? tap_gs_ : "(null)", tap_es_ ? tap_es_ : "(null)");   \
    } while (0)

/* Check that haystack contains needle; on failure print the haystack. */
#define like_str(haystack, needle, ...)                                                   \
    do {                                                                                  \
        const char *tap_h_ = (haystack), *tap_n_ = (needle);                              \
        if (!tap_report(tap_h_ && strstr(tap_h_, tap_n_) != NULL,                         \
                        #haystack " contains " #needle, __FILE__, __LINE__, __VA_ARGS__)) \
            tap_failure_diag("    '%s'\n    does not contain '%s'",                       \
                             tap_h_ ? tap_h_ : "(null)", tap_n_);                         \
    } while (0)

static TAP_UNUSED void skip(int count, const char *why)
{
    for (int i = 0; i < count; i++) {
        tap_test_number++;
        printf("ok %d # skip %s\n", tap_test_number, why);
    }
    fflush(stdout);
}

/* Prints the plan if none was given; returns the process exit status. */
static TAP_UNUSED int done_testing(void)
{
    if (tap_planned < 0)
        plan(tap_test_number);
    else if (tap_planned != tap_test_number)
        tap_failure_diag("planned %d tests but ran %d", tap_planned, tap_test_number);
    fflush(stdout);
    return (tap_failures == 0 && (tap_planned < 0 || tap_planned == tap_test_number)) ? 0 : 1;
}

static TAP_UNUSED double tap_timeout_scale(void)
{
    const char *text = getenv("TAP_TIMEOUT_SCALE");
    if (!text || !*text)
        return 1.0;
    char *end;
    double scale = strtod(text, &end);
    if (*end != '\0' || !(scale > 0))
        bail_out("TAP_TIMEOUT_SCALE='%s': expected a positive number", text);
    return scale;
}

/* n scaled by TAP_WORK_PERCENT, at least 1: the work of a long test's loop. */
static TAP_UNUSED long tap_work(long n)
{
    const char *text = getenv("TAP_WORK_PERCENT");
    if (!text || !*text)
        return n;
    char *end;
    long percent = strtol(text, &end, 10);
    if (*end != '\0' || percent < 1 || percent > 100)
        bail_out("TAP_WORK_PERCENT='%s': expected a whole number from 1 to 100", text);
    long scaled = n * percent / 100;
    return scaled > 0 ? scaled : 1;
}

static TAP_UNUSED double tap_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static TAP_UNUSED void tap_sleep_ns(uint64_t ns)
{
    struct timespec nap = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&nap, NULL);
}

/* 1 in a ThreadSanitizer build, where tests shrink their workloads. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TAP_UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) && !defined(TAP_UNDER_TSAN) /* GCC's spelling */
#define TAP_UNDER_TSAN 1
#endif
#ifndef TAP_UNDER_TSAN
#define TAP_UNDER_TSAN 0
#endif

/* LeakSanitizer's check for a forked subtest, which leaves by _exit and so
 * skips the check at exit that a whole ASan test binary gets. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TAP_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(TAP_UNDER_ASAN)
#define TAP_UNDER_ASAN 1
#endif
#ifndef TAP_UNDER_ASAN
#define TAP_UNDER_ASAN 0
#endif
#if TAP_UNDER_ASAN
#include <sanitizer/lsan_interface.h>
static TAP_UNUSED int tap_leaks_found(void)
{
    return __lsan_do_recoverable_leak_check() != 0;
}
#else
static TAP_UNUSED int tap_leaks_found(void)
{
    return 0;
}
#endif

/* Runs fn(arg) in a forked child with a timeout and reports one test; under
 * ASan a leak in the child fails it. Returns 1 when the subtest passed. */
static TAP_UNUSED int tap_subtest(const char *name, double timeout_seconds,
                                  void (*fn)(void *arg), void *arg)
{
    double limit = timeout_seconds * tap_timeout_scale();
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child < 0)
        bail_out("fork for subtest '%s': %s", name, strerror(errno));
    if (child == 0) {
        /* Own process group: a timeout kills what the subtest forked too,
         * so no grandchild keeps prove's pipe open. */
        setpgid(0, 0);
        tap_in_subtest = 1;
        tap_failures = 0;
        fn(arg);
        if (tap_leaks_found()) {
            tap_failure_diag("LeakSanitizer found leaks in subtest '%s' (its report is above)",
                             name);
            tap_failures++;
        }
        fflush(stdout);
        fflush(stderr);
        _exit(tap_failures == 0 ? 0 : 1);
    }
    setpgid(child, child); /* also here, so the group exists before any kill */
    double start = tap_now();
    int status = 0;
    int timed_out = 0;
    for (;;) {
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child)
            break;
        if (done < 0 && errno != EINTR)
            bail_out("waitpid for subtest '%s': %s", name, strerror(errno));
        if (tap_now() - start > limit) {
            timed_out = 1;
            kill(-child, SIGKILL);
            waitpid(child, &status, 0);
            break;
        }
        tap_sleep_ns(2 * 1000 * 1000);
    }
    kill(-child, SIGKILL); /* whatever the subtest left running */
    tap_test_number++;
    int passed = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!passed)
        tap_failures++;
    if (timed_out)
        printf("not ok %d - %s # timed out after %.1f s\n", tap_test_number, name, limit);
    else if (WIFSIGNALED(status))
        printf("not ok %d - %s # killed by signal %d (%s)\n", tap_test_number, name,
               WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        printf("%sok %d - %s\n", passed ? "" : "not ", tap_test_number, name);
    fflush(stdout);
    return passed;
}

/* The seed for a randomised test: argv[1], else TAP_SEED, else from the clock.
 * Printed so a failing run can be replayed with the same value. */
static TAP_UNUSED uint64_t tap_seed(int argc, char **argv)
{
    const char *text = argc > 1 ? argv[1] : getenv("TAP_SEED");
    uint64_t seed;
    if (text && *text) {
        char *end;
        errno = 0;
        seed = strtoull(text, &end, 0);
        if (errno || *end != '\0')
            bail_out("seed '%s': expected an unsigned integer", text);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
    }
    printf("# seed: %" PRIu64 " (replay: %s %" PRIu64 ")\n", seed, argc > 0 ? argv[0] : "test",
           seed);
    fflush(stdout);
    return seed;
}

/* splitmix64: the small, good generator every randomised test uses. */
static TAP_UNUSED uint64_t tap_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif /* CORRAL_TESTS_TAP_H */
