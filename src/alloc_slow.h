/* alloc_slow.h — the allocation slow path (alloc_slow.c): TLAB refills,
 * medium and large objects, the budget that triggers collections, out of
 * memory. The fast path that falls through to it is <corral/alloc.h>.
 */
#ifndef CORRAL_ALLOC_SLOW_H
#define CORRAL_ALLOC_SLOW_H

#include <stdbool.h>
#include <stddef.h>

/* Called by corral_init before any thread attaches. zero_tlabs: hand out
 * zeroed TLABs (CORRAL_TLAB_ZERO); poison: else fill them with the poison
 * pattern (CORRAL_GC_STRESS=poison). */
void alloc_init(size_t tlab_bytes, size_t large_object_bytes, bool zero_tlabs, bool poison);

#endif /* CORRAL_ALLOC_SLOW_H */
