/* The GC transition protocol under a race, for every architecture (on
 * AArch64 it runs under qemu: scripts/test --target aarch64). Threads leave
 * and re-enter UNMANAGED in a tight loop while one thread stops the world
 * thousands of times; between leaving and re-entering, a thread counts
 * "managed steps". The stopped-world body checks that no step happens while
 * the world is stopped:
 *
 *   toggler                              coordinator
 *   state := UNMANAGED (release)         epoch := odd (seq_cst CAS)
 *   state := MANAGED   (seq_cst)         read every state (seq_cst) ...
 *   read epoch         (seq_cst)           all PARKED or UNMANAGED -> body:
 *   odd? back to UNMANAGED, wait           steps unchanged for a while?
 *   even: steps++ (managed code runs)    epoch := even
 *
 * A missing StoreLoad barrier on either side lets a toggler read the old
 * even epoch after the coordinator read its old UNMANAGED state: it then
 * counts steps during the body (a lost stop). Real collections are mixed in,
 * with each toggler's tree in a handle checked after every leave. */
#include <corral.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "c_trees.h"
#include "coordinator.h"
#include "corral_test.h"
#include "thread.h"

enum { TOGGLERS = 3, ROUNDS = 3000, BODY_WATCH_READS = 20000 };

/* Written by the test's main thread before and after the togglers run;
 * read by the togglers (relaxed: a stop flag). */
static atomic_bool stop_togglers;
/* steps[i]: written by toggler i only while MANAGED (relaxed increments);
 * read by the stopped-world body (relaxed: any change is the failure). */
static _Atomic unsigned long steps[TOGGLERS];
/* Totals the togglers publish at the end (relaxed, read after join). */
static atomic_long leaves, broken_trees;
/* Togglers attached so far (each adds 1; the main thread waits for all). */
static atomic_int attached;
/* Written and read only by the coordinating thread's body. */
static long steps_during_stops, short_stops;

static void *toggler(void *arg)
{
    unsigned index = (unsigned)(uintptr_t)arg;
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(make_tree(5));
    atomic_fetch_add(&attached, 1);
    long count = 0;
    while (!atomic_load_explicit(&stop_togglers, memory_order_relaxed)) {
        corral_enter_unmanaged();
        corral_leave_unmanaged(); /* races the coordinator's stop */
        atomic_fetch_add_explicit(&steps[index], 1, memory_order_relaxed);
        if (checksum(*keep) != expected_checksum(5))
            atomic_fetch_add(&broken_trees, 1);
        if (++count % 8 == 0)
            corral_poll();
    }
    atomic_fetch_add(&leaves, count);
    corral_handle_scope_close(scope);
    corral_thread_detach();
    return NULL;
}

/* World stopped: every toggler is PARKED or UNMANAGED, so none may step. */
static void watch_steps_from_stw(stop_report *report, void *context)
{
    (void)context;
    if (report->thread_count < TOGGLERS + 1)
        short_stops++;
    unsigned long before[TOGGLERS];
    for (unsigned i = 0; i < TOGGLERS; i++)
        before[i] = atomic_load_explicit(&steps[i], memory_order_relaxed);
    /* Long enough for a running toggler that missed the stop to take a step
     * (no yields: on a loaded machine each one can cost milliseconds). */
    for (unsigned read = 0; read < BODY_WATCH_READS; read++) {
        for (unsigned i = 0; i < TOGGLERS; i++)
            if (atomic_load_explicit(&steps[i], memory_order_relaxed) != before[i]) {
                steps_during_stops++;
                return;
            }
    }
}

static void race_case(void *arg)
{
    test_start((const char *)arg, true);
    pthread_t threads[TOGGLERS];
    for (unsigned i = 0; i < TOGGLERS; i++)
        pthread_create(&threads[i], NULL, toggler, (void *)(uintptr_t)i);
    while (atomic_load(&attached) < TOGGLERS)
        corral_poll();
    corral_thread *self = corral_current_thread;
    long bodies = 0;
    for (long round = 0; round < ROUNDS; round++) {
        if (round % 16 == 15) {
            corral_collect(); /* a real, moving collection now and then */
            continue;
        }
        bodies += world_collect(self, WORLD_EPOCH_OWN, watch_steps_from_stw, NULL, NULL) ==
                  WORLD_COLLECTED;
    }
    atomic_store(&stop_togglers, true);
    corral_enter_unmanaged();
    for (unsigned i = 0; i < TOGGLERS; i++)
        pthread_join(threads[i], NULL);
    corral_leave_unmanaged();
    is_int(steps_during_stops, 0, "no managed step while the world was stopped (%ld stops)",
           bodies);
    is_int(short_stops, 0, "every stop saw all %d threads", TOGGLERS + 1);
    is_int(atomic_load(&broken_trees), 0, "no tree broken by the collections in between");
    ok(atomic_load(&leaves) > ROUNDS, "the togglers raced the stops (%ld leaves)",
       atomic_load(&leaves));
    corral_thread_detach();
}

int main(void)
{
    /* Both ways of closing the Dekker pair (threads/transition.c). */
    static const char *const fences[] = {"fence", "membarrier"};
    enum { FENCES = sizeof fences / sizeof fences[0] };
    plan(FENCES);
    for (unsigned i = 0; i < FENCES; i++) {
        char name[96], settings[96];
        snprintf(name, sizeof name, "%d threads leave UNMANAGED against %d stops (%s)",
                 TOGGLERS, ROUNDS, fences[i]);
        snprintf(settings, sizeof settings, "CORRAL_TRANSITION_FENCE=%s CORRAL_GC_THREADS=2",
                 fences[i]);
        tap_subtest(name, 120, race_case, settings);
    }
    return done_testing();
}
