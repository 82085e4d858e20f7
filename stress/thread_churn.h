/* thread_churn.h — the interface between thread_churn's managed and plain C halves. */
#ifndef CORRAL_STRESS_THREAD_CHURN_H
#define CORRAL_STRESS_THREAD_CHURN_H

/* Plain C: starts count raw pthreads that attach from C, run
 * managed_churn_body(slot) through corral_call_managed and detach; joins them. */
void c_churn_attached_threads(long first_slot, long count);

/* Managed, entered through corral_call_managed or corral_thread_create. */
void *managed_churn_body(void *slot);

#endif /* CORRAL_STRESS_THREAD_CHURN_H */
