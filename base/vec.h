/* vec.h — a growable array of any element type.
 *
 *   VEC(void *) stack = {0};           typedef VEC(corral_thread *) thread_list;
 *   VEC_PUSH(stack, object);
 *   while (stack.count)
 *       scan(stack.items[--stack.count]);
 *   VEC_FREE(stack);
 *
 * The macros take the array itself, not its address, and evaluate it more
 * than once. An array kept as separate pointer and capacity fields (a struct
 * other code reads) grows with ARRAY_RESERVE. Out of memory is fatal, at the
 * caller's file and line. No lock: the owner holds its own, or the world is
 * stopped (liburcu has no array, and none of these is read concurrently).
 */
#ifndef CORRAL_BASE_VEC_H
#define CORRAL_BASE_VEC_H

#include <stddef.h>
#include <stdlib.h>

#define VEC(T)                                                                             \
    struct {                                                                               \
        T *items;                                                                          \
        size_t count, capacity;                                                            \
    }

/* Makes items (capacity elements, capacity a size_t lvalue) hold at least needed. */
#define ARRAY_RESERVE(items, capacity, needed)                                             \
    do {                                                                                   \
        if ((needed) > (capacity))                                                         \
            (items) = vec_grow((items), &(capacity), (needed), sizeof *(items), __FILE__,  \
                               __LINE__);                                                  \
    } while (0)

#define VEC_RESERVE(v, needed) ARRAY_RESERVE((v).items, (v).capacity, (needed))

#define VEC_PUSH(v, x)                                                                     \
    do {                                                                                   \
        VEC_RESERVE((v), (v).count + 1);                                                   \
        (v).items[(v).count++] = (x);                                                      \
    } while (0)

/* Removes element i by moving the last one into its place: order is not kept. */
#define VEC_REMOVE_UNORDERED(v, i) ((v).items[(i)] = (v).items[--(v).count])

#define VEC_FREE(v)                                                                        \
    do {                                                                                   \
        free((v).items);                                                                   \
        (v).items = NULL;                                                                  \
        (v).count = (v).capacity = 0;                                                      \
    } while (0)

/* Reallocates items to at least needed elements of element_size, doubling
 * *capacity (from 16) so pushes cost amortised O(1); returns the new array. */
void *vec_grow(void *items, size_t *capacity, size_t needed, size_t element_size,
               const char *file, int line);

#endif /* CORRAL_BASE_VEC_H */
