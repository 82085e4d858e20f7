/* alloc_slow.c — the allocation slow path: TLAB refill, medium objects, large
 * objects, the budget that triggers collections, and out of memory.
 *
 * The fast path (corral/alloc.h) bumps the TLAB. It falls through to here
 * when the TLAB is exhausted, the object is large or needs registration
 * (finalizable, pinned type), or the thread has no TLAB yet (just attached,
 * or reset by a collection).
 */
#include "alloc_slow.h"

#include <corral.h>
#include <corral/jit.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "fatal.h"
#include "gc.h"
#include "generation.h"
#include "heap.h"
#include "los.h"
#include "object.h"
#include "roots.h"
#include "stress.h"
#include "typed_space.h"
#include "young_marker.h"

__thread corral_tlab corral_thread_tlab __attribute__((tls_model("initial-exec")));

/* Set by alloc_init before any thread attaches; read-only afterwards. */
static size_t tlab_size;
static size_t large_threshold;
/* CORRAL_TLAB_ZERO: chunks are zeroed when handed out, for fast paths that
 * write only the header. Otherwise each fast path zeroes its object, and
 * chunks are handed out as they are, or filled with the poison pattern under
 * CORRAL_GC_STRESS=poison so a fast path that forgets to zero leaves
 * references the verifier and the marker reject. */
static bool zero_chunks;
static bool poison_chunks;
/* Writer: corral_set_oom_handler (any thread, release). Reader: the OOM path. */
static _Atomic(corral_oom_fn) oom_handler;

/* Objects larger than this get a chunk of their own instead of a new TLAB,
 * so one medium object does not waste the rest of the current TLAB. */
static size_t direct_threshold(void)
{
    return tlab_size / 4;
}

void alloc_init(size_t tlab_bytes, size_t large_object_bytes, bool zero_tlabs, bool poison)
{
    tlab_size = tlab_bytes;
    large_threshold = large_object_bytes;
    zero_chunks = zero_tlabs;
    poison_chunks = poison && !zero_tlabs;
}

void corral_set_oom_handler(corral_oom_fn handler)
{
    atomic_store_explicit(&oom_handler, handler, memory_order_release);
}

static void *out_of_memory(size_t request)
{
    size_t heap_bytes = corral_heap.live_after_gc +
                        atomic_load_explicit(&corral_heap.allocated_since_gc, memory_order_relaxed);
    corral_oom_fn handler = atomic_load_explicit(&oom_handler, memory_order_acquire);
    if (handler) {
        handler(request, heap_bytes, corral_heap.live_after_gc);
        return NULL;
    }
    fflush(stdout);
    fprintf(stderr,
            "corral: out of memory: a request of %zu bytes does not fit after a full collection "
            "(heap %zu bytes in use, %zu live after the last collection, maximum %zu = "
            "CORRAL_HEAP_MAX)\n",
            request, heap_bytes, corral_heap.live_after_gc, corral_heap.heap_max);
    abort();
}

/* The limit of one attempt: the soft target (or the nursery's end, when
 * generational) before any collection in this request, the hard maximum after one (other threads may have used the
 * target up again while we collected; growing beats starving). */
static size_t budget_limit(int attempt)
{
    return attempt == 0 ? generation_allocation_limit(corral_heap.target) : corral_heap.heap_max;
}

/* Full collections a request may run beyond its first two while the heap
 * has room for it after each: other threads took that room before this one
 * ran again (a thread starved of CPU while three others churned through a
 * 4 MiB heap ran out of memory with 50 KB live, 5 runs in 300 of
 * examples/gcroot on a loaded machine). */
#define ALLOC_STARVED_RETRIES 32

/* A request's attempt failed: collects, and returns the attempt to make
 * next, or -1 when the request cannot fit (out of memory). seen: the GC
 * epoch before the attempt read its budget. When a collection began and
 * ended since then, the first attempt is made again without collecting:
 * another thread's collection gave it a new budget (and, in concurrent
 * mode, a second pause asked for on a stale reason would be a second pause
 * right after the first, with all the marking in it). */
static int collect_for_request(corral_thread *self, int attempt, uint32_t seen, size_t bytes,
                               const char *first_cause)
{
    if (attempt >= 2) {
        /* Written by the collection this thread just waited for. */
        bool room_left = corral_heap.live_after_gc + bytes <= corral_heap.heap_max;
        if (!room_left || attempt >= 2 + ALLOC_STARVED_RETRIES)
            return -1;
    }
    if (attempt > 0) {
        gc_collect(self, "alloc-retry", GC_WANT_MAJOR);
        return attempt + 1;
    }
    /* Concurrent marking: help it finish, so its second pause is short. */
    young_marker_assist(self);
    return gc_collect_since(self, first_cause, GC_WANT_ROOM, seen) ? 1 : 0;
}

/* A chunk of between min and want bytes (zeroed under CORRAL_TLAB_ZERO),
 * collecting when the budget is spent; NULL when full collections leave no
 * room for it. */
static char *obtain_chunk(corral_thread *self, size_t min, size_t want, size_t *got)
{
    for (int attempt = 0; attempt >= 0;) {
        uint32_t seen = world_epoch();
        size_t reserved = heap_reserve(min, want, budget_limit(attempt));
        if (reserved) {
            char *chunk = heap_take_chunk(min, reserved, got);
            if (reserved != *got)
                heap_unreserve(reserved - *got); /* all of it when no range was big enough */
            if (chunk) {
                heap_count_allocated(*got);
                /* Last: outside the lock, after the atomics. */
                if (zero_chunks)
                    memset(chunk, 0, *got);
                else if (poison_chunks)
                    heap_poison_range(chunk, chunk + *got);
                return chunk;
            }
        }
        attempt = collect_for_request(self, attempt, seen, min, "alloc");
    }
    return NULL;
}

static void *allocate_large(corral_thread *self, size_t size)
{
    for (int attempt = 0; attempt >= 0;) {
        uint32_t seen = world_epoch();
        if (heap_reserve(size, size, budget_limit(attempt))) {
            void *object = los_alloc(size);
            if (object) {
                heap_count_allocated(size);
                return object;
            }
            heap_unreserve(size);
        }
        attempt = collect_for_request(self, attempt, seen, size, "alloc-large");
    }
    return out_of_memory(size);
}

static void *allocate_small(corral_thread *self, size_t size)
{
    corral_tlab *tlab = &corral_thread_tlab;
    if (tlab->cursor && size <= (size_t)(tlab->limit - tlab->cursor)) {
        void *object = tlab->cursor;
        tlab->cursor += size;
        return object;
    }
    size_t got;
    if (size > direct_threshold()) {
        void *object = obtain_chunk(self, size, size, &got);
        return object ? object : out_of_memory(size);
    }
    char *chunk = obtain_chunk(self, size, tlab_size, &got);
    if (!chunk)
        return out_of_memory(size);
    /* A collection inside obtain_chunk reset the TLAB; install the new one. */
    tlab->cursor = chunk + size;
    tlab->limit = chunk + got;
    /* Allocation stress counts in the slow path: keep inline fast paths out. */
    tlab->max_inline = stress_counts_allocations() ? 0 : large_threshold - 1;
    return chunk;
}

/* A headerless object (typed_space.h): from the thread's run of free slots
 * of its type, or a new run, which replaces the entry's run of another type
 * (its unused end is given back when nothing was taken after it). */
static void *allocate_headerless(corral_thread *self, const corral_type *type, size_t size)
{
    corral_typed_tlab *entry = &corral_thread_tlab.typed[corral_typed_tlab_index(type)];
    if (entry->type == type && size <= (size_t)(entry->limit - entry->cursor)) {
        void *object = entry->cursor;
        entry->cursor += size;
        return object;
    }
    if (entry->type)
        heap_unreserve(typed_space_give_back(entry->type, entry->cursor, entry->limit));
    *entry = (corral_typed_tlab){0};
    /* Allocation stress counts in the slow path: one slot at a time. */
    bool one_slot = stress_counts_allocations();
    for (int attempt = 0; attempt >= 0;) {
        uint32_t seen = world_epoch();
        size_t reserved = heap_reserve(size, one_slot ? size : tlab_size, budget_limit(attempt));
        if (reserved) {
            size_t got;
            char *run = typed_space_take_run(type, size, reserved, &got);
            if (reserved != got)
                heap_unreserve(reserved - got);
            if (run) {
                heap_count_allocated(got);
                if (zero_chunks)
                    memset(run, 0, got);
                else if (poison_chunks)
                    heap_poison_range(run, run + got);
                if (got > size)
                    *entry = (corral_typed_tlab){type, run + size, run + got};
                return run;
            }
        }
        attempt = collect_for_request(self, attempt, seen, size, "alloc");
    }
    return out_of_memory(size);
}

static _Noreturn void bad_request(const corral_type *type, uint64_t length, const char *problem)
{
    CORRAL_FATAL("corral_alloc(type %p '%s', length %" PRIu64 "): %s", (const void *)type,
                 type && type->signature == CORRAL_TYPE_SIGNATURE && type->name ? type->name : "?",
                 length, problem);
}

/* The largest object corral allocates: beyond it arrays cannot be sized. */
#define ALLOC_MAX_OBJECT ((uint64_t)1 << 46)

static void *allocate(corral_thread *self, const corral_type *type, uint64_t length)
{
    const char *problem = corral_type_problem(type);
    if (problem)
        bad_request(type, length, problem);
    bool array = type->flags & CORRAL_TYPE_ARRAY;
    if (length && !array)
        bad_request(type, length, "a length is given for a type that is not an array");
    if (array && length > (ALLOC_MAX_OBJECT - type->size) / type->element_size)
        return out_of_memory((size_t)ALLOC_MAX_OBJECT);
    size_t size = object_size_for(type, length);
    self->allocations++;
    uint32_t seen = world_epoch(); /* before done is read: see gc_collect_since */
    if (stress_allocation_due(self))
        gc_collect(self, "stress-alloc", GC_WANT_ANY);
    else if (young_marker_done()) /* the concurrent marker waits for the second pause */
        gc_collect_since(self, "concurrent-mark", GC_WANT_ANY, seen);
    if (type->flags & CORRAL_TYPE_HEADERLESS) {
        void *object = allocate_headerless(self, type, size);
        if (object && !zero_chunks)
            memset(object, 0, size);
        return object;
    }
    bool large = size >= large_threshold || (type->flags & CORRAL_TYPE_PINNED);
    void *object = large ? allocate_large(self, size) : allocate_small(self, size);
    if (!object)
        return NULL;
    if (!large && !zero_chunks)
        memset(object, 0, size); /* the LOS zeroes its own */
    corral_array_header *header = object;
    header->header.type = type;
    if (array)
        header->length = length;
    if (type->flags & CORRAL_TYPE_FINALIZABLE)
        roots_register_finalizable(object);
    return object;
}

CORRAL_RUNTIME_ENTRY void *corral_alloc_slow(const corral_type *type, uint64_t length)
{
    corral_thread *self = corral_current_thread;
    if (!self)
        CORRAL_FATAL("corral_alloc: the calling thread is not attached (call "
                     "corral_thread_attach first)");
    uint32_t state = atomic_load_explicit(&self->state, memory_order_relaxed);
    CORRAL_DEBUG_REQUIRE(state == THREAD_MANAGED,
                         "corral_alloc: %s is %s (call corral_leave_unmanaged first)",
                         self->name, thread_state_name(state));
    RUNTIME_ENTER(self);
    void *object = allocate(self, type, length);
    RUNTIME_LEAVE(self);
    return object;
}

corral_tlab *corral_current_tlab(void)
{
    return &corral_thread_tlab;
}

/* Inlined into each entry: RUNTIME_ENTER records the entry's own caller. */
static inline __attribute__((always_inline)) void collect_explicitly(const char *entry,
                                                                    gc_want want)
{
    corral_thread *self = thread_require_attached(entry);
    if (atomic_load_explicit(&self->state, memory_order_relaxed) != THREAD_MANAGED)
        CORRAL_FATAL("%s: %s is UNMANAGED (call corral_leave_unmanaged first)", entry,
                     self->name);
    RUNTIME_ENTER(self);
    gc_collect(self, want == GC_WANT_MAJOR ? "explicit" : "explicit-young", want);
    /* A whole collection was asked for, not the first pause of one. */
    if (young_marker_open())
        gc_collect(self, want == GC_WANT_MAJOR ? "explicit" : "explicit-young", want);
    RUNTIME_LEAVE(self);
}

CORRAL_RUNTIME_ENTRY void corral_collect(void)
{
    collect_explicitly("corral_collect", GC_WANT_MAJOR);
}

CORRAL_RUNTIME_ENTRY void corral_collect_young(void)
{
    collect_explicitly("corral_collect_young", GC_WANT_ANY);
}
