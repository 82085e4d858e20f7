/* pinned_c.c — plain C that keeps raw addresses of pinned objects, the
 * reason VMs pin: a buffer handed to C or to the kernel while collections
 * go on. */
#include <sched.h>

#include "pinned.h"

/* Per slot: the address recorded at pin time (owned by one managed thread). */
static char *addresses[PINNED_SLOTS];

void pinned_remember(long slot, corral_ref array)
{
    addresses[slot] = (char *)array;
}

int pinned_same_address(long slot, corral_ref array)
{
    return addresses[slot] == (char *)array;
}

long c_fill_pinned(long slot, long length, long seed)
{
    long *elements = (long *)(addresses[slot] + sizeof(corral_array_header));
    long sum = 0;
    for (long i = 0; i < length; i++) {
        elements[i] = seed + i;
        sum += seed + i;
        if (i % 64 == 0)
            sched_yield();
    }
    return sum;
}
