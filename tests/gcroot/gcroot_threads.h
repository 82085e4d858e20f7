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

/* Runs worker in c->threads threads under c->settings: it must count no
 * failures (what names what it checks) and at least least collections run. */
static TAP_UNUSED void gcroot_check_case(const gcroot_case *c, void *(*worker)(void *),
                                         const char *what, uint64_t least)
{
    gcroot_run run = gcroot_run_threads(c->threads, c->settings, worker);
    is_int(run.failures, 0, "%d thread(s), %s: %s", c->threads, c->settings, what);
    ok(run.collections >= least, "%llu collections ran (at least %llu)",
       (unsigned long long)run.collections, (unsigned long long)least);
}

/* The settings the gcroot programs run under (docs/gcroot.md, Tests). */
static TAP_UNUSED const char *const gcroot_stress_settings[] = {
    "CORRAL_GC_STRESS=alloc:97 CORRAL_GC_VERIFY=before,after",
    "CORRAL_GC_STRESS=alloc:211,move-all,poison CORRAL_GC_VERIFY=before,after",
    "CORRAL_GC_STRESS=polls,move-all,poison CORRAL_GC_VERIFY=before,after",
};
enum { GCROOT_STRESS_SETTINGS = sizeof gcroot_stress_settings / sizeof gcroot_stress_settings[0] };

/* For gcroot code calling unmanaged C: a collection on both sides of every
 * GC transition. */
static TAP_UNUSED const char *const gcroot_transition_settings[] = {
    "CORRAL_GC_STRESS=transitions CORRAL_GC_VERIFY=before,after",
    "CORRAL_GC_STRESS=transitions,move-all,poison CORRAL_GC_VERIFY=before,after",
};
enum {
    GCROOT_TRANSITION_SETTINGS =
        sizeof gcroot_transition_settings / sizeof gcroot_transition_settings[0]
};

enum { GCROOT_MAX_SETTINGS = 8 };

/* A forked subtest (with a timeout) of body per setting, in 1 and in 4
 * threads: 2 * count tests. */
static TAP_UNUSED void gcroot_subtests(const char *const *settings, int count,
                                       void (*body)(void *))
{
    static gcroot_case cases[2 * GCROOT_MAX_SETTINGS];
    if (count > GCROOT_MAX_SETTINGS)
        bail_out("gcroot_subtests: %d settings, at most %d", count, GCROOT_MAX_SETTINGS);
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
