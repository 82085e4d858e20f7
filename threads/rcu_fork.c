/* rcu_fork.c — see rcu_fork.h. */
#include "rcu_fork.h"

#include <pthread.h>
#include <urcu.h>

#include "fatal.h"

/* Held around corral's liburcu registry calls (any thread) and by fork's
 * prepare handler until the parent and child handlers release it. */
static pthread_mutex_t rcu_fork_lock = PTHREAD_MUTEX_INITIALIZER;

static void lock_for_fork(void)
{
    pthread_mutex_lock(&rcu_fork_lock);
}

static void unlock_after_fork(void)
{
    pthread_mutex_unlock(&rcu_fork_lock);
}

static void install_fork_handlers(void)
{
    if (pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork) != 0)
        CORRAL_FATAL("pthread_atfork for the RCU registry failed");
}

static void enter(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_fork_handlers);
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
