/* deque.h — the Chase-Lev work-stealing deque every parallel GC phase takes tasks from.
 *
 * Chase & Lev, "Dynamic circular work-stealing deque" (SPAA 2005), with the C11 memory
 * orderings that Lê, Pop, Cohen & Zappa Nardelli proved correct ("Correct and efficient
 * work-stealing for weak memory models", PPoPP 2013). One owner pushes and pops at the
 * bottom (LIFO: depth-first, cache-warm); any thread steals at the top (FIFO: the oldest,
 * usually biggest, subtrees).
 *
 *              top (thieves CAS it up)              bottom (owner moves it)
 *               v                                    v
 *   array: ... [ oldest ][ ...                  ][ newest ][ free ... ]
 *
 * Guarantees: every pushed task is returned exactly once, by one pop or one steal; a
 * push never fails (the array doubles when full); an array outgrown while thieves may
 * still read it is kept on a retired list until the owner knows no thief can run
 * (gc_deque_release_retired between phases, or gc_deque_destroy).
 */
#ifndef CORRAL_DEQUE_H
#define CORRAL_DEQUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One unit of GC work; depth is the discovery-chain length, so a phase can report span. */
typedef struct gc_task {
    void *object;
    uint64_t depth;
} gc_task;

/* A slot is two separately atomic words: a thief may read a slot the owner is
 * rewriting, but then its CAS on top fails and the torn value is dropped. */
typedef struct gc_deque_slot {
    _Atomic(void *) object;
    _Atomic uint64_t depth;
} gc_deque_slot;

typedef struct gc_deque_array {
    int64_t mask;                         /* capacity - 1; capacity is a power of two */
    struct gc_deque_array *retired;       /* the array this one replaced, kept for late thieves */
    gc_deque_slot slots[];
} gc_deque_array;

enum { GC_DEQUE_CACHE_LINE = 64 };

/* Indices only grow (64 bits never wrap); slot = index & mask. top and bottom live on
 * separate cache lines so thieves' CAS traffic does not slow the owner's pushes. Padding
 * rather than alignas so that embedding the deque in a malloc'd struct is still correct. */
typedef struct gc_deque {
    /* Writer: thieves and the owner (CAS, seq_cst). Reader: everyone. The next index to steal. */
    _Atomic int64_t top;
    char top_line[2 * GC_DEQUE_CACHE_LINE - sizeof(_Atomic int64_t)];
    /* Writer: owner (release store). Reader: thieves (acquire). One past the newest task. */
    _Atomic int64_t bottom;
    /* Writer: owner, on growth (release store). Reader: thieves (acquire), after bottom. */
    _Atomic(gc_deque_array *) array;
    /* Owner only: a lower bound of top, so a push reads the contended top only when the
     * array looks full. */
    int64_t top_lower_bound;
    char bottom_line[2 * GC_DEQUE_CACHE_LINE - 2 * sizeof(int64_t) - sizeof(void *)];
} gc_deque;

/* log2_capacity: the initial capacity, 1 .. 30; the array grows as needed. Not thread-safe:
 * initialise before any thread can see the deque (e.g. before gc_workers_run). */
void gc_deque_init(gc_deque *deque, unsigned log2_capacity);
/* Frees every array. No thread may use the deque during or after. */
void gc_deque_destroy(gc_deque *deque);

/* Owner only. Never fails: doubles the array when full. */
void gc_deque_push(gc_deque *deque, gc_task task);
/* Owner only, LIFO. False when empty (or a thief took the last task). */
bool gc_deque_pop(gc_deque *deque, gc_task *out);
/* Any thread, FIFO. False when empty or when it lost a race for the oldest task. */
bool gc_deque_steal(gc_deque *deque, gc_task *out);

/* A cheap hint for termination: may be stale in either direction while the owner runs,
 * exact when the owner is idle (then only steals can change the deque, and only shrink it). */
bool gc_deque_maybe_nonempty(const gc_deque *deque);
/* Tasks in the deque right now, as seen by the owner (owner only; exact when no thief runs). */
size_t gc_deque_size(const gc_deque *deque);
/* Current capacity of the array (owner only). */
size_t gc_deque_capacity(const gc_deque *deque);

/* Owner only, and only while no thief can be inside gc_deque_steal (between phases):
 * frees the arrays that growth retired. */
void gc_deque_release_retired(gc_deque *deque);

#endif /* CORRAL_DEQUE_H */
