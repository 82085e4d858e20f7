/* Plain C (not managed) linked into managed tests: real C frames between
 * managed ones. Built by the ordinary compiler, so corral-opt never sees it;
 * managed callers reach these through GC-transition wrappers. */
#include <corral.h>
#include <pthread.h>
#include <setjmp.h>
#include <unistd.h>

/* Managed -> C -> managed: called while UNMANAGED, calls back through
 * corral_call_managed, `depth` levels deep (C and managed frames alternate). */
void *unmanaged_call_back(void *(*callback)(void *), void *arg)
{
    return corral_call_managed(callback, arg);
}

/* Blocks in read() until a byte arrives: a thread stuck in C. */
long unmanaged_blocking_read(int fd)
{
    char byte;
    return read(fd, &byte, 1);
}

/* Reads bytes of a managed object it was handed: the caller pinned it. */
long unmanaged_sum_bytes(const char *bytes, long length)
{
    long sum = 0;
    for (long i = 0; i < length; i++)
        sum += bytes[i];
    return sum;
}

/* Lets a collection in (managed callback) before reading the bytes: only
 * the pin the caller holds keeps them where they were. */
long unmanaged_collect_and_sum(const char *bytes, long length, void *(*collect)(void *))
{
    corral_call_managed(collect, NULL);
    return unmanaged_sum_bytes(bytes, length);
}

/* longjmp out of plain C into the managed caller's setjmp: not allowed
 * (docs/managed-c.md rule 6), the runtime stops the program. */
void unmanaged_longjmp(jmp_buf env, int value)
{
    longjmp(env, value);
}

/* A thread start routine in plain C: spins, never polling, until *flag is
 * set. Started attached (MANAGED) it would hold up every collection. */
void *unmanaged_spin_until_set(void *flag)
{
    while (!__atomic_load_n((int *)flag, __ATOMIC_ACQUIRE))
        ;
    return flag;
}

/* Calls fn(i, -i, i / 2.0, i * 1000) for i in 0..n-1 and sums its results:
 * a callback with arguments of every width (the managed function passed
 * here is entered through the pass's callback entry). */
long unmanaged_apply(long (*fn)(signed char, short, double, long), int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += fn((signed char)i, (short)-i, i / 2.0, (long)i * 1000);
    return sum;
}

/* Calls fn(i) for i in 0..n-1: a callback returning nothing. */
void unmanaged_each(void (*fn)(long), long n)
{
    for (long i = 0; i < n; i++)
        fn(i);
}

/* A struct of callbacks C finds in memory (not as arguments): calls
 * ops->each(i) for i in 0..n-1 and hands the sum to ops->finish. */
struct unmanaged_ops {
    long (*each)(long);
    long (*finish)(long);
};
long unmanaged_run_ops(const struct unmanaged_ops *ops, long n)
{
    long sum = 0;
    for (long i = 0; i < n; i++)
        sum += ops->each(i);
    return ops->finish(sum);
}

/* A table of callbacks, count entries, each called once with its index. */
long unmanaged_run_table(long (*const *table)(long), int count)
{
    long sum = 0;
    for (int i = 0; i < count; i++)
        sum += table[i](i);
    return sum;
}

/* A thread pool of plain C: `threads` threads the program never attached,
 * each calling work(i) for i in 0..calls-1; returns the sum of the results.
 * Managed work runs through its entry, which attaches the thread. */
typedef struct pool_job {
    long (*work)(long);
    long calls, sum;
    pthread_t thread;
} pool_job;

static void *pool_thread(void *context)
{
    pool_job *job = context;
    for (long i = 0; i < job->calls; i++)
        job->sum += job->work(i);
    return NULL;
}

long unmanaged_pool_run(long (*work)(long), int threads, long calls)
{
    pool_job jobs[16];
    if (threads > 16)
        threads = 16;
    for (int t = 0; t < threads; t++) {
        jobs[t] = (pool_job){.work = work, .calls = calls};
        if (pthread_create(&jobs[t].thread, NULL, pool_thread, &jobs[t]) != 0)
            return -1;
    }
    long sum = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(jobs[t].thread, NULL);
        sum += jobs[t].sum;
    }
    return sum;
}

/* A thread of plain C whose pthread_key destructor calls work(argument),
 * returning the destructor's result. With call_in_body its body calls
 * work(argument) first (the entry attaches the thread), and the destructor
 * calls it in the round after its first (it arms the key again), so after
 * the runtime's own destructor detached the thread: glibc runs a round's
 * destructors in the order of their keys. */
typedef struct destructor_job {
    long (*work)(long);
    long argument, result;
    int call_in_body, rounds;
} destructor_job;

static pthread_key_t destructor_key;

static void destructor_calls_work(void *context)
{
    destructor_job *job = context;
    if (job->call_in_body && job->rounds++ == 0) {
        pthread_setspecific(destructor_key, job); /* again in the next round */
        return;
    }
    job->result = job->work(job->argument);
}

static void *destructor_thread(void *context)
{
    destructor_job *job = context;
    if (job->call_in_body)
        job->work(job->argument);
    pthread_setspecific(destructor_key, job);
    return NULL;
}

long unmanaged_call_from_key_destructor(long (*work)(long), long argument, int call_in_body)
{
    destructor_job job = {work, argument, -1, call_in_body, 0};
    pthread_t thread;
    if (pthread_key_create(&destructor_key, destructor_calls_work) != 0 ||
        pthread_create(&thread, NULL, destructor_thread, &job) != 0)
        return -1;
    pthread_join(thread, NULL);
    pthread_key_delete(destructor_key);
    return job.result;
}
