/* run.h — running one demo program in several threads, interpreted or
 * compiled, and checking every thread's result. */
#ifndef DEMO_RUN_H
#define DEMO_RUN_H

#include "corpus.h"
#include "programs.h"

typedef enum demo_path {
    DEMO_INTERPRETER,
    DEMO_JIT,
} demo_path;

typedef struct demo_run {
    const demo_program *program;
    demo_path path;
    int threads;
    int scale;
    int print_ir;
    const corpus *text;
} demo_run;

/* Prints one line per thread and a GC summary. Returns the number of wrong
 * results, or -1 when the program could not be run. The calling thread is
 * attached and MANAGED; it runs share 0 itself. */
int demo_run_program(const demo_run *run);

#endif /* DEMO_RUN_H */
