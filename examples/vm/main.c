/* corral-demo — a small multithreaded language VM embedding corral.
 *
 * Runs tiny programs (see programs.c) in several threads two ways: by an
 * interpreter written in plain C (handles, corral_poll) and as code
 * compiled through LLVM with the corral pass (stackmaps), and checks every
 * thread's result. CORRAL_LOG=gc prints a line per collection.
 */
#include <corral.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "io.h"
#include "programs.h"
#include "run.h"
#include "value.h"

static const char usage[] =
    "usage: corral-demo [--threads N] [--scale N] [--path interpreter|jit|both]\n"
    "                   [--print-ir] [PROGRAM...]\n"
    "Runs each PROGRAM (default: all) in N threads (default 4), interpreted and\n"
    "compiled, and checks the results. Exit status 0 when every result is right.\n"
    "  --scale N    work per thread (default 1)\n"
    "  --print-ir   print the JIT's LLVM IR before and after the corral pass\n"
    "Environment: every CORRAL_* variable (CORRAL_HELP=1 lists them), e.g.\n"
    "  CORRAL_LOG=gc   CORRAL_GC_STRESS=alloc:1000   CORRAL_GC_THREADS=2\n";

typedef struct demo_options {
    int threads, scale, print_ir;
    int interpreter, jit;
    const demo_program *selected[8];
    size_t selected_count;
} demo_options;

static int positive_argument(const char *flag, const char *text)
{
    char *end;
    long value = text ? strtol(text, &end, 10) : 0;
    if (!text || *end || value < 1 || value > 64) {
        fprintf(stderr, "corral-demo: %s expects a number from 1 to 64\n%s", flag, usage);
        exit(2);
    }
    return (int)value;
}

static const demo_program *find_program(const char *name)
{
    for (size_t i = 0; i < demo_program_count; i++)
        if (strcmp(demo_programs[i].name, name) == 0)
            return &demo_programs[i];
    fprintf(stderr, "corral-demo: no program '%s'; the programs are:", name);
    for (size_t i = 0; i < demo_program_count; i++)
        fprintf(stderr, " %s", demo_programs[i].name);
    fputc('\n', stderr);
    exit(2);
}

static demo_options parse_arguments(int argc, char **argv)
{
    demo_options options = {.threads = 4, .scale = 1, .interpreter = 1, .jit = 1};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--threads") == 0) {
            options.threads = positive_argument(arg, argv[++i < argc ? i : argc - 1]);
        } else if (strcmp(arg, "--scale") == 0) {
            options.scale = positive_argument(arg, argv[++i < argc ? i : argc - 1]);
        } else if (strcmp(arg, "--path") == 0 && i + 1 < argc) {
            const char *path = argv[++i];
            options.interpreter = strcmp(path, "interpreter") == 0 || strcmp(path, "both") == 0;
            options.jit = strcmp(path, "jit") == 0 || strcmp(path, "both") == 0;
            if (!options.interpreter && !options.jit) {
                fprintf(stderr, "corral-demo: --path expects interpreter, jit or both\n");
                exit(2);
            }
        } else if (strcmp(arg, "--print-ir") == 0) {
            options.print_ir = 1;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage, stdout);
            exit(0);
        } else if (arg[0] == '-') {
            fprintf(stderr, "corral-demo: unknown option '%s'\n%s", arg, usage);
            exit(2);
        } else if (options.selected_count < sizeof options.selected / sizeof options.selected[0]) {
            options.selected[options.selected_count++] = find_program(arg);
        }
    }
    if (options.selected_count == 0)
        for (size_t i = 0; i < demo_program_count; i++)
            options.selected[options.selected_count++] = &demo_programs[i];
    return options;
}

int main(int argc, char **argv)
{
    demo_options options = parse_arguments(argc, argv);
    /* Several GC workers and a small first heap, so the demo collects often;
     * CORRAL_* variables override both. */
    corral_options gc_options = {.gc_threads = 4, .heap_min = 4 << 20,
                                 .tag_scheme = &tiny_tag_scheme};
    if (corral_init(&gc_options) != 0)
        return 2; /* corral_init printed what is wrong */
    if (corral_thread_attach() != 0) {
        fprintf(stderr, "corral-demo: corral_thread_attach: %s\n", corral_last_error());
        return 2;
    }
    corpus text;
    corpus_generate(&text, demo_corpus_lines(options.scale), 20240601);
    tiny_input_set((const char *const *)text.lines, text.line_count);

    int wrong = 0, failed = 0;
    for (size_t p = 0; p < options.selected_count; p++)
        for (int path = DEMO_INTERPRETER; path <= DEMO_JIT; path++) {
            if ((path == DEMO_INTERPRETER && !options.interpreter) ||
                (path == DEMO_JIT && !options.jit))
                continue;
            demo_run run = {options.selected[p], (demo_path)path, options.threads,
                            options.scale, options.print_ir, &text};
            int result = demo_run_program(&run);
            if (result < 0)
                failed++;
            else
                wrong += result;
        }

    corral_stats stats;
    corral_get_stats(&stats);
    printf("corral-demo: %s; %llu collections in all, longest pause %.2f ms\n",
           wrong || failed ? "SOME RESULTS ARE WRONG" : "all results correct",
           (unsigned long long)stats.collections, (double)stats.pause_max_ns / 1e6);
    corral_thread_detach();
    corral_shutdown();
    corpus_free(&text);
    return wrong || failed ? 1 : 0;
}
