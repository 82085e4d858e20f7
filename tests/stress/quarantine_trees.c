/* quarantine_trees — a correct managed program for stress_modes.t: THREADS
 * threads (argument, default 1) each keep a long-lived tree while building
 * garbage trees and collecting, and check the long-lived tree's checksum
 * after every collection. Under CORRAL_GC_STRESS=quarantine,move-all every
 * collection moves every tree and quarantines the memory it vacated, so any
 * reference the runtime failed to relocate would fault: the program must
 * print "trees: ok" and exit 0 (no false positives).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../managed/trees.h"

enum { ROUNDS = 30, LONG_LIVED_DEPTH = 10, GARBAGE_DEPTH = 8 };

static long run_trees(void)
{
    long failures = 0;
    noderef kept = make_tree(LONG_LIVED_DEPTH);
    for (int round = 0; round < ROUNDS; round++) {
        make_tree(GARBAGE_DEPTH);
        if (round % 3 == 0)
            corral_collect();
        failures += checksum(kept) != expected_checksum(LONG_LIVED_DEPTH);
    }
    return failures;
}

static void *worker(void *arg)
{
    long *failures = arg;
    if (corral_thread_attach() != 0) {
        *failures = -1;
        return NULL;
    }
    *failures = run_trees();
    corral_thread_detach();
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    if (threads < 1 || threads > 16 || corral_init(NULL) != 0)
        return 2;
    long failures[16] = {0};
    pthread_t ids[16];
    for (int i = 0; i < threads; i++)
        if (pthread_create(&ids[i], NULL, worker, &failures[i]) != 0)
            return 2;
    long total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(ids[i], NULL);
        total += failures[i];
    }
    printf("trees: %s (%d threads, %ld bad checksums)\n", total ? "FAILED" : "ok", threads, total);
    return total ? 1 : 0;
}
