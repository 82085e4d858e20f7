/* rcu_fork.h — liburcu registration and grace periods that survive fork().
 *
 * liburcu's memb flavour takes an internal registry lock in
 * rcu_register_thread, rcu_unregister_thread and synchronize_rcu, and has no
 * fork hooks for it: a child forked while another thread held it deadlocks at
 * its first registration (a GC worker of a pool the child starts). Every
 * corral call into those goes through here, holding rcu_fork_lock shared, and
 * fork() takes it exclusively (the fork handlers of the layer that owns
 * fork, threads/fork.c, call rcu_fork_prepare/parent/child in their order),
 * so no corral thread is inside liburcu's registry lock when the address
 * space is copied. A fork waits for grace periods in flight; threads/fork.c
 * stops the world first without holding a read section, so they end. */
#ifndef CORRAL_BASE_RCU_FORK_H
#define CORRAL_BASE_RCU_FORK_H

void rcu_fork_register_thread(void);
void rcu_fork_unregister_thread(void);
void rcu_fork_synchronize(void);
/* Runs hook at the start of each call above, before liburcu's registry is
 * touched: the fork handlers must be installed by then (threads/fork.c sets
 * it before main; once per process). Without a hook nothing is run. */
void rcu_fork_set_enter_hook(void (*hook)(void));
/* The fork handlers' part: take rcu_fork_lock and pause call_rcu; undo both. */
void rcu_fork_prepare(void);
void rcu_fork_parent(void);
void rcu_fork_child(void);

#endif /* CORRAL_BASE_RCU_FORK_H */
