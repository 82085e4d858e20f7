/* corral/alloc.h — inline allocation fast paths (included by corral.h).
 *
 * A thread bumps a pointer through its TLAB: no call, no lock, no atomic.
 * TLAB memory is handed out as it is (it may hold dead objects), so each fast
 * path zeroes the object it bumps; the compiler turns that into a few stores
 * and drops those the caller's initialisation overwrites (HotSpot does the
 * same: -XX:-ZeroTLAB). A JIT that emits its own fast path must zero too, or
 * set CORRAL_TLAB_ZERO=1, and, when corral-opt places polls in its code,
 * load the TLAB's words volatile (CORRAL_TLAB_READ below says why).
 * Everything else — refill, large objects, GC, out of memory, an unattached
 * thread — is corral_alloc_slow's job, whose objects are zeroed.
 */
#ifndef CORRAL_ALLOC_H
#define CORRAL_ALLOC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* What this header declares is exported from libcorral (it is built with
 * hidden visibility). */
#pragma GCC visibility push(default)

/* The calling thread's bump region. Writer: the owning thread (fast path and
 * refill). Reader: the owning thread; the collector reads and resets it only
 * while the owner is stopped (PARKED/UNMANAGED), so plain accesses suffice. */
typedef struct corral_typed_tlab {
    const struct corral_type *type; /* whose slots [cursor, limit) are; NULL: empty */
    char *cursor;                   /* next free slot */
    char *limit;                    /* end of this run of free slots */
} corral_typed_tlab;

/* Headerless types (CORRAL_TYPE_HEADERLESS) a thread bumps through at once;
 * a type's entry is chosen by its address, and a type that finds another
 * in its entry takes the slow path, which hands the entry over. */
#define CORRAL_TYPED_TLABS 8u

typedef struct corral_tlab {
    char *cursor;         /* next free byte */
    char *limit;          /* end of the buffer; cursor == limit == NULL when unattached */
    uint64_t max_inline;  /* larger requests take the slow path (large-object threshold) */
    /* Runs of free slots in regions of one headerless type each. Appended
     * after the fields above, whose offsets JIT fast paths use. */
    corral_typed_tlab typed[CORRAL_TYPED_TLABS];
} corral_tlab;

extern __thread corral_tlab corral_thread_tlab __attribute__((tls_model("initial-exec")));

/* A fast path reads each TLAB word afresh. In managed code corral-opt puts
 * polls in after the optimiser ran, and a collection at a poll resets the
 * TLAB; a word the optimiser kept in a register from one allocation to the
 * next (a limit loaded once for both, a cursor stored by the first and
 * forwarded to the second) across a loop that calls nothing was stale after
 * it, and the second allocation bumped into freed memory (gen.py seed 91324,
 * tests/diff/findings/tlab_across_poll.c). Plain C needs nothing: there a
 * collection happens only inside a call, which the optimiser assumes
 * writes the TLAB. */
#if defined(__CORRAL_MANAGED__)
#define CORRAL_TLAB_READ(word) (*(__typeof__(word) volatile *)&(word))
#else
#define CORRAL_TLAB_READ(word) (word)
#endif

/* Arrays longer than this always take the slow path, so size arithmetic on
 * the fast path cannot overflow. */
#define CORRAL_INLINE_MAX_LENGTH (UINT64_C(1) << 24)

/* Types whose instances need the slow path (registration, or the LOS). */
#define CORRAL_SLOW_PATH_TYPE_FLAGS (CORRAL_TYPE_FINALIZABLE | CORRAL_TYPE_PINNED)

/* The entry of corral_tlab.typed a headerless type uses: descriptors are
 * 8-byte aligned and usually declared side by side. */
static inline __attribute__((always_inline)) unsigned corral_typed_tlab_index(const corral_type *type)
{
    return (unsigned)(((uintptr_t)type >> 3) % CORRAL_TYPED_TLABS);
}

/* Allocates an instance of a headerless type: a bump through its run of
 * free slots, no header to write. Thread: MANAGED; may GC. */
static inline __attribute__((always_inline)) void CORRAL_REF *corral_alloc_headerless(
    const corral_type *type)
{
    uint64_t bytes = ((uint64_t)type->size + 7) & ~UINT64_C(7);
    corral_typed_tlab *tlab = &corral_thread_tlab.typed[corral_typed_tlab_index(type)];
    char *cursor = CORRAL_TLAB_READ(tlab->cursor);
    if (__builtin_expect(CORRAL_TLAB_READ(tlab->type) == type &&
                             bytes <= (uint64_t)(CORRAL_TLAB_READ(tlab->limit) - cursor),
                         1)) {
        tlab->cursor = cursor + bytes;
        __builtin_memset(cursor, 0, bytes);
        return (void CORRAL_REF *)cursor;
    }
    return corral_alloc_slow(type, 0);
}

/* Allocates an instance of a fixed-size type. Thread: MANAGED; may GC. */
static inline __attribute__((always_inline)) void CORRAL_REF *corral_alloc(const corral_type *type)
{
    if (type->flags & CORRAL_TYPE_HEADERLESS)
        return corral_alloc_headerless(type);
    uint64_t bytes = ((uint64_t)type->size + 7) & ~UINT64_C(7);
    corral_tlab *tlab = &corral_thread_tlab;
    char *cursor = CORRAL_TLAB_READ(tlab->cursor);
    if (__builtin_expect(!(type->flags & CORRAL_SLOW_PATH_TYPE_FLAGS) &&
                             bytes <= CORRAL_TLAB_READ(tlab->max_inline) &&
                             bytes <= (uint64_t)(CORRAL_TLAB_READ(tlab->limit) - cursor),
                         1)) {
        tlab->cursor = cursor + bytes;
        __builtin_memset(cursor, 0, bytes);
        ((corral_header *)cursor)->type = type;
        return (void CORRAL_REF *)cursor;
    }
    return corral_alloc_slow(type, 0);
}

/* Allocates an array of length elements. Thread: MANAGED; may GC. */
static inline __attribute__((always_inline)) void CORRAL_REF *corral_alloc_array(const corral_type *type,
                                                                             uint64_t length)
{
    corral_tlab *tlab = &corral_thread_tlab;
    if (__builtin_expect(length <= CORRAL_INLINE_MAX_LENGTH, 1)) {
        uint64_t bytes = ((uint64_t)type->size + length * type->element_size + 7) & ~UINT64_C(7);
        char *cursor = CORRAL_TLAB_READ(tlab->cursor);
        if (__builtin_expect(!(type->flags & CORRAL_SLOW_PATH_TYPE_FLAGS) &&
                                 bytes <= CORRAL_TLAB_READ(tlab->max_inline) &&
                                 bytes <= (uint64_t)(CORRAL_TLAB_READ(tlab->limit) - cursor),
                             1)) {
            tlab->cursor = cursor + bytes;
            __builtin_memset(cursor, 0, bytes);
            ((corral_array_header *)cursor)->header.type = type;
            ((corral_array_header *)cursor)->length = length;
            return (void CORRAL_REF *)cursor;
        }
    }
    return corral_alloc_slow(type, length);
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* CORRAL_ALLOC_H */
