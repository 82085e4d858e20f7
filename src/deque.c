/* deque.c — Chase-Lev work-stealing deque (see deque.h for the guarantees).
 *
 * The orderings follow Lê et al. (PPoPP 2013), figure 1, with three deliberate changes:
 *  - every store of bottom is a release store rather than a release fence plus a relaxed
 *    store. The cost is the same (a plain mov on x86-64, stlr on AArch64), a thief that
 *    reads any value of bottom synchronises with every push before it without relying on
 *    release sequences, and ThreadSanitizer, which does not model fences, sees the edge;
 *  - every owner load of top is an acquire load, so a cached lower bound of top (which
 *    lets a push skip the contended line) still orders a thief's read of a slot before
 *    the owner reuses it;
 *  - the two seq_cst fences become seq_cst accesses. What they give is store-load order:
 *    the owner's "bottom = b - 1" and a thief's "read top" must not both be ordered before
 *    the other's later load, or both could take the last task. A pop now publishes bottom
 *    with a seq_cst exchange and then reads top seq_cst; a thief reads top and then bottom
 *    seq_cst. Those operations lie in the single total order S, so the thief either sees
 *    the lowered bottom or the owner sees the thief's top (the argument of the original
 *    SC Chase-Lev). On x86-64 this turns the pop's mfence into an xchg (about half the
 *    cost) and removes the thief's mfence (seq_cst loads are plain loads); on AArch64
 *    it is swpal/ldar, no dmb.
 */
#include "deque.h"

#include "fatal.h"

#include <stdlib.h>

_Static_assert(offsetof(gc_deque, bottom) - offsetof(gc_deque, top) >= 2 * GC_DEQUE_CACHE_LINE,
               "top and bottom must not share a cache line (nor an adjacent-line prefetch pair)");
_Static_assert(sizeof(gc_deque) == 4 * GC_DEQUE_CACHE_LINE, "gc_deque padding is off");

enum { MAX_INITIAL_LOG2_CAPACITY = 30 };

static gc_deque_array *deque_array_new(int64_t capacity)
{
    /* calloc: a thief with a stale top may read (and then discard) a slot never written. */
    gc_deque_array *array = calloc(1, sizeof *array + (size_t)capacity * sizeof(gc_deque_slot));
    if (!array)
        CORRAL_FATAL("out of memory growing a GC work deque to %lld tasks", (long long)capacity);
    array->mask = capacity - 1;
    array->retired = NULL;
    return array;
}

static void deque_array_free_chain(gc_deque_array *array)
{
    while (array) {
        gc_deque_array *older = array->retired;
        free(array);
        array = older;
    }
}

static inline void slot_write(gc_deque_array *array, int64_t index, gc_task task)
{
    gc_deque_slot *slot = &array->slots[index & array->mask];
    atomic_store_explicit(&slot->object, task.object, memory_order_relaxed);
    atomic_store_explicit(&slot->depth, task.depth, memory_order_relaxed);
}

static inline gc_task slot_read(gc_deque_array *array, int64_t index)
{
    gc_deque_slot *slot = &array->slots[index & array->mask];
    return (gc_task){
        .object = atomic_load_explicit(&slot->object, memory_order_relaxed),
        .depth = atomic_load_explicit(&slot->depth, memory_order_relaxed),
    };
}

void gc_deque_init(gc_deque *deque, unsigned log2_capacity)
{
    CORRAL_CHECK(log2_capacity >= 1 && log2_capacity <= MAX_INITIAL_LOG2_CAPACITY,
                 "deque log2 capacity %u is outside 1..%d", log2_capacity,
                 MAX_INITIAL_LOG2_CAPACITY);
    atomic_init(&deque->top, 0);
    atomic_init(&deque->bottom, 0);
    atomic_init(&deque->array, deque_array_new((int64_t)1 << log2_capacity));
    deque->top_lower_bound = 0;
}

void gc_deque_destroy(gc_deque *deque)
{
    deque_array_free_chain(atomic_load_explicit(&deque->array, memory_order_relaxed));
    atomic_store_explicit(&deque->array, NULL, memory_order_relaxed);
}

void gc_deque_release_retired(gc_deque *deque)
{
    gc_deque_array *array = atomic_load_explicit(&deque->array, memory_order_relaxed);
    deque_array_free_chain(array->retired);
    array->retired = NULL;
}

/* Copies the live tasks [top, bottom) into an array twice as big and publishes it. Thieves
 * may still take tasks from the old array meanwhile: their CAS on top keeps each task
 * taken once, and the old array stays allocated (retired) because they may still read it. */
static gc_deque_array *deque_grow(gc_deque *deque, gc_deque_array *old, int64_t top,
                                  int64_t bottom)
{
    gc_deque_array *grown = deque_array_new(2 * (old->mask + 1));
    for (int64_t index = top; index < bottom; index++)
        slot_write(grown, index, slot_read(old, index));
    grown->retired = old;
    /* Release: a thief that loads the new array (acquire) sees the copied slots. */
    atomic_store_explicit(&deque->array, grown, memory_order_release);
    return grown;
}

void gc_deque_push(gc_deque *deque, gc_task task)
{
    int64_t bottom = atomic_load_explicit(&deque->bottom, memory_order_relaxed);
    gc_deque_array *array = atomic_load_explicit(&deque->array, memory_order_relaxed);
    if (__builtin_expect(bottom - deque->top_lower_bound > array->mask, 0)) {
        /* Looks full: read the real top. Acquire: the thief that moved top past a slot
         * has finished reading it before we overwrite it. */
        deque->top_lower_bound = atomic_load_explicit(&deque->top, memory_order_acquire);
        if (bottom - deque->top_lower_bound > array->mask)
            array = deque_grow(deque, array, deque->top_lower_bound, bottom);
    }
    slot_write(array, bottom, task);
    /* Release: a thief that reads the new bottom (acquire) sees the slot. */
    atomic_store_explicit(&deque->bottom, bottom + 1, memory_order_release);
}

bool gc_deque_pop(gc_deque *deque, gc_task *out)
{
    int64_t bottom = atomic_load_explicit(&deque->bottom, memory_order_relaxed) - 1;
    /* top never decreases, so a bound already past the last task proves the deque empty
     * without the fence (the common case when a worker drains its deque and looks again). */
    if (bottom < deque->top_lower_bound)
        return false;
    gc_deque_array *array = atomic_load_explicit(&deque->array, memory_order_relaxed);
    /* seq_cst exchange, then seq_cst load: the claim on slot `bottom` is ordered before
     * reading top, or a thief and the owner could both take the last task. */
    atomic_exchange_explicit(&deque->bottom, bottom, memory_order_seq_cst);
    int64_t top = atomic_load_explicit(&deque->top, memory_order_seq_cst);
    if (top > bottom) {
        /* Empty: undo the claim. */
        atomic_store_explicit(&deque->bottom, bottom + 1, memory_order_release);
        deque->top_lower_bound = top;
        return false;
    }
    gc_task task = slot_read(array, bottom);
    if (top == bottom) {
        /* The last task: thieves may want it too; whoever moves top first has it. */
        bool won = atomic_compare_exchange_strong_explicit(
            &deque->top, &top, top + 1, memory_order_seq_cst, memory_order_relaxed);
        atomic_store_explicit(&deque->bottom, bottom + 1, memory_order_release);
        deque->top_lower_bound = bottom + 1;
        if (!won)
            return false;
    } else {
        deque->top_lower_bound = top;
    }
    *out = task;
    return true;
}

bool gc_deque_steal(gc_deque *deque, gc_task *out)
{
    /* seq_cst loads, top before bottom: against the owner's pop (see gc_deque_pop). They
     * also acquire, so the slot a push published before that bottom is visible. */
    int64_t top = atomic_load_explicit(&deque->top, memory_order_seq_cst);
    int64_t bottom = atomic_load_explicit(&deque->bottom, memory_order_seq_cst);
    if (top >= bottom)
        return false;
    /* Acquire (consume in the paper): the array read after bottom holds slot `top`. */
    gc_deque_array *array = atomic_load_explicit(&deque->array, memory_order_acquire);
    gc_task task = slot_read(array, top);
    /* The slot may have been torn or reused; if so top has moved and this CAS fails. */
    if (!atomic_compare_exchange_strong_explicit(&deque->top, &top, top + 1,
                                                 memory_order_seq_cst, memory_order_relaxed))
        return false;
    *out = task;
    return true;
}

bool gc_deque_maybe_nonempty(const gc_deque *deque)
{
    /* Same read order as a steal, without the fence: a hint, not a claim. */
    int64_t top = atomic_load_explicit(&deque->top, memory_order_acquire);
    int64_t bottom = atomic_load_explicit(&deque->bottom, memory_order_acquire);
    return top < bottom;
}

size_t gc_deque_size(const gc_deque *deque)
{
    int64_t bottom = atomic_load_explicit(&deque->bottom, memory_order_relaxed);
    int64_t top = atomic_load_explicit(&deque->top, memory_order_acquire);
    return bottom > top ? (size_t)(bottom - top) : 0;
}

size_t gc_deque_capacity(const gc_deque *deque)
{
    return (size_t)atomic_load_explicit(&deque->array, memory_order_relaxed)->mask + 1;
}
