/* callbacks_c.c — the unmanaged half of callbacks: plain C that managed
 * code calls (through GC-transition wrappers) and that calls back into
 * managed code with corral_call_managed, or directly through a struct of
 * callbacks. It holds no references. */
#include <corral.h>
#include <stdlib.h>

#include "callbacks.h"

long c_visit(long depth, long fanout, long thread)
{
    long sum = 0;
    for (long i = 0; i < fanout; i++) {
        /* On this C stack frame: the walker must skip it between segments. */
        callback_args args = {depth, fanout, i, thread, 0};
        corral_call_managed(managed_visit_callback, &args);
        sum += args.result;
    }
    return sum;
}

static int compare(const void *a, const void *b)
{
    compare_pair pair = {*(const long *)a, *(const long *)b, 0};
    corral_call_managed(managed_compare, &pair);
    return (int)pair.result;
}

void c_sort(long *indexes, long count)
{
    qsort(indexes, (size_t)count, sizeof *indexes, compare);
}

long c_run_ops(const callback_ops *ops, long thread, long count)
{
    long sum = 0;
    for (long i = 0; i < count; i++)
        sum += ops->step(thread, i);
    return ops->finish(thread, sum);
}
