/* Handshakes through corral_dump_threads: a thread in a call-free loop must
 * be stopped at its poll, a thread blocked in C has the operation run on its
 * behalf, and dumps keep working while collections run and threads come and
 * go: no deadlock, every thread listed with its managed frames. */
#include <corral.h>
#include <pthread.h>
#include <stdatomic.h>

#include "corral_test.h"
#include "spinner.h"
#include "trees.h"

CORRAL_UNMANAGED long unmanaged_blocking_read(int fd);

static atomic_int stop_flag;
static int wake_pipe[2];

static void *blocked(void *arg)
{
    (void)arg;
    unmanaged_blocking_read(wake_pipe[0]);
    return NULL;
}

static void *allocator(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop_flag, memory_order_relaxed))
        make_tree(8);
    return NULL;
}

static void dumps(void *arg)
{
    (void)arg;
    test_start("CORRAL_HEAP_MIN=4M", true);
    if (pipe(wake_pipe) != 0)
        bail_out("pipe");
    pthread_t threads[3];
    corral_thread_create(&threads[0], spinner, &stop_flag);
    corral_thread_create(&threads[1], blocked, NULL);
    corral_thread_create(&threads[2], allocator, NULL);
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    FILE *out = tmpfile();
    int listed = 0, dumps_done = 0;
    for (int i = 0; i < 200; i++) {
        listed = corral_dump_threads(fileno(out));
        dumps_done++;
    }
    corral_stats stats;
    corral_get_stats(&stats);
    atomic_store(&stop_flag, 1);
    if (write(wake_pipe[1], "x", 1) != 1)
        bail_out("write");
    for (int i = 0; i < 3; i++)
        pthread_join(threads[i], NULL);
    fflush(out);
    rewind(out);
    char *text = read_all(out);
    ok(dumps_done == 200 && listed == 4, "200 dumps of 4 threads while they run (%d listed)",
       listed);
    ok(strstr(text, "spinner+") != NULL, "a thread in a call-free loop was stopped at its poll");
    ok(strstr(text, "UNMANAGED\n    #0 blocked+") != NULL,
       "a thread blocked in C was dumped on its behalf, frames named");
    ok(strstr(text, "#0 ") != NULL && strstr(text, "#1 ") != NULL, "managed frames listed");
    ok(stats.collections > 0, "collections ran during the dumps (%llu)",
       (unsigned long long)stats.collections);
    diag("one dump:\n%.*s", (int)(strstr(text + 1, "corral: ") ? strstr(text + 1, "corral: ") - text
                                                                 : (long)strlen(text)),
         text);
}

int main(void)
{
    plan(1);
    tap_subtest("thread dumps by handshake", 120, dumps, NULL);
    return done_testing();
}
