/* programs.h — the demo's tiny programs and the results they must produce.
 * Each program's main takes (thread threads scale): thread is this run's
 * share of the work (0 .. threads-1), scale sizes the work. */
#ifndef DEMO_PROGRAMS_H
#define DEMO_PROGRAMS_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"

typedef struct demo_program {
    const char *name;
    const char *summary;
    const char *source;
    /* The result thread `share` of `shares` must return. */
    int64_t (*expected)(const corpus *text, int share, int shares, int scale);
    /* A reading of a result for people. */
    void (*describe)(int64_t result, char *out, size_t size);
} demo_program;

extern const demo_program demo_programs[];
extern const size_t demo_program_count;

/* Input lines the word-count program reads, for a given scale. */
size_t demo_corpus_lines(int scale);

#endif /* DEMO_PROGRAMS_H */
