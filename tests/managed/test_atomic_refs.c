/* C11 atomics and the GCC builtins on reference fields, in managed code,
 * with objects moving and minor collections finding young objects through
 * old ones. clang 19 does each on i64 words; before 2026-11-28 a
 * compare-exchange loop on a reference (a lock-free push) failed to compile
 * at -O1 and above: the optimiser hoisted the desired reference's integer
 * above the loop, live across its poll (polls/atomic_refs.c). Built with
 * corralc at -O0..-O3, and at -O2 with the deletion barrier for the
 * concurrent collector. */
#include <corral.h>
#include <pthread.h>
#include <stdatomic.h>

#include "corral_test.h"

typedef struct cell CORRAL_REF *cellref;
typedef struct cell {
    corral_header header;
    cellref next;
    long value;
} cell;
static const uint32_t cell_refs[] = {offsetof(cell, next)};
static const corral_type cell_type = CORRAL_STRUCT_TYPE("cell", cell, cell_refs);

/* A holder of atomic reference fields: made old before the tests store
 * young cells in it, so each store needs its write barrier. */
typedef struct holder CORRAL_REF *holderref;
typedef struct holder {
    corral_header header;
    _Atomic(cellref) top;
    cellref plain; /* reached only through the GCC builtins */
    _Atomic(cellref) spare;
} holder;
static const uint32_t holder_refs[] = {offsetof(holder, top), offsetof(holder, plain),
                                       offsetof(holder, spare)};
static const corral_type holder_type = CORRAL_STRUCT_TYPE("holder", holder, holder_refs);

#define THREADS 4
/* Pushes per thread: 10 000 scaled by TAP_WORK_PERCENT (emulated runs). */
static long pushes_per_thread;
/* Garbage cells allocated after each push, so collections come often. */
#define GARBAGE_PER_PUSH 30

static holderref shared;     /* a registered global root */
static atomic_long popped_sum; /* written by every worker, read after join */
static atomic_long failures;

static cellref new_cell(long value)
{
    cellref c = (cellref)corral_alloc(&cell_type);
    c->value = value;
    return c;
}

static void make_garbage(int count)
{
    for (int i = 0; i < count; i++)
        (void)new_cell(-1);
}

/* Treiber's stack: the loop polls between a failed exchange and the next. */
static __attribute__((noinline)) void push(holderref h, cellref c)
{
    cellref expected = atomic_load_explicit(&h->top, memory_order_relaxed);
    do {
        c->next = expected;
        make_garbage(1); /* a call inside the loop: a safepoint */
    } while (!atomic_compare_exchange_weak_explicit(&h->top, &expected, c, memory_order_release,
                                                    memory_order_relaxed));
}

static __attribute__((noinline)) cellref pop(holderref h)
{
    cellref expected = atomic_load_explicit(&h->top, memory_order_acquire);
    while (expected && !atomic_compare_exchange_strong(&h->top, &expected, expected->next))
        ;
    return expected;
}

static void *stack_worker(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (long i = 0; i < pushes_per_thread; i++) {
        push(shared, new_cell(id * pushes_per_thread + i));
        make_garbage(GARBAGE_PER_PUSH);
        if (i % 3 == 2) {
            cellref c = pop(shared);
            if (!c || c->value < 0) {
                atomic_fetch_add(&failures, 1);
                continue;
            }
            atomic_fetch_add(&popped_sum, c->value);
        }
    }
    return NULL;
}

static void lock_free_stack(void *arg)
{
    test_start(arg, true);
    pushes_per_thread = tap_work(10000);
    corral_global_root_add((corral_ref *)&shared);
    shared = (holderref)corral_alloc(&holder_type);
    corral_collect(); /* the holder is old */
    corral_stats before;
    corral_get_stats(&before);
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, stack_worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    corral_stats after;
    corral_get_stats(&after);
    ok(after.collections - before.collections >= 4, "collections while the threads ran (%llu)",
       (unsigned long long)(after.collections - before.collections));
    corral_collect_young();
    corral_collect();
    long left_sum = 0, left = 0;
    for (cellref c = atomic_load(&shared->top); c; c = c->next) {
        left_sum += c->value;
        left++;
    }
    long pushed = THREADS * pushes_per_thread;
    long all_sum = pushed * (pushed - 1) / 2;
    is_int(atomic_load(&failures), 0, "every pop found a cell");
    long pops = THREADS * (pushes_per_thread / 3); /* each i % 3 == 2 */
    is_int(left, pushed - pops, "%d threads: every pushed cell is popped or on the stack",
           THREADS);
    is_int(left_sum + atomic_load(&popped_sum), all_sum, "and each has its value");
}

/* Each form once, with every object moved (and the holder old) between
 * the store and the read. */
static __attribute__((noinline)) void collect_between(void)
{
    corral_collect_young();
    corral_collect();
}

static long value_of(cellref c)
{
    return c ? c->value : -1;
}

static void every_form(void *arg)
{
    test_start(arg, true);
    corral_global_root_add((corral_ref *)&shared);
    shared = (holderref)corral_alloc(&holder_type);
    corral_collect();
    holderref h = shared;

    atomic_store(&h->top, new_cell(1));
    collect_between();
    is_int(value_of(atomic_load(&h->top)), 1, "atomic_store, atomic_load");

    h->spare = new_cell(2); /* an _Atomic lvalue: a sequentially consistent store */
    collect_between();
    is_int(value_of(h->spare), 2, "assignment to an _Atomic field");

    cellref was = atomic_exchange(&h->top, new_cell(3));
    collect_between();
    ok(value_of(was) == 1 && value_of(atomic_load(&h->top)) == 3, "atomic_exchange");

    cellref expected = atomic_load(&h->top);
    cellref replacement = new_cell(4);
    collect_between(); /* expected and replacement move before the exchange */
    bool swapped = atomic_compare_exchange_strong(&h->top, &expected, replacement);
    collect_between();
    ok(swapped && value_of(atomic_load(&h->top)) == 4, "compare_exchange with moved operands");

    cellref stale = was; /* the cell of value 1, no longer there */
    swapped = atomic_compare_exchange_strong(&h->top, &stale, new_cell(5));
    collect_between();
    ok(!swapped && value_of(stale) == 4, "a failed compare_exchange returns the current cell");

    cellref old_top = atomic_exchange_explicit(&h->top, NULL, memory_order_acq_rel);
    ok(value_of(old_top) == 4 && atomic_load(&h->top) == NULL, "atomic_exchange of null");
    cellref none = NULL;
    swapped = atomic_compare_exchange_strong(&h->top, &none, new_cell(6));
    collect_between();
    ok(swapped && value_of(atomic_load(&h->top)) == 6, "compare_exchange from null");

    __atomic_store_n(&h->plain, new_cell(7), __ATOMIC_RELEASE);
    collect_between();
    is_int(value_of(__atomic_load_n(&h->plain, __ATOMIC_ACQUIRE)), 7,
           "__atomic_store_n, __atomic_load_n");
    was = __atomic_exchange_n(&h->plain, new_cell(8), __ATOMIC_SEQ_CST);
    collect_between();
    ok(value_of(was) == 7 && value_of(h->plain) == 8, "__atomic_exchange_n");
    expected = h->plain;
    swapped = __atomic_compare_exchange_n(&h->plain, &expected, new_cell(9), false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    collect_between();
    ok(swapped && value_of(h->plain) == 9, "__atomic_compare_exchange_n");

    cellref current = h->plain;
    was = __sync_val_compare_and_swap(&h->plain, current, new_cell(10));
    collect_between();
    ok(value_of(was) == 9 && value_of(h->plain) == 10, "__sync_val_compare_and_swap");
    current = h->plain;
    swapped = __sync_bool_compare_and_swap(&h->plain, current, new_cell(11));
    collect_between();
    ok(swapped && value_of(h->plain) == 11, "__sync_bool_compare_and_swap");
    was = __sync_lock_test_and_set(&h->plain, new_cell(12));
    collect_between();
    ok(value_of(was) == 11 && value_of(h->plain) == 12, "__sync_lock_test_and_set");

    /* One atomic field copied into another: no integer in between. */
    atomic_store(&h->spare, atomic_load(&h->top));
    collect_between();
    ok(value_of(atomic_load(&h->spare)) == 6 && atomic_load(&h->spare) == atomic_load(&h->top),
       "atomic_load into atomic_store");
}

/* Every object moves at every collection; freed memory is poisoned; the
 * verifier checks the remembered set (an old holder's young cells). */
#define GENERATIONAL                                                                        \
    "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_NURSERY=256k CORRAL_GC_STRESS=move-all,poison "     \
    "CORRAL_GC_VERIFY=after"

#ifdef CONCURRENT
#define SETTINGS GENERATIONAL " CORRAL_GC_CONCURRENT=1"
#define PLAN 2
#else
#define SETTINGS GENERATIONAL
#define PLAN 4
#endif

int main(void)
{
    plan(PLAN);
#ifndef CONCURRENT
    tap_subtest("each form, collecting at polls, not generational", 60, every_form,
                "CORRAL_GC_GENERATIONAL=0 CORRAL_GC_STRESS=polls,move-all,poison");
    tap_subtest("lock-free stack, collecting at polls", 120, lock_free_stack,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_NURSERY=256k "
                "CORRAL_GC_STRESS=polls,move-all,poison");
#endif
    tap_subtest("each form on an old holder", 60, every_form, SETTINGS);
    tap_subtest("lock-free stack on an old holder, 4 threads", 120, lock_free_stack, SETTINGS);
    return done_testing();
}
