/* fork() in a multithreaded corral process. The child holds one thread, the
 * one that forked: its first collection must not wait for the parent's
 * other threads (it hung there), its GC workers are gone (it collects
 * alone), and no lock a vanished thread held may block it. Four threads are
 * attached (a collecting main thread, a mutator, a thread sleeping while
 * UNMANAGED and the forking thread), so forks land during collections too;
 * the forking thread forks MANAGED and UNMANAGED in turn. Each child
 * collects, allocates and checks its data; the parent waits for it with a
 * timeout, then checks its own. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "c_trees.h"
#include "corral_test.h"

enum { FORKS = 16 };
#define CHILD_TIMEOUT_SECONDS 10.0

/* Written by the forking thread, read by the others (relaxed: a stop flag). */
static atomic_bool forks_done;
/* Written by any thread of the parent, read after the joins. */
static atomic_long failures;

static void *mutator_main(void *arg)
{
    (void)arg;
    corral_thread_attach();
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(make_tree(7));
    while (!atomic_load_explicit(&forks_done, memory_order_relaxed)) {
        node *tree = make_tree(5);
        if (checksum(tree) != expected_checksum(5) || checksum(*keep) != expected_checksum(7))
            atomic_fetch_add(&failures, 1);
        corral_poll();
    }
    corral_handle_scope_close(scope);
    corral_thread_detach();
    return NULL;
}

static void *sleeper_main(void *arg)
{
    (void)arg;
    corral_thread_attach();
    while (!atomic_load_explicit(&forks_done, memory_order_relaxed)) {
        corral_enter_unmanaged();
        nanosleep(&(struct timespec){0, 300000}, NULL);
        corral_leave_unmanaged();
    }
    corral_thread_detach();
    return NULL;
}

/* In the child: the forking thread alone collects, allocates and checks. */
static _Noreturn void child_main(corral_handle keep)
{
    bool good = checksum(*keep) == expected_checksum(9);
    corral_collect();
    good &= checksum(*keep) == expected_checksum(9);
    for (int i = 0; i < 8; i++) {
        node *tree = make_tree(12); /* about 17 MB in all: automatic collections too */
        good &= checksum(tree) == expected_checksum(12);
    }
    corral_collect();
    good &= checksum(*keep) == expected_checksum(9);
    _exit(good ? 0 : 1);
}

/* Waits for the child UNMANAGED (it blocks); false on a timeout or a failure. */
static bool child_succeeded(pid_t child, int round)
{
    corral_enter_unmanaged();
    double start = tap_now();
    int status = 0;
    pid_t done;
    while ((done = waitpid(child, &status, WNOHANG)) == 0 &&
           tap_now() - start < CHILD_TIMEOUT_SECONDS * tap_timeout_scale())
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    if (done == 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        diag("fork %d: the child did not finish in %.0f s", round, CHILD_TIMEOUT_SECONDS);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        diag("fork %d: the child ended with status %#x", round, status);
    }
    corral_leave_unmanaged();
    return done == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void *forker_main(void *arg)
{
    atomic_int *children_ok = arg;
    corral_thread_attach();
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(make_tree(9));
    for (int round = 0; round < FORKS; round++) {
        bool unmanaged = round % 2;
        fflush(stdout);
        if (unmanaged)
            corral_enter_unmanaged();
        pid_t child = fork();
        if (child == 0) {
            if (unmanaged)
                corral_leave_unmanaged();
            child_main(keep);
        }
        if (unmanaged)
            corral_leave_unmanaged();
        if (child < 0)
            atomic_fetch_add(&failures, 1);
        else if (child_succeeded(child, round))
            atomic_fetch_add(children_ok, 1);
        make_tree(8); /* the parent goes on allocating */
    }
    if (checksum(*keep) != expected_checksum(9))
        atomic_fetch_add(&failures, 1);
    atomic_store_explicit(&forks_done, true, memory_order_relaxed);
    corral_handle_scope_close(scope);
    corral_thread_detach();
    return NULL;
}

static void fork_case(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_THREADS=2 CORRAL_HEAP_MIN=4M", true);
    atomic_int children_ok = 0;
    pthread_t mutator, sleeper, forker;
    pthread_create(&mutator, NULL, mutator_main, NULL);
    pthread_create(&sleeper, NULL, sleeper_main, NULL);
    pthread_create(&forker, NULL, forker_main, &children_ok);
    long collections = 0;
    while (!atomic_load_explicit(&forks_done, memory_order_relaxed)) {
        corral_collect();
        collections++;
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    corral_enter_unmanaged();
    pthread_join(forker, NULL);
    pthread_join(mutator, NULL);
    pthread_join(sleeper, NULL);
    corral_leave_unmanaged();
    diag("%ld collections in the parent during %d forks", collections, FORKS);
    is_int(atomic_load(&children_ok), FORKS, "every child collected and found its data");
    is_int(atomic_load(&failures), 0, "the parent's threads kept their data");
    corral_collect();
    pass("the parent still collects");
}

int main(void)
{
    plan(1);
    tap_subtest("fork from one of 4 attached threads: the child collects alone", 120, fork_case,
                NULL);
    return done_testing();
}
