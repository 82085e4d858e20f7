/* fake_runtime.h — test hooks of the fake runtime (fake_runtime.c). Managed
 * test programs include it; its functions are CORRAL_LEAF so calling them
 * changes no counter. */
#ifndef CORRAL_TESTS_FAKE_RUNTIME_H
#define CORRAL_TESTS_FAKE_RUNTIME_H

#include <corral.h>

#include <stdint.h>

typedef struct fake_runtime_counters {
    uint64_t poll_slow_calls;
    uint64_t unrecorded_polls;    /* slow-path calls whose return address has no record */
    uint64_t to_unmanaged, to_managed;
    uint64_t unrecorded_anchors;  /* transitions whose anchor has no record */
    uint64_t bad_nesting;         /* transitions that did not pair up */
    int64_t depth;
    uint64_t alloc_slow_calls;
    uint64_t collections;
    uint64_t disarm_after_polls;  /* the page is cleared after this many slow calls */
} fake_runtime_counters;

typedef struct fake_stackmap_summary {
    int version;      /* of the first table */
    int malformed;    /* no section, or a table that does not parse */
    uint64_t tables, functions, records;
    int found;        /* the return address asked about has a record */
} fake_stackmap_summary;

/* Arms the polling page; it is cleared again after disarm_after slow calls. */
CORRAL_LEAF void fake_arm_polls(uint64_t disarm_after);
CORRAL_LEAF void fake_disarm_polls(void);
CORRAL_LEAF const fake_runtime_counters *fake_get_counters(void);
CORRAL_LEAF fake_stackmap_summary fake_stackmaps_scan(uintptr_t return_address);

#endif /* CORRAL_TESTS_FAKE_RUNTIME_H */
