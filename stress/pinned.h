/* pinned.h — the interface between pinned's managed and plain C halves. */
#ifndef CORRAL_STRESS_PINNED_H
#define CORRAL_STRESS_PINNED_H

#include <corral.h>

enum { PINNED_SLOTS = 64 };

/* Leaf C (never blocks, never collects): may take a reference. Records the
 * address of a pinned data array, or checks it has not changed. */
CORRAL_LEAF void pinned_remember(long slot, corral_ref array);
CORRAL_LEAF int pinned_same_address(long slot, corral_ref array);

/* Unmanaged C (the thread is UNMANAGED meanwhile, collections run): writes
 * length longs into slot's pinned array through its raw address, as an I/O
 * completion would, yielding between writes. Returns the sum written. */
long c_fill_pinned(long slot, long length, long seed);

#endif /* CORRAL_STRESS_PINNED_H */
