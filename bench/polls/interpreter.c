/* interpreter.c — a small bytecode interpreter: its dispatch loop is not a
 * counted loop, so it polls once per instruction dispatched, the worst case
 * for loop polls. The program counts down from n, summing i*3+1. */
#include "bench_common.h"

enum op { OP_LOAD_I, OP_MUL3, OP_INC, OP_ADD_SUM, OP_DEC_I, OP_JNZ, OP_HALT };

static const unsigned char program[] = {
    OP_LOAD_I, OP_MUL3, OP_INC, OP_ADD_SUM, OP_DEC_I, OP_JNZ, 0, OP_HALT,
};

typedef struct run_context {
    long n;
    long dispatched;
} run_context;

#define DEFINE_INTERPRET(name, marks)                                                      \
    marks __attribute__((noinline)) long name(void *opaque)                                 \
    {                                                                                      \
        run_context *context = opaque;                                                     \
        const unsigned char *code = program;                                               \
        long i = context->n, acc = 0, sum = 0, steps = 0;                                  \
        int pc = 0;                                                                        \
        for (;;) {                                                                         \
            steps++;                                                                       \
            switch (code[pc++]) {                                                          \
            case OP_LOAD_I: acc = i; break;                                                \
            case OP_MUL3: acc *= 3; break;                                                 \
            case OP_INC: acc += 1; break;                                                  \
            case OP_ADD_SUM: sum += acc; break;                                            \
            case OP_DEC_I: i -= 1; break;                                                  \
            case OP_JNZ: if (i != 0) pc = code[pc]; else pc++; break;                      \
            case OP_HALT: context->dispatched = steps; return sum;                         \
            }                                                                              \
        }                                                                                  \
    }

DEFINE_INTERPRET(interpret_polled, )
DEFINE_INTERPRET(interpret_unpolled, CORRAL_NOPOLL)

int main(int argc, char **argv)
{
    bench_start();
    int repeats = bench_repeats(argc, argv, 5);
    run_context context = {10 * 1000 * 1000, 0};
    interpret_unpolled(&context); /* learns the dispatch count */
    bench_compare("interpreter", interpret_polled, interpret_unpolled, &context,
                  (double)context.dispatched, repeats);
    return 0;
}
