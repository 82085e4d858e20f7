/* quarantine.h — CORRAL_GC_STRESS=quarantine[:N]: memory a collection
 * vacates is not reused for N collections (default 2) and is made
 * inaccessible, so a stale reference (an unregistered global, a reference
 * hidden in an integer) faults at its first use instead of silently reading
 * whatever the allocator put there next. A SIGSEGV handler reports
 *
 *   corral: stale reference: address A was moved to B by GC n
 *   corral: stale reference: address A was freed by GC n
 *
 * with the faulting code address symbolised, then aborts.
 *
 * Unit: whole regions. With quarantine on the compactor evacuates every
 * moving region completely: live data goes to a run of free regions (never
 * to a region it is read from), so every region it read from is vacated as a
 * whole and is region- hence page-aligned. Quarantining pieces of partly
 * vacated pages instead would leave the rest of each boundary page readable,
 * and a stale reference into it would pass unnoticed; evacuating whole
 * regions costs address space only (PROT_NONE pages are given back to the
 * OS, and the vacated memory is not counted in the heap budget: it holds no
 * live data, and counting it would make stress runs collect more often than
 * the same program without stress).
 *
 * Life of a region:
 *
 *   in use ──GC n evacuates it──> quarantined ──GC n+N plans──> released ──> free
 *           (moving region)       PROT_NONE, pages given     PROT_READ|WRITE,  ranges
 *                                 back; record of live       zero pages        (TLABs,
 *                                 bits + forwarding kept                       destinations)
 *
 * Not covered: dead objects in regions that stay in place (pinned regions,
 * the dense prefix without move-all) and freed large objects (the LOS
 * unmaps or reuses them); poison covers those.
 *
 * Shared state: the per-region records and states. Writer: the collector,
 * with the world stopped. Readers: the signal handler on a faulting thread
 * (acquire load of the state, then the record). A managed thread faults
 * only while running, never during a collection; a thread outside managed
 * code racing with the release of the region it faulted on may read a
 * record being rewritten, which can only garble a report that was about to
 * abort anyway.
 */
#ifndef CORRAL_QUARANTINE_H
#define CORRAL_QUARANTINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Collections a vacated region stays inaccessible (0: quarantine is off). */
unsigned quarantine_collections(void);

/* Allocates the records and installs the SIGSEGV handler (chaining to the
 * one it replaces). After heap_init, before threads run managed code. */
void quarantine_init(void);

/* Makes the regions whose quarantine ends at collection gc_number readable,
 * zeroed and free again; they are then just_released until the next call. */
void quarantine_release_from_stw(uint64_t gc_number);
/* The region is quarantined (inaccessible). */
bool quarantine_region_held(size_t region);
/* The region was released by the last quarantine_release_from_stw. */
bool quarantine_region_just_released(size_t region);

/* Quarantines a region the collection gc_number evacuated: keeps its live
 * bits and forwarding (call before the bitmaps are cleared), then makes it
 * inaccessible. */
void quarantine_region_from_stw(size_t region, uint64_t gc_number);

/* MPS-style check: no free range overlaps a quarantined region, and every
 * quarantined region lies below the heap top; NULL when sound. From the
 * stopped world (debug builds call it after each collection). */
const char *quarantine_check(void);

#endif /* CORRAL_QUARANTINE_H */
