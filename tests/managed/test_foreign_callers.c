/* Managed code that C calls from threads, and at times, the program did
 * not arrange: a thread pool of plain C, pthread_key destructors (after the
 * thread detached), trace hooks on the collector's own threads, and atexit
 * handlers and destructors after main returns, and C calling a managed
 * function by name; and threads that end by pthread_exit. Before 2026-11-29 the first allocation in a
 * pool thread or a destructor stopped the program ("corral_alloc: the
 * calling thread is not attached"), and an allocating atexit handler
 * stopped it in the stack walk ("a managed return address without a
 * stackmap record ... libc.so.6"): main had returned with its thread still
 * MANAGED; a destructor function, called by the C library directly, ran
 * managed code while the thread was in C. Now a callback's entry attaches a C thread until it exits
 * (threads/attach.c), and main leaves managed code as it returns
 * (CORRAL_ABI_MAIN_RETURNS). Built with corralc at -O0 and -O2. */
#include <corral.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corral_test.h"
#include "run_program.h"
#include "trees.h"

/* Plain C from unmanaged_helpers.c and foreign_callers_c.c. */
long unmanaged_pool_run(long (*work)(long), int threads, long calls);
long unmanaged_call_from_key_destructor(long (*work)(long), long argument, int call_in_body);
long c_calls_by_name(long x);
long c_thread_calls_by_name(long x);

/* Builds a tree of depth 3 whose nodes hold x (a collection at each
 * allocation moves what was made) and returns the sum of their values. */
static long tree_sum(noderef n)
{
    return n ? n->value + tree_sum(n->left) + tree_sum(n->right) : 0;
}

static noderef filled_tree(int depth, long x)
{
    noderef n = new_node(x);
    if (depth > 0) {
        n->left = filled_tree(depth - 1, x);
        n->right = filled_tree(depth - 1, x);
    }
    return n;
}

static long boxed_work(long x)
{
    return tree_sum(filled_tree(3, x)) / 15; /* 15 nodes: x again */
}

/* How many threads are attached, from the thread dump's count. */
static int attached_threads(void)
{
    int null_fd = open("/dev/null", O_WRONLY);
    int count = corral_dump_threads(null_fd);
    close(null_fd);
    return count;
}

/* Runs what(), with stderr going to a temporary file; returns what it wrote
 * (the caller frees it). */
static char *stderr_of(void (*what)(void *), void *context)
{
    fflush(stderr);
    FILE *log = tmpfile();
    int saved = dup(2);
    dup2(fileno(log), 2);
    what(context);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    long size = ftell(log);
    char *text = calloc(1, size > 0 ? (size_t)size + 1 : 1);
    rewind(log);
    if (size > 0 && fread(text, 1, (size_t)size, log) != (size_t)size)
        text[0] = 0;
    fclose(log);
    return text;
}

static long pool_sum;
static void run_pool(void *unused)
{
    (void)unused;
    pool_sum = unmanaged_pool_run(boxed_work, 4, 300);
}

static void thread_pool(void *settings)
{
    test_start(settings, true);
    corral_stats before, after;
    corral_get_stats(&before);
    char *warnings = stderr_of(run_pool, NULL);
    corral_get_stats(&after);
    is_int(pool_sum, 4 * (299 * 300 / 2),
           "4 threads of a C pool run allocating callbacks: every result right");
    ok(after.collections - before.collections > 100, "collections meanwhile (%llu)",
       (unsigned long long)(after.collections - before.collections));
    is_int(attached_threads(), 1, "the pool's threads were detached as they exited");
    ok(!strstr(warnings, "exited without corral_thread_detach"),
       "without the warning for threads the program attached");
    if (*warnings)
        diag("stderr: %s", warnings);
    free(warnings);
    /* The same threads again: each attaches anew. */
    is_int(unmanaged_pool_run(boxed_work, 2, 50), 2 * (49 * 50 / 2), "a second pool runs too");
    is_int(attached_threads(), 1, "and leaves nothing attached");
}

static long destructor_results[2];
static void run_destructors(void *unused)
{
    (void)unused;
    destructor_results[0] = unmanaged_call_from_key_destructor(boxed_work, 41, 0);
    destructor_results[1] = unmanaged_call_from_key_destructor(boxed_work, 42, 1);
}

static void key_destructors(void *settings)
{
    test_start(settings, true);
    char *warnings = stderr_of(run_destructors, NULL);
    is_int(destructor_results[0], 41,
           "a pthread_key destructor of a thread that never ran managed code runs an "
           "allocating callback");
    is_int(destructor_results[1], 42,
           "one of a thread that ran a callback before, in a round after the runtime's "
           "destructor detached it");
    is_int(attached_threads(), 1, "both threads were detached");
    ok(!strstr(warnings, "exited without corral_thread_detach"), "without a warning");
    if (*warnings)
        diag("stderr: %s", warnings);
    free(warnings);
}

/* Called by name from plain C (foreign_callers_c.c): external, so its
 * symbol is its entry. */
long foreign_by_name(long x)
{
    noderef n = filled_tree(2, x);
    corral_collect();
    return tree_sum(n) / 7; /* 7 nodes: x again */
}

static void c_calls_managed_by_name(void *settings)
{
    test_start(settings, true);
    long sum = 0;
    for (long i = 0; i < 50; i++)
        sum += c_calls_by_name(i);
    is_int(sum, 49 * 50 / 2 + 50, "C called from managed code calls a managed function by name");
    is_int(c_thread_calls_by_name(77), 77, "so does a thread of plain C nobody attached");
    is_int(foreign_by_name(5), 5, "and managed code calls it directly");
}

/* Threads managed code started (corral_pthread_create) that end by
 * pthread_exit, while another thread collects back to back: once the
 * routine attached itself once more (through a helper, so the pass still
 * starts it attached), once inside a callback C called (a nested segment).
 * The exit unwinds their managed frames; corral_pthread_exit drops them
 * first, so no collection walks them as they are overwritten. */
CORRAL_UNMANAGED void *unmanaged_call_back(void *(*callback)(void *), void *arg);

/* Collects back to back until stop_collecting is set (here and in the
 * atexit child). */
static _Atomic int stop_collecting;
static void *collect_until_stopped(void *unused)
{
    (void)unused;
    while (!stop_collecting) {
        filled_tree(2, 1);
        corral_collect();
    }
    return NULL;
}

static __attribute__((noinline)) void attach_again(void)
{
    corral_thread_attach(); /* the routine's own pair, as for plain pthread_create */
}

static void *attach_then_exit(void *unused)
{
    (void)unused;
    attach_again();
    noderef n = new_node(8);
    pthread_exit((void *)(intptr_t)n->value);
}

static void *exit_in_callback(void *unused)
{
    (void)unused;
    noderef n = filled_tree(1, 3);
    pthread_exit((void *)(intptr_t)tree_sum(n));
}

static void *exit_inside_c(void *unused)
{
    (void)unused;
    noderef kept = new_node(1);
    void *result = unmanaged_call_back(exit_in_callback, NULL); /* never returns */
    return (void *)(intptr_t)(kept->value + (intptr_t)result);
}

static long exits_right;
static void start_and_end_threads(void *unused)
{
    (void)unused;
    pthread_t collector;
    pthread_create(&collector, NULL, collect_until_stopped, NULL);
    for (int round = 0; round < 20; round++) {
        pthread_t threads[2];
        void *results[2];
        pthread_create(&threads[0], NULL, attach_then_exit, NULL);
        pthread_create(&threads[1], NULL, exit_inside_c, NULL);
        for (int t = 0; t < 2; t++)
            pthread_join(threads[t], &results[t]);
        exits_right += results[0] == (void *)8 && results[1] == (void *)9;
    }
    stop_collecting = 1;
    pthread_join(collector, NULL);
}

static void threads_ended_early(void *settings)
{
    test_start(settings, true);
    char *warnings = stderr_of(start_and_end_threads, NULL);
    is_int(exits_right, 20,
           "20 rounds of two threads ending by pthread_exit (one inside a callback) while "
           "another collects: each result right");
    noderef kept = new_node(9);
    for (int i = 0; i < 20; i++)
        filled_tree(3, i);
    corral_collect();
    is_int(kept->value + attached_threads(), 9 + 1, "collections go on; each was detached");
    ok(!strstr(warnings, "exited without corral_thread_detach"),
       "without the warning: the runtime started them attached");
    if (*warnings)
        diag("stderr: %s", warnings);
    free(warnings);
}

/* A type traced by a hook of managed code: the collector calls it through
 * the hook's entry, on its own threads, which must not attach. */
struct pair {
    corral_header header;
    corral_ref first, second;
    long value;
};
typedef struct pair CORRAL_REF *pairref;

static long hook_calls;
static CORRAL_NOPOLL void trace_pair(void *object, corral_visit_fn visit, void *context)
{
    struct pair *pair = object;
    visit((void **)&pair->first, context);
    visit((void **)&pair->second, context);
    __atomic_add_fetch(&hook_calls, 1, __ATOMIC_RELAXED);
}

static const corral_type pair_type = {CORRAL_TYPE_SIGNATURE, "pair", sizeof(struct pair), 0, 0,
                                      0, NULL, trace_pair, NULL, 0, NULL};

static pairref new_pair(long value, corral_ref first, corral_ref second)
{
    pairref pair = (pairref)corral_alloc(&pair_type);
    pair->first = first;
    pair->second = second;
    pair->value = value;
    return pair;
}

static long pair_sum(corral_ref ref)
{
    pairref pair = (pairref)ref;
    return pair ? pair->value + pair_sum(pair->first) + pair_sum(pair->second) : 0;
}

static void trace_hooks(void *settings)
{
    test_start(settings, true);
    corral_ref list = NULL;
    for (long i = 1; i <= 2000; i++) {
        list = (corral_ref)new_pair(i, list, (corral_ref)new_pair(2 * i, NULL, NULL));
        if (i % 500 == 0)
            corral_collect();
    }
    corral_collect();
    is_int(pair_sum(list), 3 * (2000 * 2001 / 2),
           "pairs traced by a managed hook survive collections");
    ok(hook_calls > 2000, "the hook ran (%ld calls), on the collector's threads, not attached",
       hook_calls);
}

/* The child of the atexit subtest: main returns (with 3) while a managed
 * thread collects; the handler stops and joins it, then allocates. */
static noderef kept;
static pthread_t collector;

static void at_exit(void)
{
    stop_collecting = 1;
    pthread_join(collector, NULL);
    noderef n = new_node(41);
    n->left = kept;
    corral_collect();
    printf("atexit handler: %ld\n", n->value + n->left->value);
}

/* A destructor: the C library runs it after the atexit handlers. */
static bool in_atexit_child;
__attribute__((destructor)) static void at_unload(void)
{
    if (!in_atexit_child)
        return;
    noderef n = new_node(40);
    corral_collect();
    n->left = kept;
    printf("destructor: %ld\n", n->value + n->left->value);
}

static int atexit_child(void)
{
    in_atexit_child = true;
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    corral_global_root_add((corral_ref *)&kept);
    kept = new_node(1);
    atexit(at_exit);
    pthread_create(&collector, NULL, collect_until_stopped, NULL);
    usleep(20000);
    return 3;
}

static void atexit_handlers(void *self)
{
    run_result run = run_program_with(self, "atexit", "CORRAL_GC_STRESS=alloc:1,move-all,poison",
                                      60);
    ok(!run.timed_out && WIFEXITED(run.status) && WEXITSTATUS(run.status) == 3,
       "main returns 3 while another thread collects: the process exits with 3");
    like_str(run.output, "atexit handler: 42\ndestructor: 41\n",
             "an atexit handler joins that thread, allocates and collects after main returned; "
             "then a destructor (__attribute__((destructor))) does");
    free(run.output);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "atexit") == 0)
        return atexit_child();
    plan(6);
    tap_subtest("a thread pool of plain C", 120, thread_pool,
                "CORRAL_HEAP_MIN=1M CORRAL_GC_STRESS=alloc:random:8,move-all,poison "
                "CORRAL_GC_VERIFY=after");
    tap_subtest("pthread_key destructors", 120, key_destructors,
                "CORRAL_GC_STRESS=alloc:1,move-all,poison");
    tap_subtest("C calling managed functions by name", 120, c_calls_managed_by_name,
                "CORRAL_GC_STRESS=alloc:1,move-all,poison");
    tap_subtest("threads ended by pthread_exit", 120, threads_ended_early,
                "CORRAL_GC_STRESS=alloc:random:4,move-all,poison");
    tap_subtest("trace hooks of managed code on 4 GC workers", 120, trace_hooks,
                "CORRAL_GC_THREADS=4 CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=after");
    tap_subtest("atexit handlers and destructors after main returns", 120, atexit_handlers,
                argv[0]);
    return done_testing();
}
