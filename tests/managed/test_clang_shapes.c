/* Shapes of ordinary C that clang compiles differently from the rest of the
 * suite, each collected while live: calls with arguments on the stack (x86
 * call-frame optimisation pushes them at -O1 and above), references passed
 * through "..." and a va_list, variable-length arrays next to an
 * over-aligned local (a realigned, dynamically sized frame), varargs
 * functions that return a value or a struct in memory, inline assembly,
 * and loops the vectorizer turns into vectors of references live across
 * the loop's poll. Built at -O0..-O3; every object moves in every
 * collection. */
#include <corral.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "corral_test.h"
#include "node_arrays.h"

#define MOVING_STRESS "CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=after"

/* Opaque to the optimiser, so calls keep their arguments. */
static volatile long one = 1;

static noderef fresh_garbage_then_node(long value)
{
    new_node(-1); /* garbage below: the next collection slides value's node */
    return new_node(value);
}

/* ------------------------------------------------ arguments on the stack */

__attribute__((noinline)) long nine_arguments(long a, long b, noderef c, long d, long e,
                                              long f, noderef g, long h, noderef i)
{
    corral_collect();
    return a + b + c->value + d + e + f + g->value + h + i->value;
}

__attribute__((noinline)) long twelve_arguments(noderef a, noderef b, noderef c, noderef d,
                                                noderef e, noderef f, noderef g, noderef h,
                                                long k, noderef i, long l, noderef j)
{
    make_tree(6);
    corral_collect();
    return a->value + b->value + c->value + d->value + e->value + f->value + g->value +
           h->value + k + i->value + l + j->value;
}

static void stack_arguments(void *arg)
{
    test_start(arg, true);
    long k = one;
    noderef x = fresh_garbage_then_node(100), y = fresh_garbage_then_node(1000);
    noderef z = fresh_garbage_then_node(10000);
    long first = nine_arguments(k, 2 * k, x, 4 * k, 5 * k, 6 * k, y, 8 * k, z);
    long second = nine_arguments(k, k, x, k, k, k, y, k, z);
    is_int(first, 11126, "9 arguments, 3 references, 3 on the stack: callee sees moved objects");
    is_int(second, 11106, "the caller's references were relocated across the first call");
    /* Separate locals, not an array: references never live in stack memory. */
    noderef n0 = fresh_garbage_then_node(1), n1 = fresh_garbage_then_node(2);
    noderef n2 = fresh_garbage_then_node(4), n3 = fresh_garbage_then_node(8);
    noderef n4 = fresh_garbage_then_node(16), n5 = fresh_garbage_then_node(32);
    noderef n6 = fresh_garbage_then_node(64), n7 = fresh_garbage_then_node(128);
    noderef n8 = fresh_garbage_then_node(256), n9 = fresh_garbage_then_node(512);
    long sum = twelve_arguments(n0, n1, n2, n3, n4, n5, n6, n7, 3 * k, n8, 5 * k, n9);
    is_int(sum, 1023 + 8, "12 arguments, 10 references, 6 on the stack");
    long again = n0->value + n1->value + n2->value + n3->value + n4->value + n5->value +
                 n6->value + n7->value + n8->value + n9->value;
    is_int(again, 1023, "references passed on the stack are intact in the caller");
}

/* printf with many arguments is an unmanaged varargs call pushed the same way. */
static void many_argument_printf(void *arg)
{
    test_start(arg, true);
    noderef x = fresh_garbage_then_node(7);
    long k = one;
    char line[128];
    int length = snprintf(line, sizeof line, "%ld %ld %ld %ld %ld %ld %ld %ld", k, 2 * k, 3 * k,
                          4 * k, 5 * k, 6 * k, 7 * k, x->value);
    corral_collect();
    int again = snprintf(line, sizeof line, "%ld %ld %ld %ld %ld %ld %ld %ld %ld %ld", k, k, k,
                         k, k, k, k, k, k, x->value);
    is_int(length, 15, "snprintf with 10 arguments");
    is_int(again, 19, "and with 12, around a collection");
    is_int(x->value, 7, "the reference held across them is relocated");
}

/* ------------------------------------------------ references through ... */

/* Collects before reading each reference still in the va_list save area. */
__attribute__((noinline)) void sum_variadic_nodes(long *out, int count, ...)
{
    va_list ap;
    va_start(ap, count);
    long sum = 0;
    for (int i = 0; i < count; i++) {
        make_tree(4);
        corral_collect();
        noderef node = va_arg(ap, noderef);
        sum += node ? node->value : 0;
    }
    va_end(ap);
    *out = sum;
}

__attribute__((noinline)) void sum_va_list(long *out, int count, va_list ap)
{
    long sum = 0;
    for (int i = 0; i < count; i++) {
        corral_collect();
        sum += va_arg(ap, noderef)->value;
    }
    *out = sum;
}

__attribute__((noinline)) void forward_variadic(long *out, int count, ...)
{
    va_list ap;
    va_start(ap, count);
    sum_va_list(out, count, ap);
    va_end(ap);
}

static void (*volatile indirect_sum)(long *, int, ...) = sum_variadic_nodes;

static void variadic_references(void *arg)
{
    test_start(arg, true);
    noderef n0 = fresh_garbage_then_node(1), n1 = fresh_garbage_then_node(10);
    noderef n2 = fresh_garbage_then_node(100), n3 = fresh_garbage_then_node(1000);
    noderef n4 = fresh_garbage_then_node(10000), n5 = fresh_garbage_then_node(100000);
    noderef n6 = fresh_garbage_then_node(1000000);
    long sum = 0;
    sum_variadic_nodes(&sum, 7, n0, n1, n2, n3, n4, n5, n6);
    is_int(sum, 1111111, "7 references through ... (register and stack save areas)");
    forward_variadic(&sum, 7, n6, n5, n4, n3, n2, n1, n0);
    is_int(sum, 1111111, "7 references through ... and a va_list passed on");
    indirect_sum(&sum, 3, n0, (noderef)0, n2);
    is_int(sum, 101, "through an indirect call, with a null among them");
    /* Pinned for each call only: under move-all an unpinned object moves. */
    corral_stats before, after;
    corral_get_stats(&before);
    corral_collect();
    corral_get_stats(&after);
    ok(after.bytes_moved - before.bytes_moved >= 2 * sizeof(struct node),
       "no reference stays pinned after the calls (n0 and n6, still live, moved: %llu bytes)",
       (unsigned long long)(after.bytes_moved - before.bytes_moved));
    is_int(n0->value + n6->value, 1000001, "and the objects are intact");
}

/* ------------------------------------------------ dynamically sized frames */

__attribute__((noinline)) long variable_length_frame(int count, noderef node)
{
    long vla[count];
    _Alignas(64) long aligned[8];
    for (int i = 0; i < count; i++)
        vla[i] = i;
    for (int i = 0; i < 8; i++)
        aligned[i] = 10 * i;
    noderef local = fresh_garbage_then_node(7);
    corral_collect();
    long sum = node->value + local->value + (long)((uintptr_t)aligned % 64);
    for (int i = 0; i < count; i++)
        sum += vla[i];
    for (int i = 0; i < 8; i++)
        sum += aligned[i];
    return sum;
}

/* 512 bytes of fixed locals beside a VLA: LLVM would address this frame's
 * slots from a base register (AArch64 x19), which the pass prevents. */
__attribute__((noinline)) long large_locals_and_vla(int count, noderef node)
{
    long vla[count];
    volatile long table[64];
    for (int i = 0; i < 64; i++)
        table[i] = i;
    for (int i = 0; i < count; i++)
        vla[i] = table[i];
    noderef local = fresh_garbage_then_node(11);
    corral_collect();
    long sum = node->value + local->value + table[63];
    for (int i = 0; i < count; i++)
        sum += vla[i];
    return sum;
}

__attribute__((noinline)) long over_aligned_alloca(int count, noderef node)
{
    long *block = __builtin_alloca_with_align((size_t)count * sizeof(long), 512);
    for (int i = 0; i < count; i++)
        block[i] = i;
    corral_collect();
    long sum = node->value + (long)((uintptr_t)block % 64);
    for (int i = 0; i < count; i++)
        sum += block[i];
    return sum;
}

__attribute__((noinline)) long aligned_fixed_frame(noderef node)
{
    _Alignas(128) long aligned[4] = {1, 2, 3, 4};
    corral_collect();
    return node->value + aligned[0] + aligned[3] + (long)((uintptr_t)aligned % 128);
}

static void dynamic_frames(void *arg)
{
    test_start(arg, true);
    noderef node = fresh_garbage_then_node(1000);
    is_int(variable_length_frame((int)(10 * one), node), 1000 + 7 + 45 + 280,
           "a VLA beside a 64-byte aligned local (the local stays aligned)");
    is_int(large_locals_and_vla((int)(10 * one), node), 1000 + 11 + 63 + 45,
           "a VLA beside 512 bytes of fixed locals");
    is_int(over_aligned_alloca((int)(10 * one), node), 1000 + 45,
           "a 512-byte aligned alloca()");
    is_int(aligned_fixed_frame(node), 1005, "a realigned frame of fixed size");
    is_int(node->value, 1000, "the caller's reference is relocated");
}

/* ------------------------------------------------ small structs by value */

/* AArch64 passes and returns these in registers as i64 or [2 x i64], which
 * clang moves through the struct's stack slot; x86-64 keeps the fields. */
typedef struct ref_pair {
    noderef first, second;
} ref_pair;
typedef struct ref_and_long {
    noderef ref;
    long number;
} ref_and_long;
typedef struct one_ref {
    noderef ref;
} one_ref;

__attribute__((noinline)) ref_pair make_ref_pair(long a, long b)
{
    ref_pair pair = {fresh_garbage_then_node(a), fresh_garbage_then_node(b)};
    return pair;
}

__attribute__((noinline)) ref_and_long make_ref_and_long(long a)
{
    ref_and_long both = {fresh_garbage_then_node(a), 10 * a};
    return both;
}

__attribute__((noinline)) one_ref make_one_ref(long a)
{
    one_ref single = {fresh_garbage_then_node(a)};
    return single;
}

__attribute__((noinline)) long sum_small_structs(ref_pair pair, ref_and_long both,
                                                 one_ref single)
{
    corral_collect();
    return pair.first->value + pair.second->value + both.ref->value + both.number +
           single.ref->value;
}

static void small_structs(void *arg)
{
    test_start(arg, true);
    ref_pair pair = make_ref_pair(1, 2);
    ref_and_long both = make_ref_and_long(3);
    one_ref single = make_one_ref(4);
    corral_collect();
    is_int(sum_small_structs(pair, both, single), 1 + 2 + 3 + 30 + 4,
           "structs of references passed by value survive a collection in the callee");
    is_int(pair.first->value + pair.second->value + both.ref->value + single.ref->value, 10,
           "and structs returned by value are relocated in the caller");
}

/* ------------------------------------------------ varargs functions with results */

/* Not static: corralc links an executable as a whole program, so the pass
 * passes the result through a thread-local variable all the same. */
__attribute__((noinline)) long product_of_nodes(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    long product = 1;
    for (int i = 0; i < count; i++) {
        corral_collect();
        product *= va_arg(ap, noderef)->value;
    }
    va_end(ap);
    return product;
}

typedef struct eighteen_ints {
    int weight[18];
} eighteen_ints;

/* The struct goes by value on the stack (byval on x86-64): the rebuilt call
 * keeps the call's attributes (it once lost them). */
__attribute__((noinline)) long weighted_sum(eighteen_ints weights, int count, ...)
{
    va_list ap;
    va_start(ap, count);
    long sum = 0;
    for (int i = 0; i < count; i++) {
        corral_collect();
        sum += weights.weight[i] * va_arg(ap, noderef)->value;
    }
    va_end(ap);
    return sum;
}

/* clang splits the __int128 into two i64 it knows fit the last two argument
 * registers: an extra argument for the result would shift one onto the
 * stack (gcc torture pr92904.c). */
__attribute__((noinline)) __int128 wide_after_ints(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    while (count--)
        va_arg(ap, int);
    corral_collect();
    __int128 wide = va_arg(ap, __int128);
    va_end(ap);
    return wide;
}

typedef struct three_longs {
    long first, second, third;
} three_longs;

/* Returned in memory (sret), whose pointer AArch64 passes in x8. */
__attribute__((noinline)) three_longs first_three_values(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    three_longs values = {0, 0, 0};
    long *slots[] = {&values.first, &values.second, &values.third};
    for (int i = 0; i < count && i < 3; i++) {
        corral_collect();
        *slots[i] = va_arg(ap, noderef)->value;
    }
    va_end(ap);
    return values;
}

static void varargs_results(void *arg)
{
    test_start(arg, true);
    noderef n2 = fresh_garbage_then_node(2), n3 = fresh_garbage_then_node(3);
    noderef n7 = fresh_garbage_then_node(7);
    is_int(product_of_nodes(3, n2, n3, n7), 42,
           "a non-static varargs function returns a value through collections");
    eighteen_ints weights = {{1, 10, 100}};
    weights.weight[17] = 1;
    is_int(weighted_sum(weights, 3, n2, n3, n7), 2 + 30 + 700,
           "and one taking a struct by value before the \"...\"");
    __int128 wide = ((__int128)0x5555555555555555 << 64) | 0x2aaaaaaaaaaaaaaa;
    ok(wide_after_ints(3, 0, 0, 0, wide) == wide && wide_after_ints(0, wide) == wide,
       "and one returning an __int128 passed in its last two argument registers");
    three_longs values = first_three_values(3, n7, n3, n2);
    is_int(values.first * 100 + values.second * 10 + values.third, 732,
           "and one returning a struct in memory (sret)");
    is_int(n2->value + n3->value + n7->value, 12, "the references passed are relocated");
}

/* ------------------------------------------------ inline assembly */

static void inline_assembly(void *arg)
{
    test_start(arg, true);
    noderef node = fresh_garbage_then_node(41);
    long value = node->value;
    /* Inline assembly is the one place a managed test names its target. */
#if defined(__aarch64__)
    __asm__ volatile("yield");
    __asm__("add %0, %0, #1" : "+r"(value));
#else
    __asm__ volatile("pause");
    __asm__("addq $1, %0" : "+r"(value));
#endif
    corral_collect();
    is_int(value, 42, "inline assembly compiles and runs");
    is_int(node->value, 41, "a reference held across it is relocated");
}

/* ------------------------------------------------ vectors of references */

/* At -O2 and -O3 the loop vectorizer keeps a and b as <2 x ptr> splats,
 * live across the loop's poll: stackmap locations of 16 bytes, a pair of
 * references each (once refused as corrupt stackmaps at startup). */
__attribute__((noinline)) void fill_alternating(corral_ref array, long length, noderef a,
                                                noderef b)
{
    for (long i = 0; i < length; i++)
        elements_of(array)[i] = (i & 1) ? a : b;
}

__attribute__((noinline)) void copy_references(corral_ref to, corral_ref from, long length)
{
    for (long i = 0; i < length; i++)
        elements_of(to)[i] = elements_of(from)[length - 1 - i];
}

static void vector_loops(void *arg)
{
    test_start(arg, true);
    enum { LENGTH = 4096 };
    corral_ref array = corral_alloc_array(&ref_array_type, LENGTH);
    noderef a = fresh_garbage_then_node(3), b = fresh_garbage_then_node(5);
    corral_stats before, after;
    corral_get_stats(&before);
    fill_alternating(array, LENGTH, a, b);
    corral_get_stats(&after);
    ok(after.collections > before.collections,
       "a collection at the loop's poll (%llu)",
       (unsigned long long)(after.collections - before.collections));
    corral_collect();
    long wrong = 0;
    for (long i = 0; i < LENGTH; i++)
        wrong += ((noderef)elements_of(array)[i])->value != ((i & 1) ? 3 : 5);
    is_int(wrong, 0, "every element, stored from a relocated vector lane, is its node");
    corral_ref reversed = corral_alloc_array(&ref_array_type, LENGTH);
    copy_references(reversed, array, LENGTH);
    corral_collect();
    wrong = 0;
    for (long i = 0; i < LENGTH; i++)
        wrong += ((noderef)elements_of(reversed)[i])->value != ((i & 1) ? 5 : 3);
    is_int(wrong, 0, "a reversed copy through vectors of references");
    is_int(a->value + b->value, 8, "the references passed in are relocated");
}

/* ------------------------------------------------ TLAB words across a poll */

static const corral_type word_array_type = CORRAL_DATA_ARRAY_TYPE("long[]", long);

/* Two allocations with a loop between that calls nothing: the optimiser may
 * keep the TLAB's cursor in a register from the first to the second (it
 * forwarded the first's store to the second's load), and the pass then puts
 * a poll in the loop. A collection there resets the TLAB; the second
 * allocation bumped the stale cursor into memory the collection had freed
 * (gen.py seed 91324: "neither in the heap nor a large object"). */
__attribute__((noinline)) noderef allocate_around_loop(corral_ref words, long length, long *sum)
{
    noderef first = new_node(7);
    long total = 0;
    for (long i = 0; i < length; i++)
        total += ((long CORRAL_REF *)((char CORRAL_REF *)words + sizeof(corral_array_header)))[i];
    noderef second = new_node(total);
    second->left = first;
    *sum = total;
    return second;
}

static void tlab_across_poll(void *arg)
{
    test_start(arg, true);
    enum { LENGTH = 20000 };
    corral_ref words = corral_alloc_array(&word_array_type, LENGTH);
    for (long i = 0; i < LENGTH; i++)
        ((long CORRAL_REF *)((char CORRAL_REF *)words + sizeof(corral_array_header)))[i] = i;
    corral_stats before, after;
    corral_get_stats(&before);
    long sum = 0;
    noderef pair = allocate_around_loop(words, LENGTH, &sum);
    corral_get_stats(&after);
    ok(after.collections > before.collections, "a collection at the loop's poll (%llu)",
       (unsigned long long)(after.collections - before.collections));
    make_tree(6); /* allocation after it: a second object at a stale cursor would be overwritten */
    corral_collect();
    is_int(pair->value, (long)LENGTH * (LENGTH - 1) / 2, "the object allocated after the loop is intact");
    is_int(pair->left->value, 7, "and so is the one before it");
}

int main(void)
{
    plan(9);
    tap_subtest("calls with arguments on the stack", 60, stack_arguments, MOVING_STRESS);
    tap_subtest("printf with many arguments", 60, many_argument_printf, MOVING_STRESS);
    tap_subtest("references passed through varargs", 60, variadic_references, MOVING_STRESS);
    tap_subtest("VLAs, aligned allocas and realigned frames", 60, dynamic_frames,
                MOVING_STRESS);
    tap_subtest("small structs of references by value", 60, small_structs, MOVING_STRESS);
    tap_subtest("varargs functions with results", 60, varargs_results, MOVING_STRESS);
    tap_subtest("inline assembly", 60, inline_assembly, MOVING_STRESS);
    /* polls: a collection the first time each poll site is reached, the
     * vectorized loop's among them. */
    tap_subtest("vectorized loops over references", 60, vector_loops,
                "CORRAL_GC_STRESS=move-all,poison,polls CORRAL_GC_VERIFY=after");
    tap_subtest("allocations on both sides of a loop the pass polls", 60, tlab_across_poll,
                "CORRAL_GC_STRESS=move-all,poison,polls CORRAL_GC_VERIFY=before,after");
    return done_testing();
}
