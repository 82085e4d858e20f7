/* fork.c — fork() in a process with attached threads.
 *
 * The child of fork() runs one thread, the one that forked. What the others
 * held must be quiescent at the fork, or forgotten in the child:
 *
 *   prepare (forking thread)             parent               child
 *   MANAGED -> UNMANAGED
 *   stop the world: epoch odd, every     restart the world    forget every other thread
 *     other thread PARKED or UNMANAGED                          (records, handles, handshake)
 *   stackmap registry lock               unlock, reverse      unlock, reverse
 *   rcu_fork lock, call_rcu paused       call_rcu resumes     call_rcu renewed
 *   thread registry lock                                      restart the world
 *                                        back to MANAGED      back to MANAGED
 *
 * Stopping the world first means no collection runs at the fork (its
 * coordinator and workers would not exist in the child) and every MANAGED
 * thread is parked at a safepoint, where it holds none of the short runtime
 * locks (heap, LOS, pins, weak handles, global roots: taken with no poll
 * inside, the guarantee the collector relies on when it takes them). The
 * locks a stopped thread may still hold, an UNMANAGED registrar's stackmap
 * registry lock, an attaching thread's registry lock, liburcu's own, are
 * taken after the stop in their nesting order, so none of their holders
 * waits for us. GC workers are idle; workers.c's own child handler forgets
 * them and the child collects on its one thread.
 */
#include "fork.h"

#include <pthread.h>

#include "coordinator.h"
#include "fatal.h"
#include "rcu_fork.h"
#include "stackmap/registry.h"
#include "thread.h"

/* The forking thread's own, from prepare to the parent or child handler:
 * the epoch its stop holds and whether it left MANAGED for the fork. */
static __thread uint32_t fork_stop_epoch;
static __thread bool fork_left_managed;

static void fork_prepare(void)
{
    corral_thread *self = corral_current_thread;
    fork_left_managed =
        self && atomic_load_explicit(&self->state, memory_order_relaxed) == THREAD_MANAGED;
    /* Blocking here MANAGED would hold up a collection we wait for. */
    if (fork_left_managed)
        thread_publish_stopped(self, THREAD_UNMANAGED);
    fork_stop_epoch = world_stop_for_fork();
    stackmap_registry_lock_for_fork();
    rcu_fork_prepare();
    threads_registry_lock_for_fork();
}

static void fork_parent(void)
{
    threads_registry_unlock_after_fork();
    rcu_fork_parent();
    stackmap_registry_unlock_after_fork();
    world_restart_after_fork(fork_stop_epoch);
    if (fork_left_managed)
        thread_resume_managed(corral_current_thread);
}

static void fork_child(void)
{
    corral_thread *self = corral_current_thread;
    threads_forget_others_in_child(self);
    thread_handshake_forget_in_child(self);
    gc_epoch_forget_resuming_in_child();
    threads_registry_unlock_after_fork();
    rcu_fork_child();
    stackmap_registry_unlock_after_fork();
    world_restart_after_fork(fork_stop_epoch);
    if (fork_left_managed)
        thread_resume_managed(self);
}

static void install(void)
{
    if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0)
        CORRAL_FATAL("pthread_atfork for corral's fork handlers failed");
}

void fork_handlers_install(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
}

/* base/rcu_fork.c knows nothing of this layer: it is told, before main and
 * so before any thread can reach liburcu's registry (a JIT may register
 * stackmaps before corral_init), to install the handlers on first use. */
__attribute__((constructor)) static void install_on_first_rcu_use(void)
{
    rcu_fork_set_enter_hook(fork_handlers_install);
}
