/* torture.h — what every torture program shares: start-up, the seed, the
 * size argument, checks that fail loudly, a small generator, threads.
 *
 * A torture program is managed C (built by corralc) that stresses one shape
 * of reference use and checks its own results: it exits 0 and prints
 * "torture: NAME: ok ..." when every check held, and exits 1 with
 * "torture: NAME: FAIL: ..." on the first wrong answer. Crashes, corral
 * fatal reports and hangs are the runner's to see (stress/run).
 *
 *   NAME [SIZE]        SIZE scales the work (default 1; the runner's long
 *                      runs pass larger values)
 *   TORTURE_WORK=P     scales it by P percent (default 100): the runner
 *                      lowers it for modes that collect at (nearly) every
 *                      allocation, where a full-size run takes minutes
 *
 * The program's own random choices come from CORRAL_GC_SEED, the variable
 * that also seeds the runtime's randomised stress, so one number replays
 * both (exactly in single-threaded programs; multithreaded programs replay
 * the same work, not the same interleaving).
 */
#ifndef CORRAL_STRESS_TORTURE_H
#define CORRAL_STRESS_TORTURE_H

#include <corral.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TORTURE_UNUSED __attribute__((unused))

/* Set once by torture_start, before any thread is created. */
static const char *torture_name = "torture";
static uint64_t torture_seed_value;
static long torture_size = 1;
static long torture_work = 100; /* percent */
static long torture_checks; /* relaxed atomic adds: any thread checks */

/* The first failure ends the process: its message is what the runner shows. */
#define TORTURE_FAIL(...) TORTURE_FAIL_WHY("", __VA_ARGS__)
#define TORTURE_FAIL_WHY(why, ...)                                                         \
    do {                                                                                   \
        fflush(stdout);                                                                    \
        fprintf(stderr, "torture: %s: FAIL at %s:%d: %s", torture_name, __FILE__, __LINE__, \
                why);                                                                      \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fprintf(stderr, " (seed %" PRIu64 ", size %ld, work %ld%%; replay: CORRAL_GC_SEED=%" PRIu64 \
                        " and the same CORRAL_* and TORTURE_WORK settings)\n",            \
                torture_seed_value, torture_size, torture_work, torture_seed_value);      \
        fflush(stderr);                                                                    \
        exit(1);                                                                           \
    } while (0)

#define CHECK(condition, ...)                                                              \
    do {                                                                                   \
        __atomic_fetch_add(&torture_checks, 1, __ATOMIC_RELAXED);                         \
        if (__builtin_expect(!(condition), 0))                                             \
            TORTURE_FAIL_WHY("check failed: " #condition ": ", __VA_ARGS__);                 \
    } while (0)

#define CHECK_EQ(got, expected, what)                                                      \
    do {                                                                                   \
        long long torture_got_ = (long long)(got), torture_expected_ = (long long)(expected); \
        __atomic_fetch_add(&torture_checks, 1, __ATOMIC_RELAXED);                         \
        if (__builtin_expect(torture_got_ != torture_expected_, 0))                        \
            TORTURE_FAIL("%s: got %lld, expected %lld", what, torture_got_,                \
                         torture_expected_);                                               \
    } while (0)

/* splitmix64; each thread keeps its own state in a plain local. */
static TORTURE_UNUSED uint64_t torture_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value in [0, bound). */
static TORTURE_UNUSED uint64_t torture_below(uint64_t *state, uint64_t bound)
{
    return bound ? torture_random(state) % bound : 0;
}

/* A generator for stream number index, independent of the others. */
static TORTURE_UNUSED uint64_t torture_stream(uint64_t index)
{
    uint64_t state = torture_seed_value ^ (index * 0xd1b54a32d192ed03ull);
    torture_random(&state);
    return state;
}

static TORTURE_UNUSED double torture_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads SIZE and the seed, starts corral and attaches the main thread. */
static TORTURE_UNUSED void torture_start(const char *name, int argc, char **argv)
{
    torture_name = name;
    if (argc > 1) {
        char *end;
        torture_size = strtol(argv[1], &end, 10);
        if (*end || torture_size < 1 || torture_size > 1000000) {
            fprintf(stderr, "usage: %s [SIZE]: SIZE '%s': expected an integer from 1 to 1000000\n",
                    name, argv[1]);
            exit(2);
        }
    }
    const char *work_text = getenv("TORTURE_WORK");
    if (work_text && *work_text) {
        char *end;
        torture_work = strtol(work_text, &end, 10);
        if (*end || torture_work < 1 || torture_work > 1000000) {
            fprintf(stderr, "%s: TORTURE_WORK='%s': expected a percentage from 1 to 1000000\n",
                    name, work_text);
            exit(2);
        }
    }
    const char *seed_text = getenv("CORRAL_GC_SEED");
    if (seed_text && *seed_text)
        torture_seed_value = strtoull(seed_text, NULL, 10);
    if (!torture_seed_value) { /* unset, or 0: the runtime then seeds from the clock too */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        torture_seed_value = ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)ts.tv_nsec;
        /* The runtime reads the same variable: one seed for both. */
        char text[32];
        snprintf(text, sizeof text, "%" PRIu64, torture_seed_value);
        setenv("CORRAL_GC_SEED", text, 1);
    }
    printf("torture: %s: seed %" PRIu64 ", size %ld, work %ld%%\n", name, torture_seed_value,
           torture_size, torture_work);
    fflush(stdout);
    if (corral_init(NULL) != 0)
        exit(2); /* corral_init printed what is wrong */
    if (corral_thread_attach() != 0) {
        fprintf(stderr, "torture: %s: corral_thread_attach: %s\n", name, corral_last_error());
        exit(2);
    }
}

/* base units of work scaled by SIZE and TORTURE_WORK, at least minimum. */
static TORTURE_UNUSED long torture_count(long base, long minimum)
{
    long count = base * torture_size * torture_work / 100;
    return count < minimum ? minimum : count;
}

/* Prints the summary line and returns the exit status for main. */
static TORTURE_UNUSED int torture_finish(void)
{
    corral_stats stats;
    corral_get_stats(&stats);
    printf("torture: %s: ok (%ld checks, %" PRIu64 " GCs, %.1f MiB moved)\n", torture_name,
           __atomic_load_n(&torture_checks, __ATOMIC_RELAXED), stats.collections,
           (double)stats.bytes_moved / (1 << 20));
    fflush(stdout);
    return 0;
}

/* Threads run start(arg) as managed code (corral_thread_create attaches). */
static TORTURE_UNUSED pthread_t torture_spawn(void *(*start)(void *), void *arg)
{
    pthread_t thread;
    if (corral_thread_create(&thread, start, arg) != 0)
        TORTURE_FAIL("corral_thread_create: %s", corral_last_error());
    return thread;
}

static TORTURE_UNUSED void torture_join(pthread_t thread)
{
    int error = pthread_join(thread, NULL);
    if (error)
        TORTURE_FAIL("pthread_join: error %d", error);
}

/* The elements of an array object (fixed part, then elements). */
#define TORTURE_ELEMENTS(type, array)                                                      \
    ((type CORRAL_REF *)((char CORRAL_REF *)(array) + sizeof(corral_array_header)))
#define TORTURE_LENGTH(array) (((corral_array_header CORRAL_REF *)(array))->length)

#endif /* CORRAL_STRESS_TORTURE_H */
