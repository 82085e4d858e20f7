/* run.c — threads for both ways into the VM.
 *
 * Interpreter: plain C threads attach (corral_thread_attach), interpret,
 * detach. Compiled code: threads start in it (corral_thread_create), and the
 * main thread enters it from UNMANAGED C (corral_call_managed). Either way
 * the main thread joins the others UNMANAGED, so a thread blocked in
 * pthread_join never holds up a collection.
 */
#include "run.h"

#include <corral.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "interp.h"
#include "jit.h"

enum { MAX_THREADS = 64 };

typedef struct worker {
    const tiny_program *program;
    const tiny_function *main;
    int64_t args[3]; /* thread threads scale */
    tiny_jit_call call;
    int64_t result;
    pthread_t thread;
} worker;

static void *interpreter_thread(void *arg)
{
    worker *w = arg;
    if (corral_thread_attach() != 0) {
        fprintf(stderr, "corral-demo: corral_thread_attach: %s\n", corral_last_error());
        exit(2);
    }
    w->result = tiny_interpret(w->program, w->main, w->args);
    corral_thread_detach();
    return NULL;
}

static void join_unmanaged(worker *workers, int count)
{
    for (int i = 1; i < count; i++)
        pthread_join(workers[i].thread, NULL);
}

static int run_interpreted(worker *workers, int count)
{
    for (int i = 1; i < count; i++)
        if (pthread_create(&workers[i].thread, NULL, interpreter_thread, &workers[i]) != 0) {
            fprintf(stderr, "corral-demo: pthread_create failed\n");
            exit(2);
        }
    workers[0].result = tiny_interpret(workers[0].program, workers[0].main, workers[0].args);
    corral_enter_unmanaged();
    join_unmanaged(workers, count);
    corral_leave_unmanaged();
    return 0;
}

static int run_compiled(const demo_run *run, worker *workers, int count)
{
    char error[2048];
    tiny_jit_entry entry = tiny_jit_compile(workers[0].program, workers[0].main,
                                            run->program->name, run->print_ir, error,
                                            sizeof error);
    if (!entry) {
        fprintf(stderr, "corral-demo: JIT: %s\n", error);
        return -1;
    }
    for (int i = 0; i < count; i++)
        workers[i].call = (tiny_jit_call){.args = workers[i].args};
    for (int i = 1; i < count; i++)
        if (corral_thread_create(&workers[i].thread, entry, &workers[i].call) != 0) {
            fprintf(stderr, "corral-demo: corral_thread_create: %s\n", corral_last_error());
            exit(2);
        }
    corral_enter_unmanaged();
    corral_call_managed(entry, &workers[0].call);
    join_unmanaged(workers, count);
    corral_leave_unmanaged();
    for (int i = 0; i < count; i++)
        workers[i].result = workers[i].call.result;
    return 0;
}

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

int demo_run_program(const demo_run *run)
{
    const demo_program *program = run->program;
    tiny_program parsed;
    char error[256];
    if (tiny_program_parse(program->source, &parsed, error, sizeof error) != 0) {
        fprintf(stderr, "corral-demo: %s: %s\n", program->name, error);
        return -1;
    }
    const tiny_function *main_function = tiny_program_find(&parsed, "main");
    if (!main_function || main_function->param_count != 3) {
        fprintf(stderr, "corral-demo: %s: needs (def (main thread threads scale) ...)\n",
                program->name);
        tiny_program_free(&parsed);
        return -1;
    }
    int count = run->threads < MAX_THREADS ? run->threads : MAX_THREADS;
    worker workers[MAX_THREADS];
    for (int i = 0; i < count; i++)
        workers[i] = (worker){&parsed, main_function, {i, count, run->scale}, {0}, 0, 0};

    const char *path_name = run->path == DEMO_JIT ? "compiled (LLVM JIT)" : "interpreted";
    printf("%s — %s; %s, %d threads\n", program->name, program->summary, path_name, count);
    fflush(stdout);
    corral_stats before, after;
    corral_get_stats(&before);
    double start = seconds_now();
    int status = run->path == DEMO_JIT ? run_compiled(run, workers, count)
                                       : run_interpreted(workers, count);
    double elapsed = seconds_now() - start;
    corral_get_stats(&after);
    if (status != 0) {
        tiny_program_free(&parsed);
        return -1;
    }
    int wrong = 0;
    for (int i = 0; i < count; i++) {
        int64_t expected = program->expected(run->text, i, count, run->scale);
        char got_text[128], expected_text[128];
        program->describe(workers[i].result, got_text, sizeof got_text);
        program->describe(expected, expected_text, sizeof expected_text);
        int right = workers[i].result == expected;
        wrong += !right;
        if (right)
            printf("  thread %d: %s  ok\n", i, got_text);
        else
            printf("  thread %d: %s  WRONG, expected %s\n", i, got_text, expected_text);
    }
    /* Allocated: TLAB refills, so within a TLAB per thread of the objects' bytes. */
    printf("  %" PRIu64 " collections, %.1f MiB allocated, %.1f MiB moved, %.0f ms\n",
           after.collections - before.collections,
           (double)(after.bytes_allocated - before.bytes_allocated) / (1024.0 * 1024.0),
           (double)(after.bytes_moved - before.bytes_moved) / (1024.0 * 1024.0), elapsed * 1e3);
    fflush(stdout);
    tiny_program_free(&parsed);
    return wrong;
}
