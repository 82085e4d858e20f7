/* Managed functions handed to C as callbacks: qsort's comparator, bsearch's,
 * pthread_once's routine, C helpers calling back with arguments of every
 * width, and callbacks C finds in memory (a struct of callbacks, a table,
 * fopencookie's functions). C calls them while the thread is UNMANAGED; the
 * pass gives C an entry instead, which runs them through
 * corral_call_managed (polls/callbacks.c). Each callback here allocates,
 * so under CORRAL_GC_STRESS=alloc:1 a collection moves everything inside
 * every call. Before 2026-11-28 the first allocation in a comparator
 * stopped the program: "corral_alloc: thread 1 is UNMANAGED"; before
 * 2026-11-29, the first in a callback found in memory did. Built with
 * corralc at -O0..-O3. */
#define _GNU_SOURCE /* fopencookie */
#include <corral.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "corral_test.h"
#include "node_arrays.h"

/* Plain C from unmanaged_helpers.c. */
long unmanaged_apply(long (*fn)(signed char, short, double, long), int n);
void unmanaged_each(void (*fn)(long), long n);
CORRAL_UNMANAGED void *unmanaged_call_back(void *(*callback)(void *), void *arg);
struct unmanaged_ops {
    long (*each)(long);
    long (*finish)(long);
};
long unmanaged_run_ops(const struct unmanaged_ops *ops, long n);
long unmanaged_run_table(long (*const *table)(long), int count);

#define COUNT 600

/* Per thread: the nodes the comparator reads, and a chain of what the
 * callbacks allocated (registered global roots of the main thread; the
 * threaded case gives each thread its own through thread_slot). */
static _Thread_local corral_ref values;   /* node[COUNT]: the value of index i */
static _Thread_local noderef made;        /* every node the callbacks made */
static _Thread_local long made_count;

static void remember(long value)
{
    noderef n = new_node(value); /* may collect: every object moves */
    n->left = made;
    made = n;
    made_count++;
}

static int compare_by_node(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    remember(x);
    /* References read from the heap after the allocation, compared by value. */
    long vx = ((noderef)elements_of(values)[x])->value;
    long vy = ((noderef)elements_of(values)[y])->value;
    return (vx > vy) - (vx < vy);
}

static long mixed(signed char c, short s, double d, long l)
{
    remember(l);
    return c * 3 + s * 5 + (long)(d * 4) + l;
}

static _Thread_local long each_sum;
static void each(long i)
{
    remember(i);
    each_sum += made->value;
}

/* Callbacks C finds in memory: in a struct of callbacks, a table. */
static long remember_each(long i)
{
    remember(i);
    return made->value;
}

static long finish_sum(long sum)
{
    remember(sum);
    corral_collect(); /* everything moves inside the callback */
    return made->value;
}

static long remember_square(long i)
{
    remember(i * i);
    return made->value;
}

static const struct unmanaged_ops static_ops = {remember_each, finish_sum};

/* fopencookie's write function: glibc's stdio calls it from the struct of
 * callbacks it was given by value. */
static ssize_t cookie_write(void *cookie, const char *buffer, size_t size)
{
    for (size_t i = 0; i < size; i++)
        remember(buffer[i]);
    *(long *)cookie += (long)size;
    return (ssize_t)size;
}

static void *through_corral_call_managed(void *arg)
{
    remember((long)(intptr_t)arg);
    return (void *)(intptr_t)made->value; /* C holds no reference */
}

static long chain_length(void)
{
    long n = 0;
    for (noderef k = made; k; k = k->left)
        n++;
    return n;
}

/* The checks, on the calling thread; returns the number that failed. */
static int run_callbacks(bool report)
{
    corral_global_root_add(&values);
    corral_global_root_add((corral_ref *)&made);
    values = corral_alloc_array(&ref_array_type, COUNT);
    long order[COUNT];
    for (long i = 0; i < COUNT; i++) {
        order[i] = i;
        elements_of(values)[i] = new_node((i * 7919) % COUNT); /* a permutation */
    }
    int failed = 0;
    qsort(order, COUNT, sizeof order[0], compare_by_node);
    long wrong = 0;
    for (long i = 0; i < COUNT; i++)
        wrong += ((noderef)elements_of(values)[order[i]])->value != i;
    long comparisons = made_count;
    failed += wrong != 0 || chain_length() != made_count;
    if (report) {
        is_int(wrong, 0, "qsort with an allocating comparator: sorted by the nodes' values");
        is_int(chain_length(), made_count, "every node a comparison made is there (%ld)",
               comparisons);
    }

    long key = order[123]; /* the index of the node of value 123 */
    long *found = bsearch(&key, order, COUNT, sizeof order[0], compare_by_node);
    failed += !found || ((noderef)elements_of(values)[*found])->value != 123;
    if (report)
        ok(found && ((noderef)elements_of(values)[*found])->value == 123,
           "bsearch with an allocating comparator finds the node of value 123");

    long expected = 0;
    for (int i = 0; i < 300; i++)
        expected += (signed char)i * 3 + (short)-i * 5 + (long)(i / 2.0 * 4) + (long)i * 1000;
    long sum = unmanaged_apply(mixed, 300);
    failed += sum != expected;
    if (report)
        is_int(sum, expected, "a callback taking char, short, double and long: every argument "
                              "arrives");

    each_sum = 0;
    unmanaged_each(each, 200);
    failed += each_sum != 199 * 200 / 2;
    if (report)
        is_int(each_sum, 199 * 200 / 2, "a callback returning void");

    /* A struct of callbacks in a constant, one built on the stack at run
     * time, and one in memory C allocated. */
    long from_static = unmanaged_run_ops(&static_ops, 100);
    struct unmanaged_ops on_stack = {remember_each, finish_sum};
    long from_stack = unmanaged_run_ops(&on_stack, 50);
    struct unmanaged_ops *in_c_memory = malloc(sizeof *in_c_memory);
    in_c_memory->each = remember_square;
    in_c_memory->finish = finish_sum;
    long from_c_memory = unmanaged_run_ops(in_c_memory, 20);
    long expected_squares = 0;
    for (long i = 0; i < 20; i++)
        expected_squares += i * i;
    failed += from_static != 99 * 100 / 2 || from_stack != 49 * 50 / 2 ||
              from_c_memory != expected_squares;
    if (report)
        ok(from_static == 99 * 100 / 2 && from_stack == 49 * 50 / 2 &&
               from_c_memory == expected_squares,
           "C calling allocating callbacks it finds in a struct (constant, on the stack, in "
           "malloc'd memory): %ld, %ld, %ld",
           from_static, from_stack, from_c_memory);

    /* Managed code calls and compares the same addresses as C. */
    long direct = in_c_memory->each(7) + static_ops.each(8);
    bool same = in_c_memory->each == remember_square && static_ops.finish == finish_sum &&
                on_stack.each == static_ops.each;
    failed += direct != 49 + 8 || !same;
    if (report)
        ok(direct == 49 + 8 && same,
           "managed code calls those addresses too, and they equal the functions' own");
    free(in_c_memory);

    static long (*const table[3])(long) = {remember_each, remember_square, remember_each};
    long from_table = unmanaged_run_table(table, 3);
    failed += from_table != 0 + 1 + 2;
    if (report)
        is_int(from_table, 0 + 1 + 2, "a table of callbacks C reads");

    long written = 0;
    FILE *stream = fopencookie(&written, "w", (cookie_io_functions_t){.write = cookie_write});
    setvbuf(stream, NULL, _IONBF, 0);
    for (int i = 0; i < 10; i++)
        fprintf(stream, "%d\n", i);
    fclose(stream);
    failed += written != 20 || made->value != '\n';
    if (report)
        ok(written == 20 && made->value == '\n',
           "fopencookie's allocating write function gets every byte (%ld)", written);

    long back = (long)(intptr_t)unmanaged_call_back(through_corral_call_managed,
                                                    (void *)(intptr_t)77);
    failed += back != 77 || made->value != 77;
    if (report)
        ok(back == 77 && made->value == 77, "C that calls corral_call_managed itself still works");
    corral_global_root_remove((corral_ref *)&made);
    corral_global_root_remove(&values);
    return failed;
}

/* pthread_once's routine: no arguments, no result. */
static void once_routine(void)
{
    remember(5);
    remember(6);
}

static void single_thread(void *arg)
{
    test_start(arg, true);
    corral_stats before, after;
    corral_get_stats(&before);
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    corral_global_root_add((corral_ref *)&made);
    pthread_once(&once, once_routine);
    pthread_once(&once, once_routine);
    ok(made_count == 2 && made->value == 6 && made->left->value == 5,
       "pthread_once with an allocating routine runs it once");
    corral_global_root_remove((corral_ref *)&made);
    made = NULL;
    made_count = 0;
    run_callbacks(true);
    corral_get_stats(&after);
    ok(after.collections - before.collections > 1000, "collections inside the callbacks (%llu)",
       (unsigned long long)(after.collections - before.collections));
}

static void *callback_thread(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)run_callbacks(false);
}

static void four_threads(void *arg)
{
    test_start(arg, true);
    pthread_t threads[4];
    for (int t = 0; t < 4; t++)
        pthread_create(&threads[t], NULL, callback_thread, NULL);
    long failed = 0;
    for (int t = 0; t < 4; t++) {
        void *result;
        pthread_join(threads[t], &result);
        failed += (long)(intptr_t)result;
    }
    is_int(failed, 0, "4 threads sorting with allocating comparators: every check holds");
}

int main(void)
{
    plan(3);
    tap_subtest("callbacks, a collection at every allocation", 120, single_thread,
                "CORRAL_GC_STRESS=alloc:1,move-all,poison CORRAL_GC_VERIFY=after");
    tap_subtest("callbacks, generational", 120, single_thread,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:1,mixed:4,move-all,poison "
                "CORRAL_GC_VERIFY=after");
    tap_subtest("callbacks on 4 threads", 120, four_threads,
                "CORRAL_HEAP_MIN=1M CORRAL_GC_STRESS=alloc:random:8,move-all,poison");
    return done_testing();
}
