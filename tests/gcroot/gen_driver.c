/* gen_driver.c — plain C (compiled by the C compiler, not by corralc) that
 * runs a gcroot-gen module (gcroot_gen.c): the object layouts the module
 * names, the unmanaged C it calls, and main, which runs gcgen_thread in
 * THREADS threads for ROUNDS rounds each.
 *
 *   PROGRAM [THREADS [ROUNDS]]      defaults: 1 2
 *
 * Standard output is one line, "checksum 0x...", when every thread got the
 * same checksum in every round (what gcroot-gen --expect prints for a right
 * one); otherwise each result, and exit status 1. Standard error ends with
 * "gcgen: N collections".
 */
#include <corral.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Objects of the module: a header, R references, then I 64-bit integers. */
static const uint32_t ref_offsets[] = {8, 16, 24, 32};
#define GCGEN_TYPE(R, I)                                                                    \
    const corral_type gcgen_type_##R##_##I = {                                              \
        CORRAL_TYPE_SIGNATURE, "gcgen_" #R "_" #I, 8 * (1 + (R) + (I)), 0, 0, (R),          \
        (R) ? ref_offsets : 0, 0, 0, 0, 0}
#define GCGEN_TYPES(R) GCGEN_TYPE(R, 0); GCGEN_TYPE(R, 1); GCGEN_TYPE(R, 2); GCGEN_TYPE(R, 3)
GCGEN_TYPE(0, 1);
GCGEN_TYPE(0, 2);
GCGEN_TYPE(0, 3);
GCGEN_TYPES(1);
GCGEN_TYPES(2);
GCGEN_TYPES(3);
GCGEN_TYPES(4);

/* Called from the module through a GC transition; gcroot_gen.c's model of
 * the program computes the same. */
uint64_t gcgen_unmanaged_mix(uint64_t a, uint64_t b);
uint64_t gcgen_unmanaged_mix(uint64_t a, uint64_t b)
{
    return (a * UINT64_C(0xD6E8FEB86659FD93)) ^ (b + UINT64_C(0x2545F4914F6CDD1D));
}

/* The module's thread start routine: job is { rounds, results[rounds] }. */
void *gcgen_thread(void *job);

enum { MAX_THREADS = 16, MAX_ROUNDS = 100 };

int main(int argc, char **argv)
{
    long threads = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
    long rounds = argc > 2 ? strtol(argv[2], NULL, 10) : 2;
    if (threads < 1 || threads > MAX_THREADS || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: %s [THREADS (1..%d) [ROUNDS (1..%d)]]\n", argv[0], MAX_THREADS,
                MAX_ROUNDS);
        return 2;
    }
    if (corral_init(NULL) != CORRAL_OK) {
        fprintf(stderr, "gcgen: corral_init: %s\n", corral_last_error());
        return 1;
    }
    static uint64_t jobs[MAX_THREADS][1 + MAX_ROUNDS];
    pthread_t ids[MAX_THREADS];
    for (long t = 0; t < threads; t++) {
        jobs[t][0] = (uint64_t)rounds;
        if (corral_thread_create(&ids[t], gcgen_thread, jobs[t]) != 0) {
            fprintf(stderr, "gcgen: corral_thread_create failed\n");
            return 1;
        }
    }
    for (long t = 0; t < threads; t++)
        pthread_join(ids[t], NULL);
    int same = 1;
    for (long t = 0; t < threads; t++)
        for (long r = 1; r <= rounds; r++)
            same &= jobs[t][r] == jobs[0][1];
    if (same) {
        printf("checksum 0x%016" PRIx64 "\n", jobs[0][1]);
    } else {
        for (long t = 0; t < threads; t++)
            for (long r = 1; r <= rounds; r++)
                printf("thread %ld round %ld: checksum 0x%016" PRIx64 "\n", t, r, jobs[t][r]);
    }
    corral_stats stats;
    corral_get_stats(&stats);
    fprintf(stderr, "gcgen: %llu collections\n", (unsigned long long)stats.collections);
    corral_shutdown();
    return same ? 0 : 1;
}
