/* callbacks.h — the interface between callbacks' managed and plain C halves. */
#ifndef CORRAL_STRESS_CALLBACKS_H
#define CORRAL_STRESS_CALLBACKS_H

/* Plain C memory passed through corral_call_managed. */
typedef struct callback_args {
    long depth;    /* nesting levels still to go */
    long fanout;   /* callbacks per C visit */
    long index;    /* which callback of its visit this is */
    long thread;
    long result;   /* written by the managed callback */
} callback_args;

/* One comparison of c_sort, for managed_compare. */
typedef struct compare_pair {
    long left, right; /* indexes into the managed items array */
    long result;      /* -1, 0 or 1 */
} compare_pair;

/* Plain C (unmanaged): calls managed_visit_callback fanout times through
 * corral_call_managed, each one level shallower; returns the sum of results. */
long c_visit(long depth, long fanout, long thread);
/* Plain C: sorts indexes with qsort, the comparator calling back into managed
 * code (managed_compare) for every comparison. */
void c_sort(long *indexes, long count);

/* A struct of callbacks plain C finds in memory and calls directly, with
 * the thread UNMANAGED: the pass gives C each function's entry. */
typedef struct callback_ops {
    long (*step)(long thread, long i);
    long (*finish)(long thread, long sum);
} callback_ops;

/* Plain C: finish(sum of step(thread, i) for i in 0..count-1). */
long c_run_ops(const callback_ops *ops, long thread, long count);

/* Managed, entered only through corral_call_managed. */
void *managed_visit_callback(void *args);
void *managed_compare(void *pair);

#endif /* CORRAL_STRESS_CALLBACKS_H */
