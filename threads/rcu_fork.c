/* rcu_fork.c — see rcu_fork.h. */
#include "rcu_fork.h"

#include <pthread.h>
#include <urcu.h>

#include "fork.h"

/* Held around corral's liburcu registry calls (any thread) and by fork's
 * prepare handler until the parent and child handlers release it. */
static pthread_mutex_t rcu_fork_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every fork handler lives in fork.c, which orders this lock among the others. */
static void enter(void)
{
    fork_handlers_install();
    pthread_mutex_lock(&rcu_fork_lock);
}

void rcu_fork_register_thread(void)
{
    enter();
    rcu_register_thread();
    pthread_mutex_unlock(&rcu_fork_lock);
}

void rcu_fork_unregister_thread(void)
{
    enter();
    rcu_unregister_thread();
    pthread_mutex_unlock(&rcu_fork_lock);
}

void rcu_fork_synchronize(void)
{
    enter();
    synchronize_rcu();
    pthread_mutex_unlock(&rcu_fork_lock);
}

/* call_rcu's threads pause outside their grace periods (liburcu's own fork
 * protocol), so none holds liburcu's locks when the address space is copied;
 * the child gets a fresh call_rcu thread for callbacks queued before. */
void rcu_fork_prepare(void)
{
    pthread_mutex_lock(&rcu_fork_lock);
    call_rcu_before_fork();
}

void rcu_fork_parent(void)
{
    call_rcu_after_fork_parent();
    pthread_mutex_unlock(&rcu_fork_lock);
}

void rcu_fork_child(void)
{
    call_rcu_after_fork_child();
    pthread_mutex_unlock(&rcu_fork_lock);
}
