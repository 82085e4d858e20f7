/* Plain C (not managed) linked into managed tests: real C frames between
 * managed ones. Built by the ordinary compiler, so corral-opt never sees it;
 * managed callers reach these through GC-transition wrappers. */
#include <corral.h>
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
