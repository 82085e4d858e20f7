/* generation.h — the young generation (CORRAL_GC_GENERATIONAL=1), by sticky
 * mark bits: an object is old once a collection has marked it, and its mark
 * stays set until the next major collection; everything allocated since the
 * last collection is young.
 *
 *   allocate ──> young (no mark) ──minor GC finds it live──> old (marked)
 *                   │                                           │
 *                   └─minor GC finds it dead: its memory        └─major GC: all marks
 *                     becomes free ranges (a hole)                cleared, full mark,
 *                                                                 compaction, survivors'
 *                                                                 marks rebuilt at their
 *                                                                 new addresses
 *
 * A minor collection marks from the roots and from the remembered set (the
 * dirty cards over old objects, remset.h) and stops at marked objects, so it
 * traces only young survivors; nothing moves, so stack slots, derived
 * pointers and handles need no update. The memory handed out since the last
 * collection minus the survivors becomes the free ranges TLABs are carved
 * from next (heap_sweep_young_from_stw). Weak handles to dead young objects
 * are cleared and dead young finalizable objects queued by the same code as
 * in a major collection, since an old object counts as marked there.
 *
 * Policy: a collection when the bytes allocated since the last one reach
 * the nursery size (CORRAL_GC_NURSERY) or the heap limit of the sizer
 * (heap.h), whichever comes first; it is minor unless the old space fills
 * three quarters of that limit, or corral_collect asked, or a minor one
 * could not make room. The auto nursery is the old space's size within
 * per-worker bounds; with a pause goal (CORRAL_GC_PAUSE_GOAL_US) it is at
 * most what the measured marking and sweeping rates say could be marked
 * and swept within the goal if every young and aging byte survived.
 *
 * Survivors are not copied: a minor collection costs the survivors, the
 * dirty cards and a bitmap pass over the nursery's memory, never the old
 * space. Fragmentation left by dead young objects between survivors lasts
 * until the next major collection compacts it.
 */
#ifndef CORRAL_GENERATION_H
#define CORRAL_GENERATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the requester of a collection needs. */
typedef enum gc_want {
    GC_WANT_ROOM,   /* an allocation found the heap at its limit: the policy chooses */
    GC_WANT_ANY,    /* stress, corral_collect_young: the policy chooses, the heap anywhere */
    GC_WANT_MAJOR,  /* a full collection (explicit, or a minor one did not help) */
} gc_want;

/* What a collection is, chosen with the world stopped. Only a major
 * collection that the heap's limit brought tells the heap sizer the
 * program's phase (heap_sizer.h): one asked for right after another frees
 * nothing and would read as growth. */
typedef enum gc_kind {
    GC_KIND_MINOR,
    GC_KIND_MAJOR_AT_LIMIT, /* the heap, or generationally the old space, reached its limit */
    GC_KIND_MAJOR_ASKED,    /* explicit, stress, a retry, or abandoned concurrent marking */
} gc_kind;

/* Called by corral_init once the configuration is loaded; pause_goal_us 0
 * leaves the auto nursery to the old space's size alone. */
void generation_init(bool enabled, bool concurrent, size_t nursery_bytes,
                     unsigned promote_after, unsigned pause_goal_us, unsigned gc_workers);
bool generation_enabled(void);
/* The heap sizer's expansiveness after a collection of a growth phase
 * (heap_sizer.h), from CORRAL_HEAP_EXPANSIVENESS; pure, before
 * generation_init. */
unsigned generation_growth_expansiveness(bool enabled, unsigned expansiveness);
/* Whether a minor collection keeps its new survivors young for one more
 * (CORRAL_GC_PROMOTE_AFTER=2, "aging"). */
bool generation_keeps_young(void);
/* The allocation limit before the first collection of a request: the heap
 * limit, or the old space plus a nursery when that comes first (while a
 * concurrent minor collection marks, the heap limit). Objects kept young
 * (aging), while most of those before them died, may take the heap past
 * the limit, up to the largest heap a collection has started from. */
size_t generation_allocation_limit(size_t heap_limit);
/* From the stopped world, each collection: the heap it starts from. */
void generation_note_heap_from_stw(size_t heap_before);
/* From the stopped world, after a minor collection's sweep: the bytes it
 * found aging, and the bytes it promoted (those of them that survived). */
void generation_record_aging_from_stw(size_t aging_before, size_t promoted_bytes);
/* From the stopped world: what this collection is. */
gc_kind generation_choose_kind_from_stw(gc_want want);
/* After the stack walk: a thread with llvm.gcroot frames (shadow-stack
 * code, which stores references without a write barrier) is a fatal error
 * when generational, naming the thread. */
struct stop_report;
void generation_check_roots_from_stw(const struct stop_report *stop);
/* Before a major collection marks: forget which objects are old. */
void generation_prepare_major_from_stw(void);
/* After a minor collection: what its marking and sweeping cost, for the
 * pause goal's nursery (CORRAL_GC_PAUSE_GOAL_US). young_bytes is what was
 * allocated since the last collection, marked_bytes what it marked. */
void generation_record_minor_from_stw(size_t young_bytes, size_t marked_bytes, uint64_t mark_ns,
                                      uint64_t sweep_ns);
/* The nursery the next collection comes after, in bytes (diagnostics). */
size_t generation_nursery_bytes(void);

#endif /* CORRAL_GENERATION_H */
