/* Plain C for test_foreign_callers.c that calls a managed function of it by
 * name, as a VM's C runtime calls into compiled code: the symbol is the
 * function's entry (polls/callbacks.c). Built by the ordinary compiler. */
#include <pthread.h>

long foreign_by_name(long x); /* managed, in test_foreign_callers.c */

/* Called from managed code through a transition wrapper: UNMANAGED. */
long c_calls_by_name(long x)
{
    return foreign_by_name(x) + 1;
}

static void *by_name_thread(void *x)
{
    return (void *)foreign_by_name((long)x);
}

/* From a thread of plain C that nobody attached. */
long c_thread_calls_by_name(long x)
{
    pthread_t thread;
    void *result;
    if (pthread_create(&thread, NULL, by_name_thread, (void *)x) != 0)
        return -1;
    pthread_join(thread, &result);
    return (long)result;
}
