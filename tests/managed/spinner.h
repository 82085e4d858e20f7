/* spinner.h — a managed thread body with no call and no allocation in its
 * loop, so only the pass's loop polls let a collection in: it spins until
 * the atomic_int its argument points to turns non-zero (read relaxed). */
#ifndef CORRAL_TESTS_MANAGED_SPINNER_H
#define CORRAL_TESTS_MANAGED_SPINNER_H

#include <stdatomic.h>

static volatile unsigned long spinner_sink;

static __attribute__((unused)) void *spinner(void *stop)
{
    unsigned long x = 88172645463325252ul;
    while (!atomic_load_explicit((atomic_int *)stop, memory_order_relaxed))
        for (int i = 0; i < 100000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
    spinner_sink = x;
    return NULL;
}

#endif /* CORRAL_TESTS_MANAGED_SPINNER_H */
