/* rewire.c — the write barrier's cost on a store-heavy kernel: rewiring the
 * fields of existing (old) objects in a loop, two reference stores per
 * iteration and little else. Built with corralc -O2 --write-barrier; the same
 * kernel is defined twice, once marked corral_no_barrier, and bench_compare
 * alternates them in one process. Two sizes: 4096 nodes (cache-resident,
 * where the barrier's instructions show most) and 1M nodes (memory-bound).
 * Output (bench_common.h): BENCH name barrier_ns plain_ns ratio checksum */
#include "bench_common.h"

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef left, right;
    long value;
};

static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("node[]");

typedef corral_ref CORRAL_REF *slotref;

static inline __attribute__((always_inline)) slotref slots_of(corral_ref array)
{
    return (slotref)((char CORRAL_REF *)array + sizeof(corral_array_header));
}

/* The node array lives in a handle: a reference must not sit in stack memory. */
typedef struct rewire_context {
    corral_handle nodes;
    long count; /* a power of two */
    long rounds;
} rewire_context;

#define DEFINE_REWIRE(name, marks)                                                         \
    marks __attribute__((noinline)) long name(void *opaque)                                 \
    {                                                                                      \
        rewire_context *context = opaque;                                                  \
        long count = context->count, sum = 0;                                              \
        for (long round = 0; round < context->rounds; round++) {                           \
            slotref slots = slots_of((corral_ref)*context->nodes);                        \
            for (long i = 0; i < count; i++) {                                             \
                noderef a = (noderef)slots[i];                                             \
                noderef b = (noderef)slots[(i * 7 + round) & (count - 1)];                 \
                a->left = b;                                                               \
                b->right = a;                                                              \
                sum += a->value;                                                           \
            }                                                                              \
        }                                                                                  \
        return sum;                                                                        \
    }

DEFINE_REWIRE(rewire_barrier, )
DEFINE_REWIRE(rewire_plain, __attribute__((annotate("corral_no_barrier"))))

static void run(const char *name, long count, long total_iterations, int repeats)
{
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle nodes = corral_handle_new(corral_alloc_array(&ref_array_type, (uint64_t)count));
    for (long i = 0; i < count; i++) {
        noderef n = (noderef)corral_alloc(&node_type);
        n->value = i;
        slots_of((corral_ref)*nodes)[i] = n;
    }
    /* Everything is old from here on, as far as a nursery would be concerned. */
    corral_collect();
    rewire_context context = {nodes, count, total_iterations / count};
    bench_compare(name, rewire_barrier, rewire_plain, &context,
                  (double)context.rounds * (double)count, repeats);
    corral_handle_scope_close(scope);
}

int main(int argc, char **argv)
{
    bench_start();
    int repeats = bench_repeats(argc, argv, 5);
    run("rewire-4k", 4096, 64L << 20, repeats);
    run("rewire-1m", 1L << 20, 32L << 20, repeats);
    corral_thread_detach();
    return 0;
}
