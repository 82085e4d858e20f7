/* gcroot_threads.h — what the gcroot test drivers share: the node type their
 * IR names (@gcroot_node_type), and running a gcroot worker in N threads
 * under a set of CORRAL_* settings. Include it in one driver per program:
 * it defines gcroot_node_type. */
#ifndef CORRAL_TESTS_GCROOT_THREADS_H
#define CORRAL_TESTS_GCROOT_THREADS_H

#include <corral.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "corral_test.h"

typedef struct node __attribute__((address_space(1))) *noderef;
struct node {
    corral_header header;
    noderef left, right;
    long value;
};
static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
/* Named in the IR: the layout { header, left, right, value } matches. */
const corral_type gcroot_node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);

enum { GCROOT_MAX_THREADS = 8 };

typedef struct gcroot_run {
    long failures;         /* summed over the threads */
    uint64_t collections;  /* during the run */
} gcroot_run;

/* Starts the runtime with settings and runs worker (returning its number of
 * failures through *(long *)arg) in threads threads. */
static TAP_UNUSED gcroot_run gcroot_run_threads(int threads, const char *settings,
                                                void *(*worker)(void *))
{
    test_start(settings, false);
    pthread_t ids[GCROOT_MAX_THREADS];
    long failures[GCROOT_MAX_THREADS] = {0};
    corral_stats before, after;
    corral_get_stats(&before);
    for (int i = 0; i < threads; i++)
        if (corral_thread_create(&ids[i], worker, &failures[i]) != 0)
            bail_out("corral_thread_create failed");
    gcroot_run run = {0};
    for (int i = 0; i < threads; i++) {
        pthread_join(ids[i], NULL);
        run.failures += failures[i];
    }
    corral_get_stats(&after);
    run.collections = after.collections - before.collections;
    return run;
}

typedef struct gcroot_case {
    int threads;
    const char *settings;
} gcroot_case;

/* A forked subtest (with a timeout) of body per setting, in 1 and in 4
 * threads; cases has room for 2 * count. */
static TAP_UNUSED void gcroot_subtests(const char *const *settings, int count, gcroot_case *cases,
                                       void (*body)(void *))
{
    for (int s = 0; s < count; s++)
        for (int t = 0; t < 2; t++) {
            gcroot_case *c = &cases[s * 2 + t];
            *c = (gcroot_case){t ? 4 : 1, settings[s]};
            char name[160];
            snprintf(name, sizeof name, "%d thread(s), %s", c->threads, c->settings);
            tap_subtest(name, 120, body, c);
        }
}

#endif /* CORRAL_TESTS_GCROOT_THREADS_H */
