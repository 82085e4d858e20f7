/* test_messages.c — what the runtime prints when something goes wrong reads
 * right: the stress log names a thread once, a fatal report without stress
 * gives no seed, API misuse names thread states rather than C expressions,
 * an out-of-memory report's "in use" fits its maximum, and a thread that
 * exits attached is detached (with a warning) instead of hanging the next
 * collection. Each scenario runs in a forked child whose stdout and stderr
 * are captured, with a timeout. */
#include <corral.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "c_trees.h"
#include "corral_test.h"
#include "run_program.h"

typedef struct scenario {
    void (*run)(void);
    const char *settings;
} scenario;

static void scenario_child(void *context)
{
    const scenario *what = context;
    run_setenv_list(what->settings);
    what->run();
}

typedef run_result scenario_result;

/* Runs run() in a child with settings in its environment. */
static void run_scenario(scenario_result *result, void (*run)(void), const char *settings,
                         double timeout)
{
    scenario what = {run, settings};
    free(result->output);
    *result = run_child(scenario_child, &what, timeout);
}

static void allocate_trees(void)
{
    test_start("", true);
    for (int i = 0; i < 4; i++)
        (void)make_tree(3);
    corral_thread_detach();
}

static void alloc_while_unmanaged(void)
{
    test_start("", true);
    corral_enter_unmanaged();
    (void)corral_alloc(&node_type);
}

static scenario_result result;

static void stress_log_and_seed(void)
{
    run_scenario(&result, allocate_trees, "CORRAL_LOG=stress CORRAL_GC_STRESS=alloc:1", 60);
    like_str(result.output, "corral: stress: alloc at allocation #",
             "the stress log has its lines");
    ok(!strstr(result.output, "thread thread"), "the stress log names a thread once");

    run_scenario(&result, alloc_while_unmanaged, "", 60);
    like_str(result.output, "corral: fatal:", "corral_alloc while UNMANAGED is fatal");
    ok(!strstr(result.output, "seed"), "without stress the fatal report gives no seed");
    run_scenario(&result, alloc_while_unmanaged, "CORRAL_GC_STRESS=alloc:1 CORRAL_GC_SEED=99", 60);
    like_str(result.output, "seed: 99", "under stress the fatal report gives the seed");
}

static void fatal_names_states(void)
{
    run_scenario(&result, alloc_while_unmanaged, "", 60);
    like_str(result.output, "thread 1 is UNMANAGED", "the report names the thread's state");
    ok(!strstr(result.output, "__c11") && !strstr(result.output, "atomic_load"),
       "the report shows no C expression");
}

/* A chain of nodes that stays reachable until the heap runs out. */
static void *grow_chain(void *arg)
{
    (void)arg;
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle chain = corral_handle_new(NULL);
    for (;;) {
        node *link = corral_alloc(&node_type);
        link->left = *chain;
        *chain = link;
    }
    corral_handle_scope_close(scope);
    return NULL;
}

/* Several threads at once: each checks the budget as it takes a TLAB. */
static void exhaust_heap(void)
{
    test_start("", false);
    pthread_t threads[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&threads[i], NULL, grow_chain, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
}

/* The overshoot is a race: several runs give it a chance to show. */
static void out_of_memory_report(void)
{
    size_t worst_in_use = 0, maximum = 0;
    int reports = 0;
    for (int run = 0; run < 8; run++) {
        run_scenario(&result, exhaust_heap, "CORRAL_HEAP_MAX=4M CORRAL_HEAP_MIN=4M", 120);
        const char *report = strstr(result.output, "corral: out of memory");
        const char *heap = report ? strstr(report, "(heap ") : NULL;
        const char *limit = report ? strstr(report, "maximum ") : NULL;
        if (!heap || !limit)
            continue;
        reports++;
        size_t in_use = strtoull(heap + 6, NULL, 10);
        maximum = strtoull(limit + 8, NULL, 10);
        if (in_use > worst_in_use)
            worst_in_use = in_use;
    }
    ok(reports == 8 && maximum > 0, "each run reports in use and maximum (%d of 8)", reports);
    ok(worst_in_use <= maximum, "in use (at most %zu) fits the maximum %zu", worst_in_use,
       maximum);
}

static void *attach_and_exit(void *arg)
{
    (void)arg;
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    return NULL; /* no corral_thread_detach */
}

static void *exit_now(void *arg)
{
    pthread_exit(arg);
}

/* Leaves from a nested managed segment, as a VM's thread-exit builtin might. */
static void *attach_and_exit_inside_call(void *arg)
{
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    corral_enter_unmanaged();
    return corral_call_managed(exit_now, arg);
}

static void collect_after_attached_exit(void)
{
    test_start("", true);
    pthread_t thread;
    pthread_create(&thread, NULL, attach_and_exit, NULL);
    pthread_join(thread, NULL);
    pthread_create(&thread, NULL, attach_and_exit_inside_call, NULL);
    pthread_join(thread, NULL);
    corral_collect();
    printf("collected\n");
}

static void thread_exit_without_detach(void)
{
    run_scenario(&result, collect_after_attached_exit, "", 20);
    ok(!result.timed_out && strstr(result.output, "collected"),
       "a thread that exits attached does not hold up the next collection");
    like_str(result.output, "thread 2 (tid ", "the warning names the thread");
    like_str(result.output, "exited without corral_thread_detach; detached it at its exit",
             "and says it was detached at its exit");
    like_str(result.output, "thread 3 (tid ",
             "a thread that calls pthread_exit inside corral_call_managed is detached too");
    if (result.timed_out)
        diag("%.2000s", result.output);
}

/* Ends the thread without pthread's clean-up, so no destructor detaches it. */
static void *attach_and_vanish(void *arg)
{
    (void)arg;
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    syscall(SYS_exit, 0);
    return NULL;
}

static void collect_after_vanished_thread(void)
{
    test_start("", true);
    pthread_t thread;
    pthread_create(&thread, NULL, attach_and_vanish, NULL);
    sleep(1);
    corral_collect();
    printf("collected\n");
}

static void vanished_thread_reported(void)
{
    run_scenario(&result, collect_after_vanished_thread, "", 30);
    ok(!result.timed_out, "a collection waiting for a thread that no longer exists ends");
    like_str(result.output, "thread 2 (tid ", "the report names the thread and its tid");
    like_str(result.output, "no longer exists but is still attached",
             "and says the thread no longer exists");
}

int main(void)
{
    stress_log_and_seed();
    fatal_names_states();
    out_of_memory_report();
    thread_exit_without_detach();
    vanished_thread_reported();
    return done_testing();
}
