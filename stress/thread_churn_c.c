/* thread_churn_c.c — threads that attach to corral from plain C, the way a
 * VM's native threads do: attach, enter managed code through
 * corral_call_managed, detach. */
#include <corral.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "thread_churn.h"

static void *native_thread(void *slot)
{
    if (corral_thread_attach() != 0) {
        fprintf(stderr, "torture: thread_churn: attach from C: %s\n", corral_last_error());
        exit(1);
    }
    /* Plain C code holds no references: it is UNMANAGED outside the call. */
    corral_enter_unmanaged();
    corral_call_managed(managed_churn_body, slot);
    corral_thread_detach();
    return NULL;
}

void c_churn_attached_threads(long first_slot, long count)
{
    pthread_t *threads = malloc((size_t)count * sizeof *threads);
    if (!threads)
        abort();
    for (long i = 0; i < count; i++)
        if (pthread_create(&threads[i], NULL, native_thread, (void *)(first_slot + i)) != 0) {
            fprintf(stderr, "torture: thread_churn: pthread_create failed\n");
            exit(1);
        }
    for (long i = 0; i < count; i++)
        pthread_join(threads[i], NULL);
    free(threads);
}
