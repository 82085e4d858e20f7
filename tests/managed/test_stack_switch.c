/* Managed code on stacks it switches between: a generator and fibers made
 * with getcontext, makecontext and swapcontext, a switch routine of the
 * embedder's (corral_stack_suspend), call pins held across a switch, a
 * fiber that leaves by setcontext, fibers on several threads, and the
 * broken switches the runtime names. Before 2026-11-29 the pass refused
 * getcontext, and a program switching stacks from a C helper stopped at
 * the first collection on the other stack ("walked past the segment's
 * outermost managed frame"); the stack it left was never walked. Now the
 * pass calls the runtime's swapcontext, which sets the running stack's
 * managed frames aside, walked by every collection (threads/stack_switch.c).
 * Built with corralc at -O0 and -O2. */
#include <corral.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "corral_test.h"
#include "run_program.h"
#include "trees.h"

/* Plain C from stack_switch_c.c. */
void c_switch(ucontext_t *from, ucontext_t *to);
void c_switch_unannounced(ucontext_t *from, ucontext_t *to);
void c_make_fiber(ucontext_t *context, void *stack, size_t size, ucontext_t *link,
                  void *(*body)(void *));
void c_resume_on_another_thread(ucontext_t *from, ucontext_t *to);
/* AddressSanitizer's runtime, when the test is linked with it. */
extern void __asan_init(void) __attribute__((weak));

enum { STACK_SIZE = 256 * 1024, GENERATED = 1000, FIBERS = 6, THREADS = 3 };

/* A list threaded through left, newest first: a lost or stale node changes
 * its sum. */
static noderef push(noderef list, long value)
{
    noderef n = new_node(value);
    n->left = list;
    return n;
}

static long list_sum(noderef list)
{
    long sum = 0;
    for (; list; list = list->left)
        sum += list->value;
    return sum;
}

static void make_context(ucontext_t *context, char *stack, ucontext_t *link, void (*body)(void))
{
    getcontext(context);
    context->uc_stack.ss_sp = stack;
    context->uc_stack.ss_size = STACK_SIZE;
    context->uc_link = link;
    makecontext(context, body, 0);
}

/* --- a generator: each value computed from a list on its own stack */

static ucontext_t main_context, generator_context;
static long generated; /* the generator's latest value; -1 once it returned */

/* Pushes 1, 2, ... GENERATED onto a list on the running stack, publishing
 * each sum, and switches back to main after each. */
static void generate(void (*switch_back)(void))
{
    noderef mine = NULL;
    for (long i = 1; i <= GENERATED; i++) {
        mine = push(mine, i);
        generated = list_sum(mine);
        switch_back();
    }
    generated = -1;
}

static void back_by_swapcontext(void)
{
    swapcontext(&generator_context, &main_context);
}

static void generator(void)
{
    generate(back_by_swapcontext);
}

static char *dump_of_threads(void)
{
    FILE *file = tmpfile();
    corral_dump_threads(fileno(file));
    long size = ftell(file);
    char *text = calloc(1, (size_t)size + 1);
    rewind(file);
    if (fread(text, 1, (size_t)size, file) != (size_t)size)
        text[0] = 0;
    fclose(file);
    return text;
}

static void generator_on_its_stack(void *settings)
{
    test_start(settings, true);
    char *stack = malloc(STACK_SIZE);
    make_context(&generator_context, stack, &main_context, generator);
    noderef mine = NULL;
    long rounds = 0, wrong = 0;
    for (;;) {
        swapcontext(&main_context, &generator_context);
        if (generated < 0)
            break;
        rounds++;
        mine = push(mine, 3 * rounds);
        wrong += generated != rounds * (rounds + 1) / 2;
        if (rounds == 1) {
            char *dump = dump_of_threads();
            like_str(dump, "generator", "the thread dump lists the generator's frames");
            like_str(dump, "(suspended stack 1)", "as a suspended stack");
            free(dump);
        }
    }
    is_int(rounds, GENERATED, "the generator ran to its end");
    is_int(wrong, 0, "each value it computed from the list on its stack was right");
    is_int(list_sum(mine), 3L * GENERATED * (GENERATED + 1) / 2, "main's list is intact too");
    free(stack);
}

/* --- fibers, round robin, with a scheduler per thread */

typedef struct scheduler {
    ucontext_t home;
    ucontext_t fibers[FIBERS];
    char *stacks[FIBERS];
    int current;
    int finished[FIBERS];
    long checksums[FIBERS];
} scheduler;

static _Thread_local scheduler *running;
/* Every fiber's tree in progress, in an array old by the end: stores into it
 * from every stack take the write barrier. Registered as a root. */
static corral_ref shared_trees;
typedef struct trees_array {
    corral_array_header header;
    noderef items[];
} CORRAL_REF *treesref;
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("trees");

static void yield(void)
{
    swapcontext(&running->fibers[running->current], &running->home);
}

static noderef yielding_tree(int depth)
{
    noderef n = new_node(depth);
    if (shared_trees)
        ((treesref)shared_trees)->items[running->current] = n;
    yield();
    if (depth > 0) {
        n->left = yielding_tree(depth - 1);
        n->right = yielding_tree(depth - 1);
    }
    return n;
}

static void fiber_body(void)
{
    int me = running->current;
    noderef tree = yielding_tree(6);
    running->checksums[me] = checksum(tree);
    running->finished[me] = 1;
}

static long run_fibers(void)
{
    scheduler *s = calloc(1, sizeof *s);
    running = s;
    for (int i = 0; i < FIBERS; i++) {
        s->stacks[i] = malloc(STACK_SIZE);
        make_context(&s->fibers[i], s->stacks[i], &s->home, fiber_body);
    }
    long wrong = 0;
    for (int left = FIBERS; left > 0;) {
        left = 0;
        for (int i = 0; i < FIBERS; i++) {
            if (s->finished[i])
                continue;
            s->current = i;
            swapcontext(&s->home, &s->fibers[i]);
            left += !s->finished[i];
        }
    }
    for (int i = 0; i < FIBERS; i++) {
        wrong += s->checksums[i] != expected_checksum(6);
        free(s->stacks[i]);
    }
    free(s);
    return wrong;
}

static void fibers_round_robin(void *settings)
{
    test_start(settings, true);
    corral_global_root_add(&shared_trees);
    shared_trees = corral_alloc_array(&ref_array_type, FIBERS);
    is_int(run_fibers(), 0, "%d fibers switching at every node built the trees they meant",
           FIBERS);
}

static void *fibers_on_a_thread(void *unused)
{
    (void)unused;
    return (void *)run_fibers();
}

static void *collect_meanwhile(void *stop)
{
    while (!*(volatile int *)stop)
        corral_collect();
    return NULL;
}

static void fibers_on_threads(void *settings)
{
    test_start(settings, true);
    pthread_t threads[THREADS], collector;
    int stop = 0;
    pthread_create(&collector, NULL, collect_meanwhile, &stop);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&threads[i], NULL, fibers_on_a_thread, NULL);
    long wrong = 0;
    for (int i = 0; i < THREADS; i++) {
        void *result;
        pthread_join(threads[i], &result);
        wrong += (long)result;
    }
    stop = 1;
    pthread_join(collector, NULL);
    is_int(wrong, 0, "%d threads of %d fibers each, another thread collecting: every tree right",
           THREADS, FIBERS);
}

/* --- the embedder's own switch routine, and a fiber started by C */

static ucontext_t c_fiber_context;

static void back_by_c_switch(void)
{
    c_switch(&c_fiber_context, &main_context);
}

static void *c_started_body(void *unused)
{
    (void)unused;
    generate(back_by_c_switch);
    return NULL;
}

static void embedder_switch(void *settings)
{
    test_start(settings, true);
    char *stack = malloc(STACK_SIZE);
    c_make_fiber(&c_fiber_context, stack, STACK_SIZE, &main_context, c_started_body);
    noderef mine = NULL;
    long rounds = 0, wrong = 0;
    for (;;) {
        c_switch(&main_context, &c_fiber_context);
        if (generated < 0)
            break;
        rounds++;
        mine = push(mine, rounds);
        wrong += generated != list_sum(mine);
    }
    is_int(rounds, GENERATED, "a fiber C started, switched by C with corral_stack_suspend, "
                              "ran to its end");
    is_int(wrong, 0, "the lists on both stacks stayed right");
    free(stack);
}

/* --- call pins held across a switch: references passed through "..." */

static long sum_after_switch(int count, ...)
{
    va_list arguments;
    va_start(arguments, count);
    yield();
    long sum = 0;
    for (int i = 0; i < count; i++)
        sum += va_arg(arguments, noderef)->value;
    va_end(arguments);
    return sum;
}

/* Allocates garbage, which the next collection compacts away: what follows
 * it then moves unless pinned. */
static noderef after_garbage(long value)
{
    for (int i = 0; i < 8; i++)
        new_node(-1);
    return new_node(value);
}

static void pinning_fiber(void)
{
    int me = running->current;
    long sum = 0;
    for (int i = 0; i < 50; i++)
        sum += sum_after_switch(3, after_garbage(i), after_garbage(2 * i), after_garbage(3 * i));
    running->checksums[me] = sum;
    running->finished[me] = 1;
}

static void pins_across_a_switch(void *settings)
{
    test_start(settings, true);
    scheduler *s = calloc(1, sizeof *s);
    running = s;
    s->stacks[0] = malloc(STACK_SIZE);
    make_context(&s->fibers[0], s->stacks[0], &s->home, pinning_fiber);
    noderef mine = NULL;
    while (!s->finished[0]) {
        swapcontext(&s->home, &s->fibers[0]);
        corral_collect(); /* moves all but the pinned */
        mine = push(mine, 1);
    }
    is_int(s->checksums[0], 6 * (49 * 50 / 2), "objects passed through '...' to a call that "
                                               "switched stacks stayed where the callee reads "
                                               "them");
    is_int(list_sum(mine), 51, "main's list too");
    free(s->stacks[0]);
    free(s);
}

/* --- a fiber that leaves by setcontext; a generator abandoned and its
 * context made again on the same stack */

static void leaves_by_setcontext(void)
{
    noderef mine = push(push(NULL, 20), 22);
    generated = list_sum(mine);
    setcontext(&main_context);
}

static void generator_again(void)
{
    noderef mine = NULL;
    for (long i = 1;; i++) {
        mine = push(mine, 2 * i);
        generated = list_sum(mine);
        swapcontext(&generator_context, &main_context);
    }
}

/* Fills the top of its stack, where an abandoned fiber's frames were. */
static void scribbler(void)
{
    volatile char scribble[16 * 1024];
    memset((char *)scribble, 0x5a, sizeof scribble);
    swapcontext(&generator_context, &main_context);
}

static void abandoned_stacks(void *settings)
{
    test_start(settings, true);
    char *stack = malloc(STACK_SIZE);
    make_context(&generator_context, stack, NULL, leaves_by_setcontext);
    swapcontext(&main_context, &generator_context);
    noderef mine = push(NULL, 1);
    is_int(generated + list_sum(mine), 43, "a fiber that left by setcontext: its result right, "
                                           "its abandoned frames no longer walked");
    make_context(&generator_context, stack, NULL, generator_again);
    for (int i = 0; i < 10; i++)
        swapcontext(&main_context, &generator_context);
    /* Made again while suspended: getcontext forgets what its context held,
     * or the walk would meet the old record under the new fiber's frames. */
    make_context(&generator_context, stack, NULL, scribbler);
    swapcontext(&main_context, &generator_context);
    mine = push(mine, 2);
    corral_stack_forget(&generator_context);
    memset(stack, 0x5a, STACK_SIZE); /* the embedder reuses the abandoned stack */
    make_context(&generator_context, stack, NULL, generator_again);
    for (int i = 0; i < 10; i++)
        swapcontext(&main_context, &generator_context);
    is_int(generated + list_sum(mine), 110 + 3, "a suspended generator abandoned (made again by "
                                                "getcontext; forgotten, its stack overwritten): "
                                                "each new one runs right");
    free(stack);
}

/* --- broken switches, each in a child of its own */

static void child_stack_freed(void)
{
    char *stack = malloc(STACK_SIZE);
    make_context(&generator_context, stack, &main_context, generator);
    swapcontext(&main_context, &generator_context);
    memset(stack, 0x5a, STACK_SIZE); /* freed and reused, never forgotten */
    corral_collect();
}

static void *unannounced_body(void *unused)
{
    (void)unused;
    noderef mine = push(NULL, 1);
    c_switch_unannounced(&c_fiber_context, &main_context);
    generated = mine->value;
    return NULL;
}

static void child_unannounced_switch(void)
{
    char *stack = malloc(STACK_SIZE);
    c_make_fiber(&c_fiber_context, stack, STACK_SIZE, &main_context, unannounced_body);
    swapcontext(&main_context, &c_fiber_context);
}

static void child_other_thread(void)
{
    char *stack = malloc(STACK_SIZE);
    make_context(&generator_context, stack, &main_context, generator);
    swapcontext(&main_context, &generator_context);
    ucontext_t elsewhere;
    c_resume_on_another_thread(&elsewhere, &generator_context);
}

static void scope_left_open(void)
{
    corral_handle_scope_open();
    swapcontext(&generator_context, &main_context);
}

static void child_open_scope(void)
{
    char *stack = malloc(STACK_SIZE);
    make_context(&generator_context, stack, &main_context, scope_left_open);
    swapcontext(&main_context, &generator_context);
}

static int broken_child(const char *which)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    if (strcmp(which, "freed") == 0)
        child_stack_freed();
    else if (strcmp(which, "unannounced") == 0)
        child_unannounced_switch();
    else if (strcmp(which, "thread") == 0)
        child_other_thread();
    else
        child_open_scope();
    printf("not caught\n");
    return 0;
}

static void broken_switches(void *self)
{
    /* Under ASan the runtime's record lives in a fake frame on ASan's heap
     * (use-after-return detection), so only the stack's frames are
     * overwritten: the walk stops on them instead. This file is managed code,
     * never instrumented: the ASan runtime linked in tells. */
    bool asan = __asan_init != NULL;
    const char *const cases[][2] = {
        {"freed", asan ? "corral: fatal: stack walk of thread 1 .*a managed return "
                                   "address without a stackmap record"
                                 : "its suspended stack record at 0x[0-9a-f]+ is overwritten "
                                   ".*: the stack's memory was freed or reused while it was "
                                   "suspended; call corral_stack_forget"},
        {"unannounced", "switched to the stack suspended under key 0x[0-9a-f]+ from one that "
                        "still lists managed frames: the switch away did not go through "
                        "corral_stack_suspend"},
        {"thread", "the stack suspended on thread 1 \\(key 0x[0-9a-f]+\\) resumed on thread 2"},
        {"scope", "with 1 handle scopes open, against 0 when it was suspended"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result run = run_program_with(self, cases[i][0], "CORRAL_GC_STRESS=move-all", 60);
        if (!ok(!run.timed_out && WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGABRT &&
                    output_matches(run.output, cases[i][1]),
                "%s: corral: fatal: ... %s", cases[i][0], cases[i][1]))
            show_output(&run);
        free(run.output);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return broken_child(argv[1]);
    plan(7);
    tap_subtest("a generator on its own stack", 120, generator_on_its_stack,
                "CORRAL_GC_STRESS=alloc:random:8,move-all,poison CORRAL_GC_VERIFY=after");
    tap_subtest("fibers round robin, generational", 120, fibers_round_robin,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_HEAP_MIN=1M "
                "CORRAL_GC_STRESS=alloc:random:16,mixed:4,poison CORRAL_GC_VERIFY=before,after");
    tap_subtest("fibers on 3 threads while another collects", 120, fibers_on_threads,
                "CORRAL_GC_STRESS=alloc:random:32,move-all,poison");
    tap_subtest("a switch routine of the embedder's", 120, embedder_switch,
                "CORRAL_GC_STRESS=alloc:random:8,move-all,poison");
    tap_subtest("call pins across a switch", 120, pins_across_a_switch,
                "CORRAL_GC_STRESS=move-all,poison");
    tap_subtest("abandoned stacks", 120, abandoned_stacks,
                "CORRAL_GC_STRESS=alloc:1,move-all,poison CORRAL_GC_VERIFY=after");
    tap_subtest("broken switches are named", 120, broken_switches, argv[0]);
    return done_testing();
}
