/* bench_common.h — timing for the poll-overhead benchmarks (managed C).
 *
 * Each program defines its kernel twice, identical but for polls: once as
 * built (with the poll kinds on the corralc command line) and once marked
 * CORRAL_NOPOLL. bench_compare alternates the two in one process and keeps
 * the fastest run of each, so frequency changes and other load hit both
 * alike; only the ratio is meant to be read. Output, one line per kernel:
 *   BENCH name polled_ns_per_unit unpolled_ns_per_unit ratio checksum */
#ifndef CORRAL_BENCH_POLLS_COMMON_H
#define CORRAL_BENCH_POLLS_COMMON_H

#include <corral.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

CORRAL_LEAF int clock_gettime(clockid_t clock, struct timespec *now);

static inline double bench_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

/* The runtime is initialised so polls read the real page and unmanaged
 * calls make real transitions. */
static inline void bench_start(void)
{
    if (corral_init(NULL) != 0) {
        fprintf(stderr, "corral_init: %s\n", corral_last_error());
        exit(1);
    }
    corral_thread_attach();
}

static inline int bench_repeats(int argc, char **argv, int fallback)
{
    return argc > 1 ? atoi(argv[1]) : fallback;
}

typedef long (*bench_kernel)(void *context);

static inline double bench_time(bench_kernel kernel, void *context, long *checksum)
{
    double start = bench_now();
    *checksum += kernel(context);
    return bench_now() - start;
}

/* units: work done by one kernel call (elements summed, dispatches...). */
static inline void bench_compare(const char *name, bench_kernel polled, bench_kernel unpolled,
                                 void *context, double units, int repeats)
{
    double best_polled = 1e300, best_unpolled = 1e300;
    long checksum = 0;
    for (int r = 0; r < 2 * repeats; r++) {
        /* Alternate which goes first, so neither always runs on a warm cache. */
        int polled_first = r % 2 == 0;
        double first = bench_time(polled_first ? polled : unpolled, context, &checksum);
        double second = bench_time(polled_first ? unpolled : polled, context, &checksum);
        double p = polled_first ? first : second, u = polled_first ? second : first;
        if (p < best_polled)
            best_polled = p;
        if (u < best_unpolled)
            best_unpolled = u;
    }
    printf("BENCH %s %.4f %.4f %.4f %ld\n", name, best_polled / units, best_unpolled / units,
           best_polled / best_unpolled, checksum);
    fflush(stdout);
}

#endif /* CORRAL_BENCH_POLLS_COMMON_H */
