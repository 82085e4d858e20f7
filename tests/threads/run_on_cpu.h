/* run_on_cpu.h — pins the calling thread to one CPU at a scheduling policy,
 * for tests that make a thread slow to run on any machine: sharing a CPU at
 * SCHED_IDLE, it runs only when the others there wait. Needs _GNU_SOURCE,
 * <pthread.h>, <sched.h> and corral_test.h. */
#ifndef CORRAL_TEST_RUN_ON_CPU_H
#define CORRAL_TEST_RUN_ON_CPU_H

/* The calling thread runs on CPU cpu only, at policy (SCHED_OTHER or SCHED_IDLE). */
static TAP_UNUSED void run_on_cpu(int cpu, int policy)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        bail_out("pthread_setaffinity_np to CPU %d failed", cpu);
    if (pthread_setschedparam(pthread_self(), policy, &(struct sched_param){0}) != 0)
        bail_out("pthread_setschedparam(%s) failed",
                 policy == SCHED_IDLE ? "SCHED_IDLE" : "SCHED_OTHER");
}

#endif /* CORRAL_TEST_RUN_ON_CPU_H */
