/* nested_loops.c — 64x64 and 100x100 matrix multiplies: three nested
 * counted loops; constant 64-iteration loops need no poll at all, the
 * 100 x 100 x n one is strip-mined. */
#include "bench_common.h"

#define N 64

static double a[N][N], b[N][N], c[N][N];

typedef struct multiply_context {
    long rounds;
    int n;          /* a runtime bound: loops over it are strip-mined */
    double *x, *y, *z;
} multiply_context;

#define DEFINE_MULTIPLY(name, marks)                                                       \
    marks __attribute__((noinline)) long name(void *opaque)                                 \
    {                                                                                      \
        multiply_context *context = opaque;                                                \
        double checksum = 0;                                                               \
        for (long round = 0; round < context->rounds; round++) {                           \
            a[round % N][0] += 1;                                                          \
            for (int i = 0; i < N; i++)                                                    \
                for (int j = 0; j < N; j++) {                                              \
                    double sum = 0;                                                        \
                    for (int k = 0; k < N; k++)                                            \
                        sum += a[i][k] * b[k][j];                                          \
                    c[i][j] = sum;                                                         \
                }                                                                          \
            checksum += c[round % N][N - 1];                                               \
        }                                                                                  \
        return (long)checksum;                                                             \
    }

#define DEFINE_MULTIPLY_N(name, marks)                                                     \
    marks __attribute__((noinline)) long name(void *opaque)                                 \
    {                                                                                      \
        multiply_context *context = opaque;                                                \
        int n = context->n;                                                                \
        double checksum = 0;                                                               \
        for (long round = 0; round < context->rounds; round++) {                           \
            context->x[round % n] += 1;                                                    \
            for (int i = 0; i < n; i++)                                                    \
                for (int j = 0; j < n; j++) {                                              \
                    double sum = 0;                                                        \
                    for (int k = 0; k < n; k++)                                            \
                        sum += context->x[i * n + k] * context->y[k * n + j];              \
                    context->z[i * n + j] = sum;                                           \
                }                                                                          \
            checksum += context->z[round % n];                                             \
        }                                                                                  \
        return (long)checksum;                                                             \
    }

DEFINE_MULTIPLY(multiply_polled, )
DEFINE_MULTIPLY(multiply_unpolled, CORRAL_NOPOLL)
DEFINE_MULTIPLY_N(multiply_n_polled, )
DEFINE_MULTIPLY_N(multiply_n_unpolled, CORRAL_NOPOLL)

int main(int argc, char **argv)
{
    bench_start();
    int repeats = bench_repeats(argc, argv, 5);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = (i + j) % 7;
            b[i][j] = (i * j) % 5;
        }
    multiply_context fixed = {500, N, 0, 0, 0};
    bench_compare("nested_loops_64", multiply_polled, multiply_unpolled, &fixed,
                  (double)fixed.rounds * N * N * N, repeats);
    int n = argc > 2 ? atoi(argv[2]) : 100;
    multiply_context variable = {150, n, malloc(sizeof(double) * n * n),
                                 malloc(sizeof(double) * n * n), malloc(sizeof(double) * n * n)};
    for (int i = 0; i < n * n; i++) {
        variable.x[i] = i % 7;
        variable.y[i] = i % 5;
    }
    bench_compare("nested_loops_n", multiply_n_polled, multiply_n_unpolled, &variable,
                  (double)variable.rounds * n * n * n, repeats);
    return 0;
}
