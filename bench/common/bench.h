/* bench.h — what every benchmark program shares, whatever its collector:
 * a clock, a pause log, argument parsing, self-checks and the RESULT line
 * that bench/run parses.
 *
 * Header-only and free of callbacks into libc (no qsort), so the managed C
 * versions built with corralc can include it unchanged: their static
 * functions simply become managed code.
 *
 * The RESULT line (one per run, on stdout, last):
 *   RESULT bench=NAME impl=IMPL threads=N params=K:V,... status=ok|fail|oom
 *          wall_ms=F gc_count=N|- pause_total_ms=F|- pause_max_ms=F|-
 *          pause_p99_ms=F|- [extra key=value ...]
 * "-" means the implementation has no such figure (malloc has no GC). The
 * pause_* keys cover every collection; corral adds minor_count=N
 * minor_p50_ms=F minor_p99_ms=F to the extra keys when it made minor
 * collections (CORRAL_GC_GENERATIONAL=1), over those alone.
 * With BENCH_PAUSE_FILE set, every recorded pause is also written there, one
 * value in milliseconds per line, for bench/run --plot.
 */
#ifndef CORRAL_BENCH_H
#define CORRAL_BENCH_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_UNUSED __attribute__((unused))

/* Exit codes bench/run understands. */
#define BENCH_EXIT_USAGE 64
#define BENCH_EXIT_CHECK 2 /* a result did not match its expected value */
#define BENCH_EXIT_OOM 3   /* the heap limit was too small for the live set */

/* Every tree benchmark counts in these: TreeSize(d) = 2^(d+1) - 1 nodes. */
static BENCH_UNUSED long bench_tree_size(int depth)
{
    return (1L << (depth + 1)) - 1;
}

/* mt-trees: a node at height h (leaves 0) of a tree tagged salt holds
 * value h + salt, and a tree's check is the sum of (1 + value) over its nodes.
 * Salts differ per thread, so a reference crossing trees changes the sum. */
static BENCH_UNUSED long bench_valued_tree_check(int depth, long salt)
{
    long check = 0;
    for (int level = 0; level <= depth; level++)
        check += (1L << level) * (1 + (depth - level) + salt);
    return check;
}

/* mt-trees: the most that is ever reachable, counted in 32-byte nodes (the
 * size every implementation's node rounds up to): the shared long-lived tree
 * plus one tree under construction per mutator. Heap limits are multiples of it. */
#define BENCH_MT_NODE_BYTES 32
static BENCH_UNUSED long bench_mt_live_bytes(int threads, int live_depth, int tree_depth)
{
    return (bench_tree_size(live_depth) + threads * bench_tree_size(tree_depth)) * BENCH_MT_NODE_BYTES;
}

static BENCH_UNUSED uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------------------
 * Pause log. Writers: the GC's per-collection hook (Boehm's event callback,
 * corral's gc callback), which may run on any thread; so every update is
 * atomic. Reader: main, after every mutator has finished.
 */
#define BENCH_PAUSES_CAPACITY (1u << 18) /* p99 is over the first 262144 pauses */

struct bench_pauses {
    uint64_t count;    /* every pause, recorded or not */
    uint64_t total_ns; /* sum of every pause */
    uint64_t max_ns;
    uint64_t ns[BENCH_PAUSES_CAPACITY]; /* the first BENCH_PAUSES_CAPACITY, in order */
};

/* always_inline: corral calls its gc callback from runtime C code, so the
 * (managed) callback must make no call that could become a statepoint. */
static inline __attribute__((always_inline, unused)) void bench_pauses_record(struct bench_pauses *pauses,
                                                                             uint64_t ns)
{
    uint64_t index = __atomic_fetch_add(&pauses->count, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&pauses->total_ns, ns, __ATOMIC_RELAXED);
    uint64_t max = __atomic_load_n(&pauses->max_ns, __ATOMIC_RELAXED);
    while (ns > max &&
           !__atomic_compare_exchange_n(&pauses->max_ns, &max, ns, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    if (index < BENCH_PAUSES_CAPACITY)
        pauses->ns[index] = ns;
}

static BENCH_UNUSED uint64_t bench_pauses_stored(const struct bench_pauses *pauses)
{
    return pauses->count < BENCH_PAUSES_CAPACITY ? pauses->count : BENCH_PAUSES_CAPACITY;
}

/* Heapsort: no qsort, whose comparator would be a managed callback called
 * from libc in corral's build. */
static BENCH_UNUSED void bench_sort_u64(uint64_t *values, uint64_t count)
{
    if (count < 2)
        return;
    for (uint64_t start = count / 2; start-- > 0;) {
        for (uint64_t root = start, child; (child = 2 * root + 1) < count; root = child) {
            if (child + 1 < count && values[child + 1] > values[child])
                child++;
            if (values[root] >= values[child])
                break;
            uint64_t swap = values[root];
            values[root] = values[child];
            values[child] = swap;
        }
    }
    for (uint64_t end = count - 1; end > 0; end--) {
        uint64_t swap = values[0];
        values[0] = values[end];
        values[end] = swap;
        for (uint64_t root = 0, child; (child = 2 * root + 1) < end; root = child) {
            if (child + 1 < end && values[child + 1] > values[child])
                child++;
            if (values[root] >= values[child])
                break;
            swap = values[root];
            values[root] = values[child];
            values[child] = swap;
        }
    }
}

/* The given percentile (1..100) of the stored pauses by nearest rank; sorts a
 * copy so the log keeps its order. */
static BENCH_UNUSED uint64_t bench_pauses_percentile(const struct bench_pauses *pauses, unsigned percent)
{
    uint64_t stored = bench_pauses_stored(pauses);
    if (stored == 0)
        return 0;
    uint64_t *sorted = malloc(stored * sizeof *sorted);
    if (!sorted)
        return pauses->max_ns;
    memcpy(sorted, pauses->ns, stored * sizeof *sorted);
    bench_sort_u64(sorted, stored);
    uint64_t rank = (stored * percent + 99) / 100; /* ceil(percent / 100 * n), 1-based */
    uint64_t value = sorted[rank - 1];
    free(sorted);
    return value;
}

static BENCH_UNUSED uint64_t bench_pauses_p99(const struct bench_pauses *pauses)
{
    return bench_pauses_percentile(pauses, 99);
}

/* "NAME_count=N NAME_p50_ms=F NAME_p99_ms=F" into out, for the extra keys of
 * a RESULT line that reports one kind of pause apart (corral's minor GCs). */
static BENCH_UNUSED void bench_pauses_keys(char *out, size_t size, const char *name,
                                           const struct bench_pauses *pauses)
{
    snprintf(out, size, "%s_count=%llu %s_p50_ms=%.3f %s_p99_ms=%.3f", name, (unsigned long long)pauses->count,
             name, (double)bench_pauses_percentile(pauses, 50) / 1e6, name,
             (double)bench_pauses_percentile(pauses, 99) / 1e6);
}

/* Writes the log to $BENCH_PAUSE_FILE (milliseconds, one per line). */
static BENCH_UNUSED void bench_pauses_write(const struct bench_pauses *pauses)
{
    const char *path = getenv("BENCH_PAUSE_FILE");
    if (!path || !*path)
        return;
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "bench: cannot write BENCH_PAUSE_FILE=%s: %s\n", path, strerror(errno));
        return;
    }
    uint64_t stored = bench_pauses_stored(pauses);
    for (uint64_t i = 0; i < stored; i++)
        fprintf(out, "%.4f\n", (double)pauses->ns[i] / 1e6);
    fclose(out);
}

/* ---------------------------------------------------------------------------
 * Arguments and checks
 */

/* argv[index] as a long in [min, max], or fallback when absent; a malformed or
 * out-of-range value is an error naming the argument. */
static BENCH_UNUSED long bench_arg_long(int argc, char **argv, int index, const char *name, long fallback,
                                        long min, long max)
{
    if (index >= argc)
        return fallback;
    char *end;
    errno = 0;
    long value = strtol(argv[index], &end, 10);
    if (errno || end == argv[index] || *end || value < min || value > max) {
        fprintf(stderr, "%s: argument %d (%s) is '%s'; expected an integer in [%ld, %ld]\n", argv[0], index,
                name, argv[index], min, max);
        exit(BENCH_EXIT_USAGE);
    }
    return value;
}

/* A benchmark that computes a wrong answer must fail loudly, never report a time. */
static BENCH_UNUSED void bench_check_long(const char *bench, const char *impl, const char *what, long got,
                                          long expected)
{
    if (got == expected)
        return;
    fprintf(stderr, "%s/%s: check failed: %s is %ld, expected %ld\n", bench, impl, what, got, expected);
    printf("RESULT bench=%s impl=%s status=fail\n", bench, impl);
    fflush(stdout);
    exit(BENCH_EXIT_CHECK);
}

/* An allocation the heap limit refused: reported as a result, not a crash. */
static BENCH_UNUSED void bench_out_of_memory(const char *bench, const char *impl)
{
    fprintf(stderr, "%s/%s: out of memory (heap limit too small)\n", bench, impl);
    printf("RESULT bench=%s impl=%s status=oom\n", bench, impl);
    fflush(stdout);
    exit(BENCH_EXIT_OOM);
}

/* ---------------------------------------------------------------------------
 * The RESULT line
 */
struct bench_result {
    const char *bench;             /* "gcbench", "binary-trees", "mt-trees" */
    const char *impl;              /* "corral", "boehm", "malloc" */
    int threads;                   /* mutator threads */
    const char *params;            /* "depth:21" ... (no spaces) */
    uint64_t wall_ns;              /* the benchmark's own timed region */
    long gc_count;                 /* -1: not applicable */
    const struct bench_pauses *pauses; /* NULL: not applicable */
    const char *extra;             /* more "key=value" pairs, or NULL */
};

static BENCH_UNUSED void bench_print_ms_field(const char *key, int known, uint64_t ns)
{
    if (known)
        printf(" %s=%.3f", key, (double)ns / 1e6);
    else
        printf(" %s=-", key);
}

static BENCH_UNUSED void bench_print_result(const struct bench_result *result)
{
    const struct bench_pauses *pauses = result->pauses;
    int timed = pauses != NULL; /* a collector that never collected paused 0 ms */
    printf("RESULT bench=%s impl=%s threads=%d params=%s status=ok", result->bench, result->impl,
           result->threads, result->params);
    bench_print_ms_field("wall_ms", 1, result->wall_ns);
    if (result->gc_count >= 0)
        printf(" gc_count=%ld", result->gc_count);
    else
        printf(" gc_count=-");
    bench_print_ms_field("pause_total_ms", timed, timed ? pauses->total_ns : 0);
    bench_print_ms_field("pause_max_ms", timed, timed ? pauses->max_ns : 0);
    bench_print_ms_field("pause_p99_ms", timed, timed ? bench_pauses_p99(pauses) : 0);
    if (result->extra && *result->extra)
        printf(" %s", result->extra);
    printf("\n");
    fflush(stdout);
    if (pauses)
        bench_pauses_write(pauses);
}

#endif /* CORRAL_BENCH_H */
