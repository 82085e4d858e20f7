/* workers_test.c — the GC worker pool: each phase runs fn exactly once per worker, pools
 * start, stop and start again, pool threads are RCU readers that sleep between GCs,
 * parallel_for covers every index once, and the phase statistics add up.
 *
 * Usage: workers.t [seed]
 */
#include "workers.h"
#include "tap.h"

#include <corral.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <urcu.h>

static uint64_t test_seed;

static void spin_ns(uint64_t ns)
{
    uint64_t until = gc_workers_now_ns() + ns;
    while (gc_workers_now_ns() < until) {
    }
}

/* ---- Exactly once per worker per phase ----------------------------------------------- */

typedef struct once_context {
    uint64_t phase;
    uint64_t random_seed;
    unsigned calls[GC_WORKERS_MAX];          /* each worker writes only its own entry */
    uint64_t phase_seen[GC_WORKERS_MAX];
    pthread_t thread[GC_WORKERS_MAX];
    int current[GC_WORKERS_MAX];
} once_context;

static void count_call(unsigned worker, void *argument)
{
    once_context *context = argument;
    context->calls[worker]++;
    context->phase_seen[worker] = context->phase;
    context->thread[worker] = pthread_self();
    context->current[worker] = gc_workers_current();
    /* Now and then one worker is slow, so the others wait at the end of the phase. */
    uint64_t random = context->random_seed ^ (context->phase * 131 + worker);
    if (tap_random(&random) % 16 == 0)
        tap_sleep_ns(tap_random(&random) % 200000);
}

static bool phases_ran_once_each(once_context *context, unsigned workers, uint64_t phases)
{
    pthread_t self = pthread_self();
    bool good = pthread_equal(context->thread[0], self);
    for (unsigned worker = 0; worker < workers; worker++) {
        good &= context->calls[worker] == phases;
        good &= context->phase_seen[worker] == phases - 1;
        good &= context->current[worker] == (int)worker;
        for (unsigned other = 0; other < worker; other++)
            good &= !pthread_equal(context->thread[worker], context->thread[other]);
    }
    return good;
}

static void run_phases_exactly_once(void *argument)
{
    unsigned workers = (unsigned)(uintptr_t)argument;
    static once_context context;
    context.random_seed = test_seed;
    ok(gc_workers_start(workers) == 0, "start %u workers", workers);
    ok(gc_workers_count() == workers, "count is %u", workers);
    enum { PHASES = 300 };
    bool every_phase = true;
    for (uint64_t phase = 0; phase < PHASES; phase++) {
        context.phase = phase;
        gc_workers_run("once", count_call, &context, NULL);
        every_phase &= phases_ran_once_each(&context, workers, phase + 1);
    }
    ok(every_phase, "each of %d phases ran fn once on each worker, worker 0 on the caller",
       PHASES);
    ok(gc_workers_current() == GC_WORKER_NONE, "no worker index outside a phase");
    gc_workers_stop();
    ok(gc_workers_count() == 1, "stopped: count back to 1");
}

static void test_exactly_once(unsigned workers)
{
    char name[96];
    snprintf(name, sizeof name, "%u workers: 300 phases, fn exactly once per worker per phase",
             workers);
    tap_subtest(name, 60, run_phases_exactly_once, (void *)(uintptr_t)workers);
}

static void run_without_pool(void *argument)
{
    (void)argument;
    static once_context context;
    ok(gc_workers_count() == 1, "no pool: count 1");
    gc_phase_stats stats;
    gc_workers_run("serial", count_call, &context, &stats);
    ok(phases_ran_once_each(&context, 1, 1), "no pool: fn ran once, as worker 0, on the caller");
    ok(stats.workers == 1 && stats.wall_ns >= stats.work_ns, "no pool: stats for one worker");
}

static void run_restart(void *argument)
{
    (void)argument;
    static once_context context;
    unsigned sizes[] = {4, 2, 7, 1, 3};
    uint64_t total_phases = 0;
    bool good = true;
    gc_workers_stop(); /* stopping no pool is harmless */
    for (unsigned round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            memset(&context, 0, sizeof context);
            good &= gc_workers_start(sizes[i]) == 0;
            for (uint64_t phase = 0; phase < 20; phase++) {
                context.phase = phase;
                gc_workers_run("restart", count_call, &context, NULL);
            }
            good &= phases_ran_once_each(&context, sizes[i], 20);
            gc_workers_stop();
            total_phases += 20;
        }
    }
    ok(good, "start/run/stop 15 times with 1..7 workers: %llu phases all exact",
       (unsigned long long)total_phases);
}

static void run_fork(void *argument)
{
    (void)argument;
    static once_context context;
    gc_workers_start(4);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        /* The child has none of its parent's pool threads. */
        bool alone = gc_workers_count() == 1;
        gc_workers_run("child alone", count_call, &context, NULL);
        alone &= phases_ran_once_each(&context, 1, 1);
        bool own_pool = true;
        /* TSan kills a child that starts threads after a multithreaded fork. */
        if (!TAP_UNDER_TSAN) {
            memset(&context, 0, sizeof context);
            own_pool = gc_workers_start(3) == 0;
            gc_workers_run("child pool", count_call, &context, NULL);
            own_pool &= phases_ran_once_each(&context, 3, 1);
            gc_workers_stop();
        }
        _exit(alone && own_pool ? 0 : 1);
    }
    int status;
    waitpid(child, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
       "a forked child runs phases alone, then starts a pool of its own");
    gc_workers_run("parent", count_call, &context, NULL);
    ok(phases_ran_once_each(&context, 4, 1), "the parent's pool is untouched by the fork");
    gc_workers_stop();
}

/* Expected "corral: error:" lines would only clutter the TAP output: send them away. */
static int quiet_stderr(void)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *null = fopen("/dev/null", "w");
    dup2(fileno(null), STDERR_FILENO);
    fclose(null);
    return saved;
}

static void restore_stderr(int saved)
{
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
}

static void test_start_errors(void)
{
    int saved = quiet_stderr();
    int zero = gc_workers_start(0);
    char zero_error[256];
    snprintf(zero_error, sizeof zero_error, "%s", corral_last_error());
    int too_many = gc_workers_start(GC_WORKERS_MAX + 1);
    restore_stderr(saved);
    ok(zero == -1, "start(0) fails");
    like_str(zero_error, "expected 1 .. 256", "start(0) says the range");
    ok(too_many == -1, "start(%d) fails", GC_WORKERS_MAX + 1);
}

static void run_double_start(void *argument)
{
    (void)argument;
    ok(gc_workers_start(2) == 0, "first start");
    int saved = quiet_stderr();
    int second = gc_workers_start(3);
    restore_stderr(saved);
    ok(second == -1, "second start fails");
    like_str(corral_last_error(), "already started", "and says why");
    ok(gc_workers_count() == 2, "the first pool is untouched");
    gc_workers_stop();
}

/* ---- Pool threads: RCU readers, no async signals, asleep between GCs ------------------ */

typedef struct rcu_context {
    _Atomic bool reader_inside;
    _Atomic uint64_t reader_left_ns;
    uint64_t synchronize_returned_ns;
} rcu_context;

static void rcu_reader_or_synchronizer(unsigned worker, void *argument)
{
    rcu_context *context = argument;
    if (worker == 1) {
        rcu_read_lock();
        atomic_store(&context->reader_inside, true);
        tap_sleep_ns(50 * 1000 * 1000);
        atomic_store(&context->reader_left_ns, gc_workers_now_ns());
        rcu_read_unlock();
    } else if (worker == 0) {
        while (!atomic_load(&context->reader_inside))
            sched_yield();
        synchronize_rcu();
        context->synchronize_returned_ns = gc_workers_now_ns();
    }
}

static void run_rcu_registration(void *argument)
{
    (void)argument;
    static rcu_context context;
    gc_workers_start(3);
    gc_workers_run("rcu", rcu_reader_or_synchronizer, &context, NULL);
    gc_workers_stop();
    uint64_t left = atomic_load(&context.reader_left_ns);
    ok(left != 0 && context.synchronize_returned_ns >= left,
       "synchronize_rcu on the collector waited for a pool thread's read-side section");
}

static void check_signal_mask(unsigned worker, void *argument)
{
    _Atomic unsigned *wrong = argument;
    if (worker == 0)
        return;
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    if (!sigismember(&mask, SIGINT) || !sigismember(&mask, SIGUSR1) ||
        !sigismember(&mask, SIGPROF) || sigismember(&mask, SIGSEGV) ||
        sigismember(&mask, SIGBUS))
        atomic_fetch_add(wrong, 1);
}

static void run_signal_mask(void *argument)
{
    (void)argument;
    _Atomic unsigned wrong = 0;
    gc_workers_start(4);
    gc_workers_run("signals", check_signal_mask, &wrong, NULL);
    gc_workers_stop();
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    ok(wrong == 0, "pool threads block async signals, not SIGSEGV/SIGBUS");
    ok(!sigismember(&mask, SIGINT), "the caller's signal mask is restored");
}

static void do_nothing(unsigned worker, void *argument)
{
    (void)worker;
    (void)argument;
}

static uint64_t process_cpu_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void run_parked_between_gcs(void *argument)
{
    (void)argument;
    gc_workers_start(8);
    gc_workers_run("warm", do_nothing, NULL, NULL);
    uint64_t cpu_before = process_cpu_ns();
    tap_sleep_ns(300 * 1000 * 1000);
    uint64_t cpu_used = process_cpu_ns() - cpu_before;
    ok(cpu_used < 30 * 1000 * 1000,
       "8 workers idle for 300 ms used %.2f ms of CPU (parked, not spinning)", cpu_used / 1e6);
    gc_workers_run("after", do_nothing, NULL, NULL);
    gc_workers_stop();
}

static void measure_phase_cost(void *argument)
{
    (void)argument;
    unsigned sizes[] = {1, 2, 4};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        gc_workers_start(sizes[i]);
        enum { PHASES = 2000 };
        uint64_t start = gc_workers_now_ns();
        for (int phase = 0; phase < PHASES; phase++)
            gc_workers_run("empty", do_nothing, NULL, NULL);
        uint64_t took = gc_workers_now_ns() - start;
        gc_workers_stop();
        diag("cost: an empty phase on %u workers takes %.1f us (back to back)", sizes[i],
             took / 1e3 / PHASES);
    }
    pass("phase cost measured");
}

/* ---- Parallel-for -------------------------------------------------------------------- */

typedef struct range_context {
    gc_parallel_range range;
    size_t chunk;           /* the chunk the range chose */
    _Atomic uint8_t *hits;  /* times each index was handed out */
    _Atomic unsigned bad_chunks;
} range_context;

static void record_chunk(unsigned worker, size_t first, size_t end, void *argument)
{
    range_context *context = argument;
    (void)worker;
    if (first % context->chunk != 0 || end <= first || end - first > context->chunk ||
        end > context->range.count)
        atomic_fetch_add(&context->bad_chunks, 1);
    for (size_t index = first; index < end; index++)
        atomic_fetch_add_explicit(&context->hits[index], 1, memory_order_relaxed);
}

static void parallel_for_phase(unsigned worker, void *argument)
{
    range_context *context = argument;
    gc_parallel_for(&context->range, worker, record_chunk, context);
}

static bool cover_once(size_t count, size_t chunk)
{
    range_context context = {.bad_chunks = 0};
    context.hits = calloc(count ? count : 1, sizeof *context.hits);
    gc_parallel_range_init(&context.range, count, chunk);
    context.chunk = context.range.chunk;
    gc_workers_run("parallel_for", parallel_for_phase, &context, NULL);
    size_t wrong = 0;
    for (size_t index = 0; index < count; index++)
        wrong += context.hits[index] != 1;
    if (wrong || context.bad_chunks)
        diag("count %zu chunk %zu: %zu indices not hit once, %u bad chunks", count, chunk,
             wrong, context.bad_chunks);
    free(context.hits);
    return wrong == 0 && context.bad_chunks == 0 && (chunk == 0 || context.chunk == chunk);
}

static void run_parallel_for(void *argument)
{
    unsigned workers = (unsigned)(uintptr_t)argument;
    size_t counts[] = {0, 1, 2, 7, 64, 1001, 4099, 100003};
    size_t chunks[] = {0, 1, 3, 64, 1000, 200000};
    gc_workers_start(workers);
    unsigned combinations = 0, good = 0;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
            combinations++;
            good += cover_once(counts[c], chunks[k]);
        }
    gc_workers_stop();
    ok(good == combinations, "%u/%u (count, chunk) combinations covered every index once",
       good, combinations);
}

static void test_parallel_for(unsigned workers)
{
    char name[96];
    snprintf(name, sizeof name, "parallel_for on %u workers: every index exactly once", workers);
    tap_subtest(name, 60, run_parallel_for, (void *)(uintptr_t)workers);
}

/* ---- Statistics ---------------------------------------------------------------------- */

enum { ITEMS = 2000, ITEM_NS = 2000, NOTED_IDLE_NS = 1000 };

static void busy_items(unsigned worker, size_t first, size_t end, void *argument)
{
    (void)worker;
    (void)argument;
    spin_ns((end - first) * ITEM_NS);
}

static void stats_phase(unsigned worker, void *argument)
{
    gc_parallel_range *range = argument;
    gc_parallel_for(range, worker, busy_items, NULL);
    /* Idle is clamped to a worker's own time: make sure it had that much. */
    spin_ns(NOTED_IDLE_NS);
    gc_phase_note_idle(worker, NOTED_IDLE_NS);
    for (unsigned attempt = 0; attempt <= worker; attempt++)
        gc_phase_note_steal(worker, attempt == 0);
}

static void serial_piece_phase(unsigned worker, void *argument)
{
    (void)argument;
    if (worker != 1)
        return;
    uint64_t start = gc_workers_now_ns();
    spin_ns(5 * 1000 * 1000);
    gc_phase_note_span(gc_workers_now_ns() - start);
    gc_phase_note_span(1000); /* a smaller piece does not lower the maximum */
}

/* The one-line summary, as a TAP diagnostic. */
static void diag_stats(const gc_phase_stats *stats)
{
    char line[512] = "";
    FILE *out = fmemopen(line, sizeof line - 1, "w");
    gc_phase_stats_print(out, stats);
    fclose(out);
    diag("%s", line);
}

static void run_stats(void *argument)
{
    (void)argument;
    enum { WORKERS = 4 };
    gc_workers_start(WORKERS);
    gc_parallel_range range;
    gc_parallel_range_init(&range, ITEMS, 16);
    gc_phase_stats stats;
    gc_workers_run("busy", stats_phase, &range, &stats);
    diag_stats(&stats);
    is_str(stats.name, "busy", "stats carry the phase name");
    is_int(stats.workers, WORKERS, "stats count the workers");
    ok(stats.work_ns + stats.idle_ns + stats.wake_ns + stats.tail_ns ==
           stats.wall_ns * WORKERS,
       "work + idle + wake + tail == wall x workers");
    ok(stats.work_ns <= stats.wall_ns * WORKERS, "work <= wall x workers");
    ok(stats.work_ns + stats.idle_ns >= (uint64_t)ITEMS * ITEM_NS,
       "work (+ the notional idle) >= the items' own time");
    ok(stats.span_ns >= 16 * ITEM_NS && stats.span_ns <= stats.wall_ns,
       "span is the longest chunk: >= one chunk's time, <= wall");
    is_int(stats.idle_ns, WORKERS * NOTED_IDLE_NS, "idle is what the workers noted");
    is_int(stats.steals, WORKERS, "one steal per worker");
    is_int(stats.steal_attempts, WORKERS * (WORKERS + 1) / 2, "attempts 1 + 2 + 3 + 4");
    /* The other workers' empty calls count as work too, and a worker
     * descheduled inside one (4 workers on 2 cores under qemu, say) turns
     * milliseconds of waiting into work: the best of a few runs measures
     * the phase, not the scheduler. */
    double predicted = 0;
    for (int attempt = 0; attempt < 5; attempt++) {
        gc_workers_run("serial piece", serial_piece_phase, NULL, &stats);
        diag_stats(&stats);
        predicted = gc_predicted_speedup(stats.work_ns, stats.span_ns, 8);
        if (predicted >= 0.99 && predicted < 1.2)
            break;
    }
    ok(stats.span_ns >= 5 * 1000 * 1000 && stats.span_ns <= stats.wall_ns,
       "a noted serial piece is the span (the maximum of the notes), <= wall");
    ok(predicted >= 0.99 && predicted < 1.2,
       "one serial piece is all the work: predicted x%.2f at 8 workers", predicted);
    gc_workers_run("quiet", do_nothing, NULL, &stats);
    ok(stats.span_ns == 0 && stats.steals == 0 && stats.idle_ns == 0,
       "a new phase starts from zero");
    gc_workers_stop();
}

/* A phase run in two parts with serial code before, between and after them, as the
 * compactor's plan and the minor sweep run theirs. */
static void run_stats_in_parts(void *argument)
{
    (void)argument;
    enum { WORKERS = 4, SERIAL_NS = 3 * 1000 * 1000 };
    gc_workers_start(WORKERS);
    gc_phase_stats whole = {0}, part;
    uint64_t start = gc_workers_now_ns();
    spin_ns(SERIAL_NS / 3);
    uint64_t parts_work = 0, parts_span = 0;
    for (int i = 0; i < 2; i++) {
        gc_parallel_range range;
        gc_parallel_range_init(&range, ITEMS, 16);
        gc_workers_run("part", stats_phase, &range, &part);
        parts_work += part.work_ns;
        parts_span += part.span_ns;
        gc_phase_stats_add(&whole, &part);
        spin_ns(SERIAL_NS / 3);
    }
    uint64_t parts_wall = whole.wall_ns;
    gc_phase_stats_close(&whole, start);
    diag_stats(&whole);
    uint64_t serial = whole.wall_ns - parts_wall;
    ok(serial >= SERIAL_NS / 3 * 3, "the serial code is the wall outside the parts: %.2f ms",
       serial / 1e6);
    ok(whole.work_ns == parts_work + serial, "serial code counts as work");
    ok(whole.span_ns == parts_span + serial, "and as span: no worker count shortens it");
    ok(whole.work_ns + whole.idle_ns + whole.wake_ns + whole.tail_ns ==
           whole.wall_ns * WORKERS,
       "work + idle + wake + tail == wall x workers still holds");
    double predicted = gc_predicted_speedup(whole.work_ns, whole.span_ns, 16);
    ok(predicted <= (double)whole.work_ns / (double)serial,
       "the prediction at 16 workers (x%.2f) is bound by the serial code", predicted);
    gc_workers_stop();
}

static void test_predicted_speedup(void)
{
    ok(gc_predicted_speedup(100, 10, 4) == 4.0, "work 100 span 10: x4 on 4 workers");
    ok(gc_predicted_speedup(100, 10, 16) == 10.0, "work 100 span 10: x10 on 16 (span-bound)");
    ok(gc_predicted_speedup(100, 0, 8) == 8.0, "no span: linear");
    ok(gc_predicted_speedup(0, 0, 8) == 1.0, "no work: x1");
    ok(gc_predicted_speedup(100, 500, 8) == 1.0, "span clamped to work: x1");
}

/* ---- Misuse is fatal ----------------------------------------------------------------- */

static void nested_phase(unsigned worker, void *argument)
{
    (void)argument;
    (void)worker;
    gc_workers_run("inner", do_nothing, NULL, NULL);
}

/* Runs fn in a child with stderr captured; true when it aborted saying `needle`. */
static bool dies_saying(void (*fn)(void), const char *needle)
{
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0)
        return false;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        dup2(pipe_ends[1], STDERR_FILENO);
        fn();
        _exit(0);
    }
    close(pipe_ends[1]);
    char output[4096] = "";
    size_t used = 0;
    ssize_t got;
    while (used < sizeof output - 1 &&
           (got = read(pipe_ends[0], output + used, sizeof output - 1 - used)) > 0)
        used += (size_t)got;
    output[used] = '\0';
    close(pipe_ends[0]);
    int status;
    waitpid(child, &status, 0);
    bool aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
    if (!aborted || !strstr(output, needle))
        diag("child status %d, stderr:\n%s", status, output);
    return aborted && strstr(output, "corral: fatal:") && strstr(output, needle);
}

static void start_nested_phase(void)
{
    gc_workers_start(2);
    gc_workers_run("outer", nested_phase, NULL, NULL);
}

static void run_nested_is_fatal(void *argument)
{
    (void)argument;
    ok(dies_saying(start_nested_phase, "inside another phase"),
       "a phase started inside a phase is a fatal error naming the mistake");
}

int main(int argc, char **argv)
{
    test_seed = tap_seed(argc, argv);
    test_predicted_speedup();
    test_start_errors();
    tap_subtest("no pool: a phase runs on the caller alone", 10, run_without_pool, NULL);
    tap_subtest("a second start fails and leaves the pool alone", 10, run_double_start, NULL);
    unsigned sizes[] = {1, 2, 3, 4, 8, 16};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        test_exactly_once(sizes[i]);
    tap_subtest("start, stop and start again", 60, run_restart, NULL);
    tap_subtest("fork: the child has no pool until it starts one", 30, run_fork, NULL);
    tap_subtest("pool threads are RCU readers", 20, run_rcu_registration, NULL);
    tap_subtest("pool threads block async signals", 10, run_signal_mask, NULL);
    tap_subtest("pool threads sleep between GCs", 20, run_parked_between_gcs, NULL);
    unsigned for_sizes[] = {1, 2, 3, 4, 8};
    for (size_t i = 0; i < sizeof for_sizes / sizeof for_sizes[0]; i++)
        test_parallel_for(for_sizes[i]);
    tap_subtest("phase statistics add up", 30, run_stats, NULL);
    tap_subtest("a phase in parts counts its serial code", 30, run_stats_in_parts, NULL);
    tap_subtest("a nested phase is fatal", 20, run_nested_is_fatal, NULL);
    tap_subtest("cost of an empty phase", 60, measure_phase_cost, NULL);
    return done_testing();
}
