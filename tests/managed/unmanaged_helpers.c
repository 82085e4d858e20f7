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
