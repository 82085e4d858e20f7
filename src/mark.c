/* mark.c — parallel marking with work stealing.
 *
 * A task is an object to scan, or (tagged with bit 0) the rest of a large
 * reference array, so one long array never becomes one worker's serial
 * chunk. Marking an object is a test-before-set on its start bit; scanning
 * sets its live bits (every granule) and pushes the children it marked,
 * prefetching each. Task depth counts the discovery chain: the longest one
 * times the cost per object is the phase's span, the part no number of
 * workers can shorten.
 */
#include "mark.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "call_pins.h"
#include "coordinator.h"
#include "deque.h"
#include "fatal.h"
#include "gc.h"
#include "heap.h"
#include "los.h"
#include "object.h"
#include "remset.h"
#include "roots.h"
#include "satb_log.h"
#include "tagged.h"
#include "thread.h"
#include "walker.h"
#include "workers.h"

enum {
    ARRAY_SLICE = 1024,             /* elements of a reference array scanned per task */
    SLICE_INDEX_BITS = 40,          /* continuation task: depth << 40 | next index */
    MARK_QUEUE_LOG2_CAPACITY = 12,
};

/* Per-worker counters, each on its own cache line. Writer: its worker
 * during a phase; reader: the collecting thread after the phase.
 * region_live counts the granules of the objects that start in each region:
 * cheaper than setting live bits for every object, and enough to find the
 * dense prefix; live bits are built afterwards for the regions that move. */
typedef struct mark_counters {
    uint64_t objects, bytes;
    uint64_t max_depth;     /* of chains followed without the deque */
    uint32_t *region_live;  /* heap region count entries */
    char padding[64 - 3 * sizeof(uint64_t) - sizeof(uint32_t *)];
} mark_counters;
_Static_assert(sizeof(mark_counters) == 64, "one cache line per worker's counters");

static gc_work_queues queues;
static mark_counters *counters;
static unsigned worker_count;

/* Heap references at or past this offset from the heap's base are to
 * objects allocated since a concurrent minor collection began marking
 * (young_marker.h): live by birth, never marked nor traced. Outside such a
 * collection, the heap's top. Writer: the collecting thread, world stopped,
 * before the phases and the concurrent marker thread it starts (which
 * order the write before their reads). Readers: the markers. */
static uintptr_t marking_limit;
static bool marking_concurrently; /* the limit is a concurrent collection's (same writer) */
/* The large objects alive when concurrent marking began: a large object
 * not among them was allocated since (mark_child), and a logged reference
 * outside the heap must be one of them (logged_reference_plausible). Same
 * writer and readers as marking_limit. */
static los_index large_at_start;

void mark_set_limit_from_stw(const char *limit, bool concurrent)
{
    marking_limit = (uintptr_t)(limit - corral_heap.base);
    marking_concurrently = concurrent;
}

/* Where a reference points, for the markers: a heap object to mark; one
 * allocated since concurrent marking began (alive, never marked nor
 * traced); past the top with no concurrent marking (no object is there);
 * or a large object. */
typedef enum ref_place { REF_HEAP, REF_NEWBORN, REF_PAST_TOP, REF_LARGE } ref_place;

static inline ref_place place_of(const void *reference)
{
    uintptr_t offset = (uintptr_t)reference - (uintptr_t)corral_heap.base;
    if (offset < marking_limit)
        return marking_concurrently && heap_is_newborn(reference) ? REF_NEWBORN : REF_HEAP;
    if (offset < (uintptr_t)(corral_heap.end - corral_heap.base))
        return marking_concurrently ? REF_NEWBORN : REF_PAST_TOP;
    return REF_LARGE;
}

int mark_init(unsigned workers)
{
    worker_count = workers;
    gc_work_queues_init(&queues, workers, MARK_QUEUE_LOG2_CAPACITY);
    /* Aligned: calloc's 16 bytes let two workers' counters share a line, and
     * every scanned object then bounces it between them (measured: 2-worker
     * marking 3x slower in corral-fullgc, depending on where malloc put them). */
    counters = aligned_alloc(64, workers * sizeof *counters);
    if (!counters)
        CORRAL_FATAL("out of memory for %u mark counters", workers);
    memset(counters, 0, workers * sizeof *counters);
    for (unsigned i = 0; i < workers; i++) {
        /* calloc of this size maps fresh pages: untouched regions cost nothing. */
        counters[i].region_live = calloc(corral_heap.region_count, sizeof(uint32_t));
        if (!counters[i].region_live)
            CORRAL_FATAL("out of memory for the per-region live counts of worker %u", i);
    }
    return 0;
}

uint32_t mark_region_live_granules(size_t region)
{
    uint32_t total = 0;
    for (unsigned i = 0; i < worker_count; i++)
        total += counters[i].region_live[region];
    return total;
}

static void reset_counters(void)
{
    size_t regions = heap_used_bytes() ? heap_region_index(corral_heap.top - 1) + 1 : 0;
    for (unsigned i = 0; i < worker_count; i++) {
        counters[i].objects = counters[i].bytes = counters[i].max_depth = 0;
        memset(counters[i].region_live, 0, regions * sizeof(uint32_t));
    }
}

bool mark_is_marked(const void *object)
{
    switch (place_of(object)) {
    case REF_HEAP:
        return heap_bit(corral_heap.start_bits, heap_granule_index(object));
    case REF_LARGE:
        return los_is_marked(object) || los_is_newborn(object);
    default:
        return true; /* allocated while marking: alive */
    }
}

static __attribute__((unused)) _Noreturn void bad_reference(void *reference)
{
    if ((uint64_t)(uintptr_t)reference == CORRAL_POISON_PATTERN)
        CORRAL_FATAL("marking found the poison pattern %p in a reference slot: memory never "
                     "written since it was handed out or vacated (an allocation fast path "
                     "that does not zero the object? corral/alloc.h, CORRAL_TLAB_ZERO; "
                     "CORRAL_GC_VERIFY=before,after names the slot)",
                     reference);
    CORRAL_FATAL("marking found a reference %p that is neither in the heap [%p, %p) nor a "
                 "large object (a stale or corrupt reference, or a value that is not a "
                 "reference in a reference slot; CORRAL_GC_VERIFY=before,after names the slot)",
                 reference, (void *)corral_heap.base, (void *)corral_heap.top);
}

#ifdef CORRAL_DEBUG_CHECKS
/* Debug builds check every non-heap reference against the large objects
 * (sorted payload addresses, rebuilt each collection) before touching it. */
static los_index large_objects;
#endif

static inline void *mark_child(void *reference);

/* Marks reference and queues it for scanning if this worker marked it. */
static inline void mark_push(unsigned worker, void *reference, uint64_t depth)
{
    if (mark_child(reference))
        gc_work_queues_push(&queues, worker, (gc_task){reference, depth});
}

typedef struct slot_visit {
    unsigned worker;
    uint64_t depth;
} slot_visit;

/* An element of an array's later slice, a remembered slot, a root (handle,
 * global): its child goes to the deque. Inlined into the slot walk. */
static inline __attribute__((always_inline)) void mark_tagged_slot(void **slot, uintptr_t tag,
                                                                   void *context)
{
    slot_visit *visit = context;
    mark_push(visit->worker, object_slot_target(slot, tag), visit->depth);
}

/* A slot a trace hook hands over: a plain reference. */
static inline __attribute__((always_inline)) void mark_slot(void **slot, void *context)
{
    mark_tagged_slot(slot, 0, context);
}

static void push_array_rest(unsigned worker, void *array, uint64_t next, uint64_t depth)
{
    gc_task rest = {(void *)((uintptr_t)array | 1), (depth << SLICE_INDEX_BITS) | next};
    gc_work_queues_push(&queues, worker, rest);
}

/* Marks a child; returns it when this worker marked it. */
static inline void *mark_child(void *reference)
{
    if (!reference)
        return NULL;
    switch (place_of(reference)) {
    case REF_HEAP:
        if (!heap_try_mark(heap_granule_index(reference)))
            return NULL;
        break;
    case REF_NEWBORN:
        return NULL; /* allocated since concurrent marking began: live, not traced */
    case REF_PAST_TOP:
#ifdef CORRAL_DEBUG_CHECKS
        bad_reference(reference);
#endif
        return NULL;
    case REF_LARGE:
        /* Allocated since concurrent marking began: alive, not traced. Its
         * newborn flag is not read here, as nothing orders the allocating
         * thread's write of it before a marker's racy read of the slot. */
        if (marking_concurrently && !los_index_contains(&large_at_start, reference))
            return NULL;
#ifdef CORRAL_DEBUG_CHECKS
        if (!los_index_contains(&large_objects, reference))
            bad_reference(reference);
#endif
        if (!los_try_mark(reference))
            return NULL;
        break;
    }
    __builtin_prefetch(reference, 1);
    return reference;
}

/* The tasks a worker scans next, already prefetched: marking is bound by
 * cache misses on objects, and the deque's LIFO order leaves no time between
 * a prefetch at push and the pop. Children enter this small FIFO (private:
 * invisible to thieves) while it has room, else the deque; an object is
 * scanned up to PREFETCH_DISTANCE tasks after its prefetch. */
enum { PREFETCH_DISTANCE = 8 };

typedef struct prefetch_ring {
    gc_task tasks[PREFETCH_DISTANCE];
    unsigned head, count;
} prefetch_ring;

static inline void ring_add(prefetch_ring *ring, gc_task task)
{
    __builtin_prefetch((void *)((uintptr_t)task.object & ~(uintptr_t)1), 1);
    ring->tasks[(ring->head + ring->count) % PREFETCH_DISTANCE] = task;
    ring->count++;
}

static inline gc_task ring_take(prefetch_ring *ring)
{
    gc_task task = ring->tasks[ring->head];
    ring->head = (ring->head + 1) % PREFETCH_DISTANCE;
    ring->count--;
    return task;
}

/* A child this worker marked: into the ring while it has room, else shared. */
static inline void queue_child(unsigned worker, prefetch_ring *ring, void *child, uint64_t depth)
{
    if (ring->count < PREFETCH_DISTANCE)
        ring_add(ring, (gc_task){child, depth});
    else
        gc_work_queues_push(&queues, worker, (gc_task){child, depth});
}

/* What scanning an object hands each of its slots. */
typedef struct scan_visit {
    unsigned worker;
    prefetch_ring *ring;
    uint64_t depth; /* the children's */
} scan_visit;

/* A slot of an object being scanned: a child this worker marks is queued,
 * into the prefetch ring while it has room. Inlined into the slot walk. */
static inline __attribute__((always_inline)) void scan_slot(void **slot, uintptr_t tag,
                                                            void *context)
{
    scan_visit *visit = context;
    void *child = mark_child(object_slot_target(slot, tag));
    if (child)
        queue_child(visit->worker, visit->ring, child, visit->depth);
}

/* An object with a trace hook: its children go to the deque. The hook gets
 * a context of its own, so the ring does not escape and stays in
 * registers. Inlined into the slot walk. */
static inline __attribute__((always_inline)) void scan_traced(void *object, corral_trace_fn hook,
                                                              void *context)
{
    const scan_visit *visit = context;
    slot_visit traced = {visit->worker, visit->depth};
    hook(object, mark_slot, &traced);
}

/* Where the slice of object's elements scanned from first ends. The rest of
 * a long reference array is queued first as a task of its own, so idle
 * workers can steal it while this one works. */
static inline uint64_t array_slice_end(unsigned worker, void *object, uint64_t first,
                                       uint64_t depth)
{
    uint64_t end = first + ARRAY_SLICE;
    if (object_is_slot_array(object_type(object)) && end < object_array_length(object))
        push_array_rest(worker, object, end, depth);
    return end;
}

/* Scans one object: counts it and marks its children. */
static void scan_object(unsigned worker, prefetch_ring *ring, void *object, uint64_t depth)
{
    size_t size = object_size(object);
    mark_counters *mine = &counters[worker];
    if (heap_contains(object))
        mine->region_live[heap_region_index(object)] += (uint32_t)(size / CORRAL_GRANULE);
    mine->objects++;
    mine->bytes += size;
    if (depth > mine->max_depth)
        mine->max_depth = depth;
    uint64_t end = array_slice_end(worker, object, 0, depth);
    scan_visit visit = {worker, ring, depth + 1};
    object_walk_slots(object, 0, end, scan_slot, NULL, &visit, scan_traced);
}

/* A tagged task, the rest of a long reference array, from element next:
 * rare, so kept out of the drain loop that scan_object is inlined into, and
 * its children go to the deque, so the ring stays in registers there. */
static __attribute__((noinline)) void scan_array_rest(unsigned worker, gc_task task)
{
    void *array = (void *)((uintptr_t)task.object & ~(uintptr_t)1);
    uint64_t next = task.depth & ((UINT64_C(1) << SLICE_INDEX_BITS) - 1);
    uint64_t depth = task.depth >> SLICE_INDEX_BITS;
    uint64_t end = array_slice_end(worker, array, next, depth);
    slot_visit visit = {worker, depth + 1};
    object_visit_slots_range(array, next, end, mark_tagged_slot, mark_slot, &visit);
}

static void scan_task(unsigned worker, prefetch_ring *ring, gc_task task)
{
    if ((uintptr_t)task.object & 1)
        scan_array_rest(worker, task);
    else
        scan_object(worker, ring, task.object, task.depth);
}

static void drain(unsigned worker)
{
    prefetch_ring ring = {.count = 0};
    gc_deque *own = &queues.queues[worker].deque;
    for (;;) {
        gc_task task;
        while (ring.count < PREFETCH_DISTANCE && gc_deque_pop(own, &task))
            ring_add(&ring, task);
        if (ring.count == 0) {
            /* Nothing local: steal, or find out that everyone is done. */
            if (!gc_work_queues_next(&queues, worker, &task))
                return;
            ring_add(&ring, task);
        }
        scan_task(worker, &ring, ring_take(&ring));
    }
}

/* ------------------------------------------------------------- roots phase */

typedef struct roots_context {
    stop_report *stop;
    gc_parallel_range threads;
} roots_context;

static void walk_threads(unsigned worker, size_t first, size_t end, void *context)
{
    (void)worker;
    roots_context *roots = context;
    for (size_t i = first; i < end; i++)
        walker_collect_roots_from_stw(roots->stop->threads[i]);
}

static void roots_phase(unsigned worker, void *context)
{
    roots_context *roots = context;
    gc_parallel_for(&roots->threads, worker, walk_threads, roots);
}

void mark_roots_from_stw(gc_cycle *cycle)
{
    roots_context roots = {.stop = cycle->stop};
    gc_parallel_range_init(&roots.threads, cycle->stop->thread_count, 1);
    gc_workers_run("roots", roots_phase, &roots, &cycle->phases[GC_PHASE_ROOTS]);
    for (size_t i = 0; i < cycle->stop->thread_count; i++) {
        corral_thread *thread = cycle->stop->threads[i];
        cycle->stack_roots += thread->roots.base_count + thread->roots.derived_count;
        cycle->stack_frames += thread->roots.frames;
    }
}

/* -------------------------------------------------------------- mark phase */

typedef struct mark_context {
    stop_report *stop;
    gc_parallel_range threads;
    bool from_roots; /* false: only drain what is already queued */
    bool roots_only; /* mark the roots and leave them queued, unscanned */
    /* A minor collection's remembered set (remset.h): card chunks and large objects. */
    bool minor;
    gc_parallel_range cards, large;
    los_object **large_objects;
} mark_context;

enum { CARDS_PER_CHUNK = 4096 }; /* 2 MiB of heap per card-scanning task */

static void mark_card_chunks(unsigned worker, size_t first, size_t end, void *context)
{
    (void)context;
    slot_visit visit = {worker, 0};
    size_t cards = remset_heap_card_count();
    size_t to = end * CARDS_PER_CHUNK < cards ? end * CARDS_PER_CHUNK : cards;
    remset_scan_heap_cards(worker, first * CARDS_PER_CHUNK, to, mark_tagged_slot, mark_slot,
                           &visit);
}

static void mark_large_remembered(unsigned worker, size_t first, size_t end, void *context)
{
    mark_context *mark = context;
    slot_visit visit = {worker, 0};
    for (size_t i = first; i < end; i++)
        remset_scan_large_object(worker, mark->large_objects[i], mark_tagged_slot, mark_slot,
                                 &visit);
}

/* A frame pin's object: C may hold the only pointer into it (call_pins.c). */
static void mark_frame_pin(void *word, void *context)
{
    const slot_visit *visit = context;
    mark_push(visit->worker, tagged_root_object(word), 0);
}

static void mark_thread_roots(unsigned worker, size_t first, size_t end, void *context)
{
    mark_context *mark = context;
    slot_visit visit = {worker, 0};
    for (size_t i = first; i < end; i++) {
        corral_thread *thread = mark->stop->threads[i];
        thread_roots *roots = &thread->roots;
        for (size_t r = 0; r < roots->base_count; r++)
            mark_push(worker, tagged_root_object(*roots->bases[r]), 0);
        roots_visit_handles_from_stw(thread, mark_tagged_slot, &visit);
        call_pins_for_each_frame_pin_from_stw(thread, mark_frame_pin, &visit);
    }
}

static void mark_phase(unsigned worker, void *context)
{
    mark_context *mark = context;
    if (mark->from_roots) {
        gc_parallel_for(&mark->threads, worker, mark_thread_roots, mark);
        if (worker == 0) {
            slot_visit visit = {worker, 0};
            roots_visit_globals_from_stw(mark_tagged_slot, &visit);
        }
        if (mark->minor) {
            gc_parallel_for(&mark->cards, worker, mark_card_chunks, mark);
            gc_parallel_for(&mark->large, worker, mark_large_remembered, mark);
        }
    }
    if (!mark->roots_only)
        drain(worker);
}

static void run_mark_phase(gc_cycle *cycle, bool from_roots, bool roots_only,
                           gc_phase_stats *stats)
{
    mark_context mark = {.stop = cycle->stop, .from_roots = from_roots,
                         .roots_only = roots_only, .minor = from_roots && cycle->minor};
    gc_parallel_range_init(&mark.threads, cycle->stop->thread_count, 1);
    if (mark.minor) {
        size_t large_count;
        mark.large_objects = los_snapshot_from_stw(&large_count);
        size_t chunks = (remset_heap_card_count() + CARDS_PER_CHUNK - 1) / CARDS_PER_CHUNK;
        gc_parallel_range_init(&mark.cards, chunks, 1);
        gc_parallel_range_init(&mark.large, large_count, 16);
    }
    gc_workers_run("mark", mark_phase, &mark, stats);
    uint64_t depth = gc_work_queues_max_depth(&queues);
    if (depth > cycle->mark_depth)
        cycle->mark_depth = depth;
}

static void collect_counters(gc_cycle *cycle)
{
    cycle->marked_objects = cycle->marked_bytes = 0;
    for (unsigned i = 0; i < worker_count; i++) {
        cycle->marked_objects += counters[i].objects;
        cycle->marked_bytes += counters[i].bytes;
        if (counters[i].max_depth > cycle->mark_depth)
            cycle->mark_depth = counters[i].max_depth;
    }
}

/* Called outside any phase by the collecting thread, i.e. as worker 0. */
static void resurrect(void *object, void *context)
{
    (void)context;
    mark_push(0, object, 0);
}

/* Marks from the roots (from_roots) or from what is already queued, then
 * decides the weak handles and the finalizable objects. */
static void mark_and_decide_from_stw(gc_cycle *cycle, bool from_roots)
{
    gc_phase_stats *stats = &cycle->phases[GC_PHASE_MARK];
    run_mark_phase(cycle, from_roots, false, stats);
    /* Weak handles see the world before finalizers resurrect anything. */
    roots_clear_dead_weak_from_stw(mark_is_marked);
    gc_work_queues_reset(&queues, gc_workers_active());
    cycle->finalizers_queued = roots_queue_unreachable_finalizable_from_stw(mark_is_marked,
                                                                            resurrect, NULL);
    if (cycle->finalizers_queued) {
        gc_phase_stats more = {0};
        run_mark_phase(cycle, false, false, &more);
        gc_phase_stats_add(stats, &more);
    }
    collect_counters(cycle);
    /* Span: the longest discovery chain at the average cost per object. */
    if (cycle->marked_objects) {
        uint64_t per_object = stats->work_ns / cycle->marked_objects;
        uint64_t chain = cycle->mark_depth * per_object;
        if (chain > stats->span_ns)
            stats->span_ns = chain;
    }
}

/* Before any marking of a collection: fresh counters and queues. */
static void begin_marking_from_stw(void)
{
#ifdef CORRAL_DEBUG_CHECKS
    los_index_build_from_stw(&large_objects);
#endif
    reset_counters();
    gc_work_queues_reset(&queues, gc_workers_active());
}

void mark_from_stw(gc_cycle *cycle)
{
    begin_marking_from_stw();
    mark_and_decide_from_stw(cycle, true);
}

/* ------------------------------------------- concurrent minor collections */

void mark_young_roots_from_stw(gc_cycle *cycle, mark_grey *grey)
{
    begin_marking_from_stw();
    los_index_build_from_stw(&large_at_start);
    run_mark_phase(cycle, true, true, &cycle->phases[GC_PHASE_MARK]);
    /* Every worker's deque holds the objects it marked: hand them over. */
    for (unsigned w = 0; w < worker_count; w++) {
        gc_task task;
        while (gc_deque_steal(&queues.queues[w].deque, &task)) {
            CORRAL_CHECK(!((uintptr_t)task.object & GC_TASK_TAGGED),
                         "a root task %p of worker %u is tagged", task.object, w);
            VEC_PUSH(*grey, task.object);
        }
    }
}

/* What the concurrent marker's slot walk carries. */
typedef struct concurrent_visit {
    mark_grey *grey;
    const char *object;
    const corral_type *tagged_type; /* the object's type when it has tagged slots */
} concurrent_visit;

/* Whether slot of object is one of its type's tagged fields or elements. */
static bool slot_is_tagged(const corral_type *type, const char *object, void *const *slot)
{
    size_t offset = (size_t)((const char *)slot - object);
    for (uint32_t i = 0; i < type->tagged_count; i++)
        if (type->tagged_offsets[i] == offset)
            return true;
    return (type->flags & CORRAL_TYPE_TAGGED_ARRAY) && offset >= type->size;
}

/* A slot a mutator may be writing: read once, atomically, and decoded from
 * that one read (the walk classified a tagged slot from a read of its own,
 * which a store may have overtaken since). */
static inline __attribute__((always_inline)) void concurrent_slot(void **slot, uintptr_t tag,
                                                                  void *context)
{
    concurrent_visit *visit = context;
    uintptr_t word = (uintptr_t)__atomic_load_n(slot, __ATOMIC_RELAXED);
    if (tag != 0 || (visit->tagged_type && slot_is_tagged(visit->tagged_type, visit->object, slot))) {
        tag = tagged_classify(word);
        if (tag >= TAGGED_SKIP)
            return;
    }
    void *child = mark_child((void *)(word - tag));
    if (child)
        VEC_PUSH(*visit->grey, child);
}

static void concurrent_hook_slot(void **slot, void *context)
{
    concurrent_visit *visit = context;
    void *child = mark_child(__atomic_load_n(slot, __ATOMIC_RELAXED));
    if (child)
        VEC_PUSH(*visit->grey, child);
}

/* Objects scanned between two looks at the stop request. */
enum { CONCURRENT_STOP_CHECK = 64 };

bool mark_trace_concurrently(mark_grey *grey, const _Atomic bool *stop, const _Atomic bool *yield,
                             uint64_t budget, mark_totals *totals)
{
    unsigned until_check = CONCURRENT_STOP_CHECK;
    while (grey->count) {
        if (budget-- == 0)
            return false;
        if (--until_check == 0) {
            until_check = CONCURRENT_STOP_CHECK;
            if (atomic_load_explicit(stop, memory_order_relaxed) ||
                (yield && atomic_load_explicit(yield, memory_order_relaxed)))
                return false;
        }
        void *object = grey->items[--grey->count];
        const corral_type *type = object_type(object);
        totals->objects++;
        totals->bytes += object_size(object);
        bool tagged = type->tagged_count || (type->flags & CORRAL_TYPE_TAGGED_ARRAY);
        concurrent_visit visit = {grey, object, tagged ? type : NULL};
        object_walk_slots(object, 0, UINT64_MAX, concurrent_slot, concurrent_hook_slot, &visit,
                          NULL);
    }
    return true;
}

/* A word an unnamed store's deletion barrier logged may be an integer that
 * looks like a reference (satb.c): take only a granule-aligned address
 * below the marking limit (at a slot start in a headerless region) or a
 * large object that was alive when marking began. */
static bool logged_reference_plausible(const void *object)
{
    if (!object || ((uintptr_t)object & (CORRAL_GRANULE - 1)))
        return false;
    switch (place_of(object)) {
    case REF_HEAP: {
        const corral_type *headerless = region_headerless_type(object);
        size_t in_region = (size_t)((uintptr_t)object & (HEAP_REGION_SIZE - 1));
        return !headerless || in_region % granule_round_up(headerless->size) == 0;
    }
    case REF_LARGE:
        return los_index_contains(&large_at_start, object);
    default:
        return false; /* allocated while marking: alive, nothing to mark */
    }
}

void mark_grey_logged(void *object, void *context)
{
    mark_grey *grey = context;
    if (!logged_reference_plausible(object))
        return;
    void *child = mark_child(object);
    if (child)
        VEC_PUSH(*grey, child);
}

/* The second pause's visitor of the logs: as worker 0, outside a phase. */
static void mark_logged_from_stw(void *object, void *context)
{
    (void)context;
    if (logged_reference_plausible(object))
        mark_push(0, object, 0);
}

void mark_young_finish_from_stw(gc_cycle *cycle, const mark_grey *grey,
                                const mark_totals *concurrent)
{
    begin_marking_from_stw();
    for (size_t i = 0; i < grey->count; i++)
        gc_work_queues_push(&queues, 0, (gc_task){grey->items[i], 0});
    cycle->satb_logged = satb_log_drain_from_stw(cycle->stop->threads, cycle->stop->thread_count,
                                                 mark_logged_from_stw, NULL);
    mark_and_decide_from_stw(cycle, false);
    cycle->marked_objects += concurrent->objects;
    cycle->marked_bytes += concurrent->bytes;
}

void mark_remark_check_from_stw(gc_cycle *cycle)
{
    heap *h = &corral_heap;
    size_t words = (heap_used_bytes() + HEAP_BLOCK_SIZE - 1) / HEAP_BLOCK_SIZE;
    uint64_t *first = malloc(words * sizeof(uint64_t) + 1);
    if (!first)
        CORRAL_FATAL("out of memory for the remark check (%zu bitmap words)", words);
    memcpy(first, h->start_bits, words * sizeof(uint64_t));
    size_t los_count;
    los_object **large = los_snapshot_from_stw(&los_count);
    uint8_t *los_first = malloc(los_count + 1);
    for (size_t i = 0; i < los_count; i++) {
        los_first[i] = atomic_load_explicit(&large[i]->marked, memory_order_relaxed);
        atomic_store_explicit(&large[i]->marked, 0, memory_order_relaxed);
    }
    memset(h->start_bits, 0, words * sizeof(uint64_t));
    size_t differences = 0;
    gc_phase_stats ignored = {0};
    uint64_t objects = cycle->marked_objects, bytes = cycle->marked_bytes;
    reset_counters();
    gc_work_queues_reset(&queues, gc_workers_active());
    run_mark_phase(cycle, true, false, &ignored);
    collect_counters(cycle);
    if (cycle->marked_objects != objects || cycle->marked_bytes != bytes)
        differences++;
    for (size_t w = 0; w < words; w++) {
        if (first[w] == h->start_bits[w])
            continue;
        if (differences++ < 8)
            fprintf(stderr, "corral: remark: gc %" PRIu64 ": mark bits differ at %p: "
                            "first %#018" PRIx64 ", second %#018" PRIx64 "\n",
                    cycle->number, (void *)heap_granule_address(w * 64), first[w],
                    h->start_bits[w]);
    }
    for (size_t i = 0; i < los_count; i++) {
        uint8_t second = atomic_load_explicit(&large[i]->marked, memory_order_relaxed);
        if (second != los_first[i] && differences++ < 8)
            fprintf(stderr, "corral: remark: gc %" PRIu64 ": large object %p marked %d then %d\n",
                    cycle->number, los_payload(large[i]), los_first[i], second);
    }
    free(first);
    free(los_first);
    if (differences)
        CORRAL_FATAL("remark check of gc %" PRIu64 ": %zu differences between two markings "
                     "of the same heap (a reference changed during the stop, or marking "
                     "is not deterministic)",
                     cycle->number, differences);
}
