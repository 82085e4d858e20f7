/* fastpaths.c — card marking against field logging, the two remembered-set
 * barriers design.md section 12 weighs, on the same store-heavy kernel as
 * rewire.c, in plain C so both fast paths are compared without the pass:
 *   card   corral_write_barrier: one byte store per reference store (corral's)
 *   field  Whippet-style field logging: one bit per 8-byte field word in a
 *          side table; the fast path loads the byte and tests the bit, and
 *          the slow path (first store to a field since the log was cleared)
 *          sets it atomically and appends the field to a log
 * Both are timed against the kernel with no barrier, alternately in one
 * process. Every object counts as old (no nursery yet), so after the first
 * round field logging runs its fast path only: its best case.
 * Output (bench_common.h): BENCH name barrier_ns plain_ns ratio checksum */
#include "bench_common.h"

#include <sys/mman.h>

typedef struct node {
    corral_header header;
    struct node *left, *right;
    long value;
} node;

static const uint32_t node_refs[] = {offsetof(node, left), offsetof(node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", node, node_refs);

static uintptr_t log_base, log_size;
static uint8_t *log_bits;
static void **field_log;
static size_t field_log_count, field_log_capacity;

static __attribute__((noinline)) void field_log_slow(uint8_t *byte, uint8_t bit, void *field)
{
    __atomic_fetch_or(byte, bit, __ATOMIC_RELAXED);
    if (field_log_count < field_log_capacity)
        field_log[field_log_count++] = field;
}

static inline __attribute__((always_inline)) void field_barrier(void *field)
{
    uintptr_t offset = (uintptr_t)field - log_base;
    if (__builtin_expect(offset < log_size, 1)) {
        uint8_t *byte = &log_bits[offset >> 6];
        uint8_t bit = (uint8_t)(1u << ((offset >> 3) & 7));
        if (__builtin_expect(!(__atomic_load_n(byte, __ATOMIC_RELAXED) & bit), 0))
            field_log_slow(byte, bit, field);
    }
}

typedef struct context {
    node **nodes; /* C memory: the heap is big enough that nothing collects */
    long count, rounds;
} context;

#define DEFINE_KERNEL(name, BARRIER)                                                       \
    static __attribute__((noinline)) long name(void *opaque)                               \
    {                                                                                      \
        context *c = opaque;                                                               \
        long count = c->count, sum = 0;                                                    \
        for (long round = 0; round < c->rounds; round++)                                   \
            for (long i = 0; i < count; i++) {                                             \
                node *a = c->nodes[i];                                                     \
                node *b = c->nodes[(i * 7 + round) & (count - 1)];                         \
                a->left = b;                                                               \
                BARRIER(a, &a->left);                                                      \
                b->right = a;                                                              \
                BARRIER(b, &b->right);                                                     \
                sum += a->value;                                                           \
            }                                                                              \
        return sum;                                                                        \
    }

#define NO_BARRIER(object, field) ((void)(object), (void)(field))
#define CARD_BARRIER(object, field) corral_write_barrier((object), (field))
#define FIELD_BARRIER(object, field) ((void)(object), field_barrier(field))

DEFINE_KERNEL(kernel_none, NO_BARRIER)
DEFINE_KERNEL(kernel_card, CARD_BARRIER)
DEFINE_KERNEL(kernel_field, FIELD_BARRIER)

static void run(const char *size, long count, long iterations, int repeats)
{
    context c = {malloc((size_t)count * sizeof(node *)), count, iterations / count};
    for (long i = 0; i < count; i++) {
        c.nodes[i] = corral_alloc(&node_type);
        c.nodes[i]->value = i;
    }
    corral_stats stats;
    corral_get_stats(&stats);
    if (stats.collections) {
        fprintf(stderr, "fastpaths: a GC moved the nodes; run with CORRAL_HEAP_MIN=512M\n");
        exit(1);
    }
    char name[64];
    snprintf(name, sizeof name, "card-%s", size);
    bench_compare(name, kernel_card, kernel_none, &c, (double)c.rounds * (double)count, repeats);
    snprintf(name, sizeof name, "field-%s", size);
    bench_compare(name, kernel_field, kernel_none, &c, (double)c.rounds * (double)count, repeats);
    free(c.nodes);
}

int main(int argc, char **argv)
{
    bench_start();
    if (!corral_barrier.heap_size) {
        fprintf(stderr, "fastpaths: run with CORRAL_GC_GENERATIONAL=1\n");
        return 1;
    }
    /* The field log's side table: one bit per 8-byte word of the heap. */
    log_base = corral_barrier.heap_base;
    log_size = corral_barrier.heap_size;
    log_bits = mmap(NULL, log_size >> 6, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    field_log_capacity = 1u << 22;
    field_log = malloc(field_log_capacity * sizeof *field_log);
    if (log_bits == MAP_FAILED || !field_log)
        return 1;
    int repeats = bench_repeats(argc, argv, 5);
    run("4k", 4096, 64L << 20, repeats);
    run("1m", 1L << 20, 32L << 20, repeats);
    corral_thread_detach();
    return 0;
}
