/* calls.c — recursive Fibonacci: a call and a return for almost nothing
 * else, where Return (and Entry) polls cost the most. */
#include "bench_common.h"

#define DEFINE_FIB(name, marks)                                                            \
    marks __attribute__((noinline)) long name(long n)                                       \
    {                                                                                      \
        return n < 2 ? n : name(n - 1) + name(n - 2);                                      \
    }                                                                                      \
    static long name##_kernel(void *context)                                               \
    {                                                                                      \
        return name(*(long *)context);                                                     \
    }

DEFINE_FIB(fib_polled, )
DEFINE_FIB(fib_unpolled, CORRAL_NOPOLL)

int main(int argc, char **argv)
{
    bench_start();
    int repeats = bench_repeats(argc, argv, 5);
    long n = 30;
    double calls = 2.0 * 1346269 - 1; /* calls made by fib(30) */
    bench_compare("calls_fib", fib_polled_kernel, fib_unpolled_kernel, &n, calls, repeats);
    return 0;
}
