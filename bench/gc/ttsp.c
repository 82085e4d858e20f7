/* ttsp — time to safepoint, and the cost of a GC transition.
 *
 *   corral-ttsp [THREADS,...] [SECONDS]      default: 1,2,4,...,ncpu and 2 s
 *
 * For each mutator count M (its own process): M threads run managed code,
 * half in call-free compute loops (only the pass's loop polls let a GC in),
 * half allocating small trees; the main thread requests a collection every
 * millisecond. Time to safepoint (request -> every thread stopped) of every
 * collection gives the median, p99 and max, with both transition orderings
 * (fence, membarrier). Then one thread times a managed call to a trivial C
 * function through a GC-transition wrapper, in both orderings, against the
 * same call made as a leaf (no transition).
 * Goal (issue 6): p99 TTSP <= 20 us at 16 mutators.
 */
#include <corral.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

uint64_t unmanaged_nop(uint64_t x);
CORRAL_LEAF uint64_t leaf_nop(uint64_t x);

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef left, right;
    long value;
};
static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);

static noderef make_tree(int depth)
{
    noderef n = (noderef)corral_alloc(&node_type);
    n->value = depth;
    if (depth > 0) {
        n->left = make_tree(depth - 1);
        n->right = make_tree(depth - 1);
    }
    return n;
}

enum { MAX_SAMPLES = 1 << 16 };
static uint64_t samples[MAX_SAMPLES];
static atomic_int sample_count;
static atomic_int stop_flag;
static volatile uint64_t sink;

static CORRAL_NOPOLL void record_ttsp(const corral_gc_info *info, void *context)
{
    (void)context;
    int i = atomic_fetch_add_explicit(&sample_count, 1, memory_order_relaxed);
    if (i < MAX_SAMPLES)
        samples[i] = info->ttsp_ns;
}

static void *compute_loop(void *arg)
{
    (void)arg;
    uint64_t x = 88172645463325252ull;
    while (!atomic_load_explicit(&stop_flag, memory_order_relaxed))
        for (int i = 0; i < 1000000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
    sink = x;
    return NULL;
}

static void *allocate_loop(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop_flag, memory_order_relaxed))
        make_tree(6);
    return NULL;
}

static void start(const char *fence)
{
    setenv("CORRAL_TRANSITION_FENCE", fence, 1);
    setenv("CORRAL_GC_THREADS", "2", 1);
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0) {
        fprintf(stderr, "ttsp: %s\n", corral_last_error());
        exit(1);
    }
}

typedef struct ttsp_result {
    uint64_t median, p99, max;
    int collections;
    double call_ns, leaf_ns;
} ttsp_result;

static void measure_ttsp(int mutators, double seconds, const char *fence, ttsp_result *r)
{
    start(fence);
    corral_set_gc_callback(record_ttsp, NULL);
    pthread_t threads[256];
    for (int i = 0; i < mutators; i++)
        corral_thread_create(&threads[i], i % 2 ? allocate_loop : compute_loop, NULL);
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL); /* let them all run */
    atomic_store(&sample_count, 0);
    uint64_t end = bench_now_ns() + (uint64_t)(seconds * 1e9);
    while (bench_now_ns() < end) {
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
        corral_collect();
    }
    atomic_store(&stop_flag, 1);
    for (int i = 0; i < mutators; i++)
        pthread_join(threads[i], NULL);
    int n = atomic_load(&sample_count);
    if (n > MAX_SAMPLES)
        n = MAX_SAMPLES;
    bench_sort_u64(samples, (uint64_t)n);
    r->collections = n;
    r->median = n ? samples[n / 2] : 0;
    r->p99 = n ? samples[(n * 99) / 100] : 0;
    r->max = n ? samples[n - 1] : 0;
}

static void measure_calls(const char *fence, ttsp_result *r)
{
    start(fence);
    enum { CALLS = 20 * 1000 * 1000 };
    uint64_t x = 0;
    uint64_t began = bench_now_ns();
    for (int i = 0; i < CALLS; i++)
        x = unmanaged_nop(x);
    uint64_t middle = bench_now_ns();
    for (int i = 0; i < CALLS; i++)
        x = leaf_nop(x);
    uint64_t ended = bench_now_ns();
    sink = x;
    r->call_ns = (double)(middle - began) / CALLS;
    r->leaf_ns = (double)(ended - middle) / CALLS;
}

/* Runs body in a child (corral_init runs once per process). */
static int in_child(void (*body)(int, double, const char *, ttsp_result *), int mutators,
                    double seconds, const char *fence, ttsp_result *r)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        ttsp_result mine = {0};
        body(mutators, seconds, fence, &mine);
        exit(write(fds[1], &mine, sizeof mine) == sizeof mine ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], r, sizeof *r);
    close(fds[0]);
    int status;
    waitpid(child, &status, 0);
    return got == sizeof *r && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void calls_body(int mutators, double seconds, const char *fence, ttsp_result *r)
{
    (void)mutators;
    (void)seconds;
    measure_calls(fence, r);
}

int main(int argc, char **argv)
{
    int counts[32];
    int n = 0;
    if (argc > 1) {
        for (char *item = strtok(argv[1], ","); item && n < 32; item = strtok(NULL, ","))
            counts[n++] = atoi(item);
    } else {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        for (int m = 1; m <= cpus && n < 32; m *= 2)
            counts[n++] = m;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    const char *fences[2] = {"fence", "membarrier"};
    printf("time to safepoint: M mutators (half call-free loops, half allocating), a GC "
           "requested every 1 ms for %.1f s\n",
           seconds);
    printf("%9s %11s %7s %11s %11s %11s\n", "mutators", "ordering", "GCs", "median us",
           "p99 us", "max us");
    for (int i = 0; i < n; i++)
        for (int f = 0; f < 2; f++) {
            ttsp_result r;
            if (in_child(measure_ttsp, counts[i], seconds, fences[f], &r) != 0) {
                printf("%9d %11s failed\n", counts[i], fences[f]);
                return 1;
            }
            printf("%9d %11s %7d %11.1f %11.1f %11.1f\n", counts[i], fences[f], r.collections,
                   r.median / 1e3, r.p99 / 1e3, r.max / 1e3);
            printf("RESULT bench=ttsp impl=corral threads=%d params=ordering:%s status=ok "
                   "gc_count=%d ttsp_median_us=%.2f ttsp_p99_us=%.2f ttsp_max_us=%.2f\n",
                   counts[i], fences[f], r.collections, r.median / 1e3, r.p99 / 1e3,
                   r.max / 1e3);
            fflush(stdout);
        }
    printf("GC transition cost: a managed call to a trivial C function\n");
    for (int f = 0; f < 2; f++) {
        ttsp_result r;
        if (in_child(calls_body, 0, 0, fences[f], &r) != 0)
            return 1;
        printf("  %-10s through a wrapper: %6.2f ns/call; as a leaf (no transition): %5.2f ns/call\n",
               fences[f], r.call_ns, r.leaf_ns);
        printf("RESULT bench=transition impl=corral threads=1 params=ordering:%s status=ok "
               "wrapped_ns=%.3f leaf_ns=%.3f\n",
               fences[f], r.call_ns, r.leaf_ns);
    }
    return 0;
}
