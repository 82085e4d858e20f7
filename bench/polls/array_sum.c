/* array_sum.c — sum a managed int array: the call-free counted loop that
 * PlaceSafepoints would leave without a poll and corral strip-mines.
 * Two sizes: L1-resident (compute-bound) and 8 MiB (memory-bound). */
#include "bench_common.h"

static const corral_type int_array_type = CORRAL_DATA_ARRAY_TYPE("int[]", int);

typedef int CORRAL_REF *int_ref;

static int_ref elements(corral_ref array)
{
    return (int_ref)((char CORRAL_REF *)array + sizeof(corral_array_header));
}

/* The array lives in a handle: a reference must not sit in stack memory. */
typedef struct sum_context {
    corral_handle array;
    int count;
    long rounds;
} sum_context;

/* The same loop, with and without polls. */
#define DEFINE_SUM(name, marks)                                                            \
    marks __attribute__((noinline)) long name(void *opaque)                                 \
    {                                                                                      \
        sum_context *context = opaque;                                                     \
        long total = 0;                                                                    \
        for (long round = 0; round < context->rounds; round++) {                           \
            int_ref values = elements((corral_ref)*context->array);                       \
            values[round % context->count] ^= 1; /* no hoisting across rounds */           \
            long sum = 0;                                                                  \
            for (int i = 0; i < context->count; i++)                                       \
                sum += values[i];                                                          \
            total += sum;                                                                  \
        }                                                                                  \
        return total;                                                                      \
    }

DEFINE_SUM(sum_polled, )
DEFINE_SUM(sum_unpolled, CORRAL_NOPOLL)

static void run(const char *name, int count, long total_elements, int repeats)
{
    corral_handle_scope scope = corral_handle_scope_open();
    corral_ref array = corral_alloc_array(&int_array_type, (uint64_t)count);
    for (int i = 0; i < count; i++)
        elements(array)[i] = i % 13;
    sum_context context = {corral_handle_new(array), count, total_elements / count};
    bench_compare(name, sum_polled, sum_unpolled, &context, (double)context.rounds * count,
                  repeats);
    corral_handle_scope_close(scope);
}

int main(int argc, char **argv)
{
    bench_start();
    int repeats = bench_repeats(argc, argv, 5);
    run("array_sum_l1", 4096, 100L * 1000 * 1000, repeats);
    run("array_sum_8m", 2 * 1024 * 1024, 100L * 1000 * 1000, repeats);
    return 0;
}
