/* stress.h — GC stress modes (CORRAL_GC_STRESS), for VM developers hunting
 * rooting bugs and for corral's own torture runs.
 *
 *   alloc:N / thread-alloc:N / alloc:random[:MEAN]   collect on allocation
 *   polls         collect the first time each poll site is reached
 *   transitions   collect on every managed <-> unmanaged transition
 *   move-all      no dense prefix: every movable object moves every GC
 *   poison        vacated memory is filled with 0xbadc0ffee0ddf00d
 *   quarantine[:N]  vacated memory inaccessible for N GCs (default 2); the
 *                   first use of a stale reference is reported (quarantine.h)
 *   minor         with CORRAL_GC_GENERATIONAL=1, stress collections are minor
 *   mixed[:N]     ... minor, and one in N (on average, from the seed) major
 *
 * The seed (CORRAL_GC_SEED, or one from the clock) is printed at start, and
 * every fatal error prints the GC number, modes, seed, thread and poll site,
 * so a failure can be replayed.
 */
#ifndef CORRAL_STRESS_H
#define CORRAL_STRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "thread.h"

void stress_init(void);
/* True when this allocation should collect first. */
bool stress_allocation_due(corral_thread *self);
/* True when an allocation mode counts allocations: TLABs then send every
 * allocation to the slow path, inline fast paths included. */
bool stress_counts_allocations(void);
uint64_t stress_seed(void);

/* The kind a stress-induced collection takes (minor, mixed): POLICY when no
 * mode says, so the generational policy chooses. Collector only (the world
 * stopped), so the sequence replays with the seed. */
typedef enum stress_kind { STRESS_KIND_POLICY, STRESS_KIND_MINOR, STRESS_KIND_MAJOR } stress_kind;
stress_kind stress_collection_kind(void);

#endif /* CORRAL_STRESS_H */
