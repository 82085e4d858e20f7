/* arith.c — boxed against tagged integers in an interpreted arithmetic loop.
 *
 *   corral-vm-arith [N [REPEATS]]      defaults: 20000000 3
 * A small bytecode interpreter (managed C, built with corralc) sums i*3+1
 * for i from N down to 1, keeping its registers (i, acc, sum) as values of
 * a dynamic language. Two builds of the same interpreter run in one process:
 *   boxed   every integer a heap object (a header and the number): each
 *           arithmetic instruction allocates one, as examples/vm did;
 *   tagged  every integer an immediate under OCaml's tag scheme (n<<1|1,
 *           corral/tagged.h): no allocation at all.
 * Each prints a RESULT line (impl=boxed, impl=tagged; the best of REPEATS
 * runs) with the bytes it allocated; the tagged line carries the ratio
 * boxed_over_tagged of their times. Both sums are checked.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "corral_bench.h"

static const char bench_name[] = "vm-arith";

enum op { OP_LOAD_I, OP_MUL3, OP_INC, OP_ADD_SUM, OP_DEC_I, OP_JNZ, OP_HALT };

static const unsigned char program[] = {
    OP_LOAD_I, OP_MUL3, OP_INC, OP_ADD_SUM, OP_DEC_I, OP_JNZ, 0, OP_HALT,
};

/* A boxed integer. */
typedef struct box CORRAL_REF *boxref;
struct box {
    corral_header header;
    long n;
};
static const corral_type box_type = CORRAL_LEAF_TYPE("vm-arith.box", struct box);

static boxref box_int(long n)
{
    boxref box = corral_alloc(&box_type);
    if (!box)
        bench_out_of_memory(bench_name, "boxed");
    box->n = n;
    return box;
}

static long box_value(boxref box)
{
    return box->n;
}

#define SCHEME ((corral_tag_scheme)CORRAL_TAG_SCHEME_OCAML)

static corral_value tagged_int(long n)
{
    return corral_tag_int(SCHEME, n);
}

static long tagged_value(corral_value value)
{
    return corral_untag_int(SCHEME, value);
}

/* The interpreter, once per representation: value_t, make (long -> value)
 * and number (value -> long). The dispatch loop polls at every instruction. */
#define DEFINE_INTERPRET(name, value_t, make, number)                                      \
    static __attribute__((noinline)) long name(long n)                                     \
    {                                                                                      \
        value_t i = make(n), acc = make(0), sum = make(0);                                 \
        int pc = 0;                                                                        \
        for (;;) {                                                                         \
            switch (program[pc++]) {                                                       \
            case OP_LOAD_I: acc = i; break;                                                \
            case OP_MUL3: acc = make(number(acc) * 3); break;                              \
            case OP_INC: acc = make(number(acc) + 1); break;                               \
            case OP_ADD_SUM: sum = make(number(sum) + number(acc)); break;                 \
            case OP_DEC_I: i = make(number(i) - 1); break;                                 \
            case OP_JNZ: pc = number(i) != 0 ? program[pc] : pc + 1; break;                \
            default: return number(sum);                                                   \
            }                                                                              \
        }                                                                                  \
    }

DEFINE_INTERPRET(interpret_boxed, boxref, box_int, box_value)
DEFINE_INTERPRET(interpret_tagged, corral_value, tagged_int, tagged_value)

typedef struct variant {
    const char *impl;
    long (*interpret)(long n);
    uint64_t best_ns, bytes_allocated, collections;
    struct bench_pauses pauses;
} variant;

/* The best of repeats runs; allocation and collections over all of them. */
static void measure(variant *v, long n, long repeats, long expected)
{
    memset(&corral_pauses, 0, sizeof corral_pauses);
    corral_stats before, after;
    corral_get_stats(&before);
    for (long r = 0; r < repeats; r++) {
        uint64_t start = bench_now_ns();
        long sum = v->interpret(n);
        uint64_t elapsed = bench_now_ns() - start;
        bench_check_long(bench_name, v->impl, "sum of i*3+1", sum, expected);
        if (r == 0 || elapsed < v->best_ns)
            v->best_ns = elapsed;
    }
    corral_get_stats(&after);
    v->bytes_allocated = after.bytes_allocated - before.bytes_allocated;
    v->collections = after.collections - before.collections;
    v->pauses = corral_pauses;
}

static void report(const variant *v, long n, long repeats, const char *more)
{
    char params[64], extra[256];
    snprintf(params, sizeof params, "n:%ld,repeats:%ld", n, repeats);
    snprintf(extra, sizeof extra, "bytes_allocated=%llu%s%s",
             (unsigned long long)v->bytes_allocated, *more ? " " : "", more);
    struct bench_result result = {bench_name, v->impl, 1, params, v->best_ns,
                                  (long)v->collections, &v->pauses, extra};
    bench_print_result(&result);
}

int main(int argc, char **argv)
{
    long n = bench_arg_long(argc, argv, 1, "N", 20000000, 1, 1000000000);
    long repeats = bench_arg_long(argc, argv, 2, "REPEATS", 3, 1, 100);
    corral_options options = {.tag_scheme = &SCHEME};
    if (corral_init(&options) != CORRAL_OK)
        return corral_bench_failed(bench_name, "corral_init");
    corral_set_gc_callback(corral_bench_on_gc, NULL);
    if (corral_thread_attach() != CORRAL_OK)
        return corral_bench_failed(bench_name, "corral_thread_attach");
    corral_collect(); /* the GC workers start here, outside the timed runs */
    long expected = 3 * (n * (n + 1) / 2) + n;
    static variant boxed = {"boxed", interpret_boxed}, tagged = {"tagged", interpret_tagged};
    measure(&boxed, n, repeats, expected);
    measure(&tagged, n, repeats, expected);
    printf("%s: sum %ld; boxed %.1f ms, %.1f MiB allocated; tagged %.1f ms, %.1f MiB; "
           "boxed/tagged time %.2f\n",
           bench_name, expected, (double)boxed.best_ns / 1e6,
           (double)boxed.bytes_allocated / (1 << 20), (double)tagged.best_ns / 1e6,
           (double)tagged.bytes_allocated / (1 << 20),
           (double)boxed.best_ns / (double)tagged.best_ns);
    report(&boxed, n, repeats, "");
    char ratio[64];
    snprintf(ratio, sizeof ratio, "boxed_over_tagged=%.2f",
             (double)boxed.best_ns / (double)tagged.best_ns);
    report(&tagged, n, repeats, ratio);
    corral_thread_detach();
    corral_shutdown();
    return 0;
}
