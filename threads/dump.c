/* dump.c — corral_dump_threads: every attached thread's state and managed
 * frames, taken by handshakes (each thread is stopped only while its own
 * stack is read; the world keeps running). */
#include <corral.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu.h>

#include "entry.h"
#include "symbolize.h"
#include "thread.h"
#include "walker.h"
#include "vec.h"

typedef struct dump_context {
    int fd;
    size_t frames;
} dump_context;

static void print_frame(uintptr_t return_address, size_t frame, size_t segment, size_t stack,
                        void *context)
{
    dump_context *dump = context;
    char symbol[256], suspended[48] = "";
    corral_describe_return_address(return_address, symbol, sizeof symbol);
    if (stack)
        snprintf(suspended, sizeof suspended, " (suspended stack %zu)", stack);
    dprintf(dump->fd, "    #%zu %s%s%s\n", frame, symbol, segment ? " (enclosing segment)" : "",
            suspended);
    dump->frames++;
}

static const char *state_name(uint32_t state)
{
    return state == THREAD_MANAGED ? "MANAGED" : state == THREAD_UNMANAGED ? "UNMANAGED" : "PARKED";
}

/* Runs while the thread is stopped (by itself at a poll, or on its behalf). */
static void dump_one(corral_thread *thread, void *context)
{
    dump_context *dump = context;
    dprintf(dump->fd, "  %s (tid %d) %s%s\n", thread->name, (int)thread->tid,
            state_name(atomic_load_explicit(&thread->state, memory_order_relaxed)),
            thread->segment ? "" : ", no managed code on its stack");
    walker_for_each_frame(thread, print_frame, dump);
}

CORRAL_RUNTIME_ENTRY int corral_dump_threads(int fd)
{
    corral_thread *self = thread_require_attached("corral_dump_threads");
    RUNTIME_ENTER(self);
    thread_list threads = {0};
    rcu_read_lock();
    size_t count = threads_snapshot(&threads);
    dump_context dump = {fd, 0};
    dprintf(fd, "corral: %zu attached threads\n", count);
    for (size_t i = 0; i < count; i++)
        thread_handshake(self, threads.items[i], dump_one, &dump);
    rcu_read_unlock();
    VEC_FREE(threads);
    RUNTIME_LEAVE(self);
    return (int)count;
}
