/* fullgc — how long a full collection takes, per worker count.
 *
 *   corral-fullgc [LIVE_MB [WORKERS,...]]     default: 512 MB, 1,2,4,...,ncpu
 *
 * For each worker count a child process builds LIVE_MB of live data in
 * trees of 32-byte nodes (header, two references, one word), with as much
 * garbage interleaved tree by tree, then collects twice:
 *   compacting  the first GC: half the heap is garbage, every live object slides
 *   steady      the second GC: the heap is dense, nothing moves (mark-dominated)
 * It prints ms per GB of live data, ns per live object, the speed-up over one
 * worker, and the speed-up the GC's own work/span figures predict at 4, 8
 * and 16 workers (optimistic bound and Brent's bound), so scaling beyond the
 * cores of the machine at hand is a stated prediction, not a guess.
 * Goal (issue 9): <= 300 ms for 512 MB live on 2 workers; >= 1.8x from 1 to 2.
 */
#include <corral.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef left, right;
    long value;
};
static const uint32_t node_refs[] = {offsetof(struct node, left), offsetof(struct node, right)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("tree[]");

enum { TREE_DEPTH = 14, MAX_GCS = 4 };

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

static long count_nodes(noderef tree)
{
    return tree ? 1 + count_nodes(tree->left) + count_nodes(tree->right) : 0;
}

/* Copied by the GC callback; read by main after the collections. */
static corral_gc_info infos[MAX_GCS];
static int info_count;

static CORRAL_NOPOLL void record_gc(const corral_gc_info *info, void *context)
{
    (void)context;
    if (info_count < MAX_GCS)
        infos[info_count++] = *info;
}

typedef struct run_result {
    double compacting_ms, steady_ms;
    double compacting_moved_mb;
    long objects;
    double predicted[3][2]; /* at 4, 8, 16 workers: [optimistic, brent] (compacting GC) */
    double work_ms, span_ms;
} run_result;

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* In a child: builds the heap, collects twice, writes a run_result. */
static void measure(unsigned workers, long live_mb, int out_fd)
{
    char text[64];
    snprintf(text, sizeof text, "%u", workers);
    setenv("CORRAL_GC_THREADS", text, 1);
    /* Room for live data and as much garbage, so the build never collects. */
    snprintf(text, sizeof text, "%ldM", live_mb * 3 + 64);
    setenv("CORRAL_HEAP_MIN", text, 1);
    setenv("CORRAL_HEAP_MAX", text, 1);
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0) {
        fprintf(stderr, "fullgc: %s\n", corral_last_error());
        exit(1);
    }
    corral_set_gc_callback(record_gc, NULL);
    long tree_bytes = bench_tree_size(TREE_DEPTH) * 32;
    long trees = live_mb * 1024 * 1024 / tree_bytes;
    corral_ref keep = corral_alloc_array(&ref_array_type, (uint64_t)trees);
    noderef CORRAL_REF *slots =
        (noderef CORRAL_REF *)((char CORRAL_REF *)keep + sizeof(corral_array_header));
    for (long i = 0; i < trees; i++) {
        slots[i] = make_tree(TREE_DEPTH);
        make_tree(TREE_DEPTH); /* garbage between live trees */
    }
    corral_collect();
    corral_collect();
    run_result result = {0};
    long objects = 0;
    for (long i = 0; i < trees; i++)
        objects += count_nodes(slots[i]);
    if (objects != trees * bench_tree_size(TREE_DEPTH) || info_count < 2) {
        fprintf(stderr, "fullgc: %ld nodes after GC, expected %ld\n", objects,
                trees * bench_tree_size(TREE_DEPTH));
        exit(BENCH_EXIT_CHECK);
    }
    result.objects = objects;
    result.compacting_ms = ms(infos[0].pause_ns);
    result.steady_ms = ms(infos[1].pause_ns);
    result.compacting_moved_mb = (double)infos[0].moved_bytes / (1 << 20);
    unsigned targets[3] = {4, 8, 16};
    for (int t = 0; t < 3; t++)
        for (int brent = 0; brent < 2; brent++)
            result.predicted[t][brent] = corral_gc_predicted_speedup(&infos[0], targets[t], brent);
    for (int p = 0; p < CORRAL_GC_PHASES; p++) {
        result.work_ms += ms(infos[0].phase_work_ns[p]);
        result.span_ms += ms(infos[0].phase_span_ns[p]);
    }
    if (write(out_fd, &result, sizeof result) != sizeof result)
        exit(1);
    exit(0);
}

static int run_child(unsigned workers, long live_mb, run_result *result)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        measure(workers, live_mb, fds[1]);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], result, sizeof *result);
    close(fds[0]);
    int status;
    waitpid(child, &status, 0);
    return got == sizeof *result && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    long live_mb = bench_arg_long(argc, argv, 1, "LIVE_MB", 512, 16, 1 << 20);
    unsigned counts[32];
    int n = 0;
    if (argc > 2) {
        for (char *item = strtok(argv[2], ","); item && n < 32; item = strtok(NULL, ","))
            counts[n++] = (unsigned)atoi(item);
    } else {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        for (unsigned w = 1; w <= (unsigned)cpus && n < 32; w *= 2)
            counts[n++] = w;
    }
    printf("full GC, %ld MB live in trees of 32-byte nodes (depth %d), as much garbage "
           "interleaved\n",
           live_mb, TREE_DEPTH);
    fflush(stdout);
    printf("%7s %14s %10s %10s %14s %10s %9s %9s  predicted@4/8/16 (Brent)\n", "workers",
           "compacting ms", "ms/GB", "ns/object", "steady ms", "speed-up", "work ms", "span ms");
    double base = 0;
    for (int i = 0; i < n; i++) {
        run_result r;
        if (run_child(counts[i], live_mb, &r) != 0) {
            printf("%7u failed\n", counts[i]);
            return 1;
        }
        if (i == 0)
            base = r.compacting_ms * counts[0];
        double gb = (double)live_mb / 1024.0;
        printf("%7u %14.1f %10.1f %10.2f %14.1f %9.2fx %9.1f %9.2f  x%.1f/%.1f/%.1f (x%.1f/%.1f/%.1f)\n",
               counts[i], r.compacting_ms, r.compacting_ms / gb, r.compacting_ms * 1e6 / r.objects,
               r.steady_ms, base / r.compacting_ms, r.work_ms, r.span_ms, r.predicted[0][0],
               r.predicted[1][0], r.predicted[2][0], r.predicted[0][1], r.predicted[1][1],
               r.predicted[2][1]);
        printf("RESULT bench=fullgc impl=corral threads=%u params=live_mb:%ld status=ok "
               "wall_ms=%.3f compacting_ms=%.3f steady_ms=%.3f moved_mb=%.1f ns_per_object=%.3f "
               "work_ms=%.3f span_ms=%.3f predicted4=%.2f predicted8=%.2f predicted16=%.2f "
               "brent4=%.2f brent8=%.2f brent16=%.2f\n",
               counts[i], live_mb, r.compacting_ms, r.compacting_ms, r.steady_ms,
               r.compacting_moved_mb, r.compacting_ms * 1e6 / r.objects, r.work_ms, r.span_ms,
               r.predicted[0][0], r.predicted[1][0], r.predicted[2][0], r.predicted[0][1],
               r.predicted[1][1], r.predicted[2][1]);
        fflush(stdout);
    }
    return 0;
}
