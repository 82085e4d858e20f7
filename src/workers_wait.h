/* workers_wait.h — how GC workers wait: futex sleeps and a spin-then-yield backoff.
 *
 * Internal to workers*.c. The machines corral runs on are often oversubscribed (more GC
 * workers and mutators than cores), so no wait here spins for long: a backoff pauses a
 * few times, then yields the core, and long waits sleep in the kernel.
 */
#ifndef CORRAL_WORKERS_WAIT_H
#define CORRAL_WORKERS_WAIT_H

#include "arch.h"
#include "fatal.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps while *word == expected (the kernel checks atomically), at most timeout_ns when
 * it is not 0. Returns early on a wake, a changed word, a signal or a spurious wake-up:
 * callers re-check their condition in a loop. */
static inline void workers_futex_wait(_Atomic uint32_t *word, uint32_t expected,
                                      uint64_t timeout_ns)
{
    struct timespec timeout = {(time_t)(timeout_ns / 1000000000u),
                               (long)(timeout_ns % 1000000000u)};
    long result = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected,
                          timeout_ns ? &timeout : NULL, NULL, 0);
    if (result != 0 && errno != EAGAIN && errno != EINTR && errno != ETIMEDOUT)
        CORRAL_FATAL_ERRNO("futex wait on %p (expected %u)", (void *)word, expected);
}

static inline void workers_futex_wake_all(_Atomic uint32_t *word)
{
    if (syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0) < 0)
        CORRAL_FATAL_ERRNO("futex wake on %p", (void *)word);
}

static inline void workers_cpu_relax(void)
{
    arch_cpu_relax();
}

/* Backoff for a short wait: 2^round pauses for the first rounds (about 10 µs in all),
 * then one sched_yield per round so a descheduled worker holding the work can run. */
typedef struct workers_backoff {
    unsigned round;
} workers_backoff;

enum { WORKERS_SPIN_ROUNDS = 7, WORKERS_YIELD_ROUNDS = 16 };

static inline void workers_backoff_step(workers_backoff *backoff)
{
    if (backoff->round < WORKERS_SPIN_ROUNDS) {
        for (unsigned i = 0; i < 1u << backoff->round; i++)
            workers_cpu_relax();
    } else {
        sched_yield();
    }
    if (backoff->round < UINT_MAX)
        backoff->round++;
}

/* True once spinning and yielding have not helped and the waiter should sleep. */
static inline int workers_backoff_exhausted(const workers_backoff *backoff)
{
    return backoff->round >= WORKERS_SPIN_ROUNDS + WORKERS_YIELD_ROUNDS;
}

static inline uint64_t workers_monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Waits until *word differs from `value` and returns what it became (acquire, so what the
 * changer wrote before its release store is visible). Spins and yields for about spin_ns,
 * which catches the next phase of the same GC without a system call on either side; then
 * sleeps in the kernel, so that idle workers between GCs use no CPU. */
static inline uint32_t workers_wait_while_equal(_Atomic uint32_t *word, uint32_t value,
                                                uint64_t spin_ns)
{
    workers_backoff backoff = {0};
    uint64_t deadline_ns = 0;
    for (;;) {
        uint32_t current = atomic_load_explicit(word, memory_order_acquire);
        if (current != value)
            return current;
        if (backoff.round < WORKERS_SPIN_ROUNDS) {
            workers_backoff_step(&backoff);
            continue;
        }
        uint64_t now_ns = spin_ns ? workers_monotonic_ns() : 0;
        if (deadline_ns == 0)
            deadline_ns = now_ns + spin_ns;
        if (now_ns < deadline_ns)
            sched_yield();
        else
            workers_futex_wait(word, value, 0);
    }
}

#endif /* CORRAL_WORKERS_WAIT_H */
