/* musttail calls of managed code (docs/managed-c.md rule 7), the shape of
 * tail-calling interpreters: mutual tail recursion far deeper than the
 * stack could hold as calls, a dispatch table of handlers that pass
 * references in stack arguments (8 arguments), a function that keeps an
 * array of references in its frame and tail-calls itself, tail calls
 * through addresses C may call (each the function's entry), and a thread
 * spinning through tail calls alone, which a collection must still stop.
 * The callees allocate, so under CORRAL_GC_STRESS=...,move-all,poison the
 * references in the arguments have moved before they are read. Until
 * 2026-11-28 the pass refused every musttail call of code that may collect.
 * Built with corralc at -O0..-O3. */
#include <corral.h>
#include <pthread.h>
#include <stdatomic.h>

#include "corral_test.h"
#include "trees.h"

/* As calls, this many frames would take far more than the 8 MiB stack
 * (scaled by TAP_WORK_PERCENT under emulation). */
#define DEPTH tap_work(1000000L)

static noderef churn(void)
{
    return new_node(-1); /* may collect: every object moves */
}

/* ------------------------------------------------ mutual tail recursion */

/* recent is the node the previous level made (value n + 1); kept is a tree
 * built before the first call, checked at the bottom. */
static __attribute__((noinline)) long down_b(noderef kept, noderef recent, long n, long bad);

static __attribute__((noinline)) long down_a(noderef kept, noderef recent, long n, long bad)
{
    bad += recent->value != n + 1;
    if (n == 0)
        return bad + (checksum(kept) != expected_checksum(6));
    noderef next = new_node(n);
    __attribute__((musttail)) return down_b(kept, next, n - 1, bad);
}

static __attribute__((noinline)) long down_b(noderef kept, noderef recent, long n, long bad)
{
    bad += recent->value != n + 1;
    churn();
    noderef next = new_node(n);
    __attribute__((musttail)) return down_a(kept, next, n - 1, bad);
}

static void deep_recursion(void *arg)
{
    test_start(arg, true);
    corral_stats before, after;
    corral_get_stats(&before);
    noderef kept = make_tree(6);
    is_int(down_a(kept, new_node(DEPTH + 1), DEPTH, 0), 0,
           "%ld levels of mutual tail calls: every reference argument read its moved object",
           DEPTH);
    corral_get_stats(&after);
    ok(after.collections - before.collections > 1000, "collections during the recursion (%llu)",
       (unsigned long long)(after.collections - before.collections));
}

/* ------------------------------------------------ tail calls through addresses C may call */

/* The table is not static, so C in another file may read it: every
 * address taken of the hops is the function's entry (polls/callbacks.c),
 * whose tail call keeps the stack constant. previous is the node the last
 * hop made (value n + 1). */
static noderef previous;
long tail_hop_a(long n, long bad);
long tail_hop_b(long n, long bad);
long (*const hops[2])(long, long) = {tail_hop_a, tail_hop_b};

__attribute__((noinline)) long tail_hop_a(long n, long bad)
{
    bad += previous->value != n + 1;
    if (n == 0)
        return bad;
    previous = new_node(n); /* may collect: every object moves */
    __attribute__((musttail)) return hops[n & 1](n - 1, bad);
}

__attribute__((noinline)) long tail_hop_b(long n, long bad)
{
    bad += previous->value != n + 1;
    if (n == 0)
        return bad;
    churn();
    previous = new_node(n);
    __attribute__((musttail)) return hops[n & 1](n - 1, bad);
}

static void hops_through_addresses(void *arg)
{
    test_start(arg, true);
    corral_global_root_add((corral_ref *)&previous);
    previous = new_node(DEPTH + 1);
    is_int(hops[0](DEPTH, 0), 0,
           "%ld tail calls through the entries of functions C may call: constant stack, every "
           "node read after it moved", DEPTH);
    ok(hops[0] == tail_hop_a && hops[1] == tail_hop_b,
       "the table holds the addresses the functions have");
    corral_global_root_remove((corral_ref *)&previous);
}

/* ------------------------------------------------ a tail-calling interpreter */

enum { OP_NEW, OP_SWAP, OP_ADD, OP_CHECK, OP_LOOP, OP_HALT };

/* Eight arguments: on x86-64 c and d go on the stack. a, b, c and d are the
 * machine's four registers, each a node; acc sums values. */
typedef long (*handler)(const unsigned char *pc, long acc, noderef a, noderef b, long count,
                        long bad, noderef c, noderef d);

static const handler handlers[6];

#define DISPATCH(pc, acc, a, b, count, bad, c, d)                                                \
    __attribute__((musttail)) return handlers[*(pc)](pc, acc, a, b, count, bad, c, d)

static __attribute__((noinline)) long op_new(const unsigned char *pc, long acc, noderef a,
                                             noderef b, long count, long bad, noderef c, noderef d)
{
    /* Shifts the registers: the node that drops out of d hangs off the new
     * one, and lets go of the one that hung off it. */
    noderef fresh = new_node(pc[1]);
    d->left = 0;
    fresh->left = d;
    DISPATCH(pc + 2, acc, fresh, a, count, bad, b, c);
}

static __attribute__((noinline)) long op_swap(const unsigned char *pc, long acc, noderef a,
                                              noderef b, long count, long bad, noderef c, noderef d)
{
    churn();
    DISPATCH(pc + 1, acc, d, c, count, bad, b, a);
}

static __attribute__((noinline)) long op_add(const unsigned char *pc, long acc, noderef a,
                                             noderef b, long count, long bad, noderef c, noderef d)
{
    acc += a->value + c->value + d->value + a->left->value;
    DISPATCH(pc + 1, acc, a, b, count, bad, c, d);
}

static __attribute__((noinline)) long op_check(const unsigned char *pc, long acc, noderef a,
                                               noderef b, long count, long bad, noderef c,
                                               noderef d)
{
    churn();
    /* What the program below leaves in the four registers at its check. */
    bad += a->value != 2 || c->value != 1 || d->value != 5 || a->left->value != 7;
    DISPATCH(pc + 1, acc, a, b, count, bad, c, d);
}

static __attribute__((noinline)) long op_loop(const unsigned char *pc, long acc, noderef a,
                                              noderef b, long count, long bad, noderef c, noderef d)
{
    /* a..d: new 1, 5, 7: (7 5 1 x); swap: (x 1 5 7); new 2: (2 x 1 5), 2.left 7. */
    static const unsigned char start[] = {OP_NEW, 1, OP_NEW, 5, OP_NEW, 7, OP_SWAP,
                                          OP_NEW, 2, OP_ADD, OP_CHECK, OP_LOOP, OP_HALT};
    if (count > 1)
        DISPATCH(start, acc, a, b, count - 1, bad, c, d);
    DISPATCH(pc + 1, acc, a, b, count, bad, c, d);
}

static __attribute__((noinline)) long op_halt(const unsigned char *pc, long acc, noderef a,
                                              noderef b, long count, long bad, noderef c, noderef d)
{
    (void)pc, (void)a, (void)b, (void)count, (void)c, (void)d;
    return bad ? -bad : acc;
}

static const handler handlers[] = {op_new, op_swap, op_add, op_check, op_loop, op_halt};

static long interpret(long rounds)
{
    static const unsigned char program[] = {OP_LOOP, OP_HALT};
    noderef zero = new_node(0);
    return handlers[program[0]](program, 0, zero, zero, rounds + 1, 0, zero, zero);
}

static void interpreter(void *arg)
{
    test_start(arg, true);
    /* Each round's add: a 2 + c 1 + d 5 + a->left 7 (op_loop's program). */
    long rounds = tap_work(50000);
    is_int(interpret(rounds), 15 * rounds,
           "%ld rounds of 8 handlers through a dispatch table of tail calls", rounds);
}

/* ------------------------------------------------ a frame of references, tail-called */

static __attribute__((noinline)) void fill(noderef *slots, int count, long value)
{
    for (int i = 0; i < count; i++) {
        slots[i] = new_node(value + i);
        churn();
    }
}

/* Each keeps an array of references in its frame (a frame on the thread's
 * frame-root chain), then tail-calls the other (a self call could become a
 * loop): the frame must leave the chain before the jump, or the chain would
 * point into the callee's frame. */
static __attribute__((noinline)) long with_array_b(long n, long bad);

static __attribute__((noinline)) long with_array_a(long n, long bad)
{
    noderef slots[4];
    fill(slots, 4, n);
    churn();
    for (int i = 0; i < 4; i++)
        bad += slots[i]->value != n + i;
    if (n <= 0)
        return bad;
    __attribute__((musttail)) return with_array_b(n - 1, bad);
}

static __attribute__((noinline)) long with_array_b(long n, long bad)
{
    noderef slots[3];
    fill(slots, 3, n);
    for (int i = 0; i < 3; i++)
        bad += slots[i]->value != n + i;
    if (n <= 0)
        return bad;
    __attribute__((musttail)) return with_array_a(n - 1, bad);
}

static void frame_of_references(void *arg)
{
    test_start(arg, true);
    long calls = tap_work(100000);
    is_int(with_array_a(calls, 0), 0,
           "%ld tail calls of functions keeping references in stack memory", calls);
    noderef after = make_tree(6);
    corral_collect();
    is_int(checksum(after), expected_checksum(6), "the frame-root chain is whole afterwards");
}

/* ------------------------------------------------ a thread spinning in tail calls */

static atomic_int stop_spinning, spinning;

/* No loop, no allocation, no call but the tail calls: only the poll the
 * pass puts before each tail call lets a collection in. */
static __attribute__((noinline)) long spin_b(long n);

static __attribute__((noinline)) long spin_a(long n)
{
    if (atomic_load_explicit(&stop_spinning, memory_order_relaxed))
        return n;
    __attribute__((musttail)) return spin_b(n + 1);
}

static __attribute__((noinline)) long spin_b(long n)
{
    __attribute__((musttail)) return spin_a(n ^ 1);
}

static void *spinner_thread(void *arg)
{
    (void)arg;
    atomic_store(&spinning, 1);
    return (void *)(intptr_t)spin_a(0);
}

static void stop_a_tail_call_spinner(void *arg)
{
    test_start(arg, true);
    pthread_t thread;
    pthread_create(&thread, NULL, spinner_thread, NULL);
    while (!atomic_load(&spinning))
        churn();
    corral_stats before, after;
    corral_get_stats(&before);
    for (int i = 0; i < 20; i++)
        corral_collect(); /* waits for the spinner at its poll */
    corral_get_stats(&after);
    atomic_store(&stop_spinning, 1);
    pthread_join(thread, NULL);
    ok(after.collections - before.collections >= 20,
       "20 collections stopped a thread spinning through tail calls");
}

int main(void)
{
    plan(5);
    tap_subtest("mutual tail recursion", 120, deep_recursion,
                "CORRAL_GC_STRESS=alloc:random:64,move-all,poison");
    tap_subtest("tail calls through addresses C may call", 120, hops_through_addresses,
                "CORRAL_GC_STRESS=alloc:random:64,move-all,poison");
    tap_subtest("a tail-calling interpreter", 120, interpreter,
                "CORRAL_GC_STRESS=alloc:random:16,move-all,poison CORRAL_GC_VERIFY=after");
    tap_subtest("a frame of references, tail-called", 120, frame_of_references,
                "CORRAL_GC_GENERATIONAL=1 "
                "CORRAL_GC_STRESS=alloc:random:16,mixed:4,move-all,poison");
    tap_subtest("a thread spinning in tail calls", 60, stop_a_tail_call_spinner, "");
    return done_testing();
}
