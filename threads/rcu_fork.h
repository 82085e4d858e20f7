/* rcu_fork.h — liburcu registration and grace periods that survive fork().
 *
 * liburcu's memb flavour takes an internal registry lock in
 * rcu_register_thread, rcu_unregister_thread and synchronize_rcu, and has no
 * fork hooks for it: a child forked while another thread held it deadlocks at
 * its first registration (a GC worker of a pool the child starts). Every
 * corral call into those goes through here, holding rcu_fork_lock shared, and
 * fork() takes it exclusively (fork.c's handlers), so no corral thread is
 * inside liburcu's registry lock when the address space is copied. A fork
 * waits for grace periods in flight; fork.c stops the world first without
 * holding a read section, so they end. */
#ifndef CORRAL_THREADS_RCU_FORK_H
#define CORRAL_THREADS_RCU_FORK_H

void rcu_fork_register_thread(void);
void rcu_fork_unregister_thread(void);
void rcu_fork_synchronize(void);
/* fork.c's handlers: take rcu_fork_lock and pause call_rcu; undo both. */
void rcu_fork_prepare(void);
void rcu_fork_parent(void);
void rcu_fork_child(void);

#endif /* CORRAL_THREADS_RCU_FORK_H */
