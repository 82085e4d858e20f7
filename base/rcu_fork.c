/* rcu_fork.c — see rcu_fork.h. */
#include "rcu_fork.h"

#include <pthread.h>
#include <stdatomic.h>
#include <urcu.h>

/* Shared around corral's liburcu registry calls (any thread), exclusive in
 * fork's prepare handler until the parent and child handlers release it.
 * Shared, not a mutex: liburcu lets threads register while a grace period
 * waits, and corral relies on that. A collection holds an RCU read section
 * and may start a GC worker, which registers; behind a mutex held by a
 * synchronize_rcu that waits for that very read section, the worker (and so
 * the collection) would wait forever. */
static pthread_rwlock_t rcu_fork_lock = PTHREAD_RWLOCK_INITIALIZER;

/* Writer: rcu_fork_set_enter_hook, before main (threads/fork.c). Readers:
 * every entry, on any thread (acquire, though it is set before any thread). */
static void (*_Atomic enter_hook)(void);

void rcu_fork_set_enter_hook(void (*hook)(void))
{
    atomic_store_explicit(&enter_hook, hook, memory_order_release);
}

/* The hook installs the fork handlers, which order this lock among the others. */
static void enter(void)
{
    void (*hook)(void) = atomic_load_explicit(&enter_hook, memory_order_acquire);
    if (hook)
        hook();
    pthread_rwlock_rdlock(&rcu_fork_lock);
}

static void leave(void)
{
    pthread_rwlock_unlock(&rcu_fork_lock);
}

void rcu_fork_register_thread(void)
{
    enter();
    rcu_register_thread();
    leave();
}

void rcu_fork_unregister_thread(void)
{
    enter();
    rcu_unregister_thread();
    leave();
}

void rcu_fork_synchronize(void)
{
    enter();
    synchronize_rcu();
    leave();
}

/* call_rcu's threads pause outside their grace periods (liburcu's own fork
 * protocol), so none holds liburcu's locks when the address space is copied;
 * the child gets a fresh call_rcu thread for callbacks queued before. */
void rcu_fork_prepare(void)
{
    pthread_rwlock_wrlock(&rcu_fork_lock);
    call_rcu_before_fork();
}

void rcu_fork_parent(void)
{
    call_rcu_after_fork_parent();
    pthread_rwlock_unlock(&rcu_fork_lock);
}

void rcu_fork_child(void)
{
    call_rcu_after_fork_child();
    /* Not an unlock: glibc tells a writer's unlock by the owner's TID, and
     * the child's thread has a new one. Alone in the child, start afresh. */
    pthread_rwlock_init(&rcu_fork_lock, NULL);
}
