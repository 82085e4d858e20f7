/* examples/gcroot/main.c — plain C (compiled by the C compiler, not by
 * corralc) that runs lists.ll's example_worker, llvm.gcroot frontend code,
 * in several threads on corral and checks every thread's total.
 *
 *   gcroot-example [THREADS [N [ROUNDS]]]      defaults: 4 200 2000
 * The heap is capped at 4 MiB, so objects move many times.
 */
#include <corral.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The cell lists.ll allocates: { header, next (a reference), value }. */
typedef struct cell {
    corral_header header;
    struct cell *next;
    long value;
} cell;
static const uint32_t cell_refs[] = {offsetof(cell, next)};
const corral_type example_cell_type = CORRAL_STRUCT_TYPE("cell", cell, cell_refs);

/* One thread's work, read by lists.ll at entry: { n, rounds }. */
typedef struct job {
    long n, rounds;
} job;

/* lists.ll, managed code: returns the thread's total as its result. */
void *example_worker(void *job);

enum { MAX_THREADS = 64 };

static long argument(int argc, char **argv, int index, long fallback)
{
    return argc > index ? strtol(argv[index], NULL, 10) : fallback;
}

int main(int argc, char **argv)
{
    long threads = argument(argc, argv, 1, 4), n = argument(argc, argv, 2, 200),
         rounds = argument(argc, argv, 3, 2000);
    if (threads < 1 || threads > MAX_THREADS || n < 1 || rounds < 0) {
        fprintf(stderr, "usage: gcroot-example [THREADS (1..%d) [N [ROUNDS]]]\n", MAX_THREADS);
        return 2;
    }
    corral_options options = {.heap_max = 4 << 20};
    if (corral_init(&options) != CORRAL_OK) {
        fprintf(stderr, "gcroot-example: corral_init: %s\n", corral_last_error());
        return 1;
    }
    pthread_t ids[MAX_THREADS];
    job jobs[MAX_THREADS];
    for (long t = 0; t < threads; t++) {
        jobs[t] = (job){n, rounds};
        if (corral_thread_create(&ids[t], example_worker, &jobs[t]) != 0) {
            fprintf(stderr, "gcroot-example: corral_thread_create failed\n");
            return 1;
        }
    }
    long totals[MAX_THREADS];
    for (long t = 0; t < threads; t++) {
        void *total;
        pthread_join(ids[t], &total);
        totals[t] = (long)(intptr_t)total;
    }
    /* Each round sums the squares 1..n; the kept list adds 1..n once. */
    long expected = rounds * (n * (n + 1) * (2 * n + 1) / 6) + n * (n + 1) / 2;
    int wrong = 0;
    for (long t = 0; t < threads; t++)
        if (totals[t] != expected) {
            fprintf(stderr, "gcroot-example: thread %ld: total %ld, expected %ld\n", t, totals[t],
                    expected);
            wrong++;
        }
    corral_stats stats;
    corral_get_stats(&stats);
    printf("gcroot-example: %ld threads, %ld rounds of %ld cells, %llu collections: %s\n", threads,
           rounds, n, (unsigned long long)stats.collections, wrong ? "WRONG" : "ok");
    corral_shutdown();
    return wrong ? 1 : 0;
}
