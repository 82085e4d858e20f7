/* fork.h — fork() in a process with attached threads (see fork.c). */
#ifndef CORRAL_THREADS_FORK_H
#define CORRAL_THREADS_FORK_H

/* Installs the pthread_atfork handlers, once per process; any thread. */
void fork_handlers_install(void);

#endif /* CORRAL_THREADS_FORK_H */
