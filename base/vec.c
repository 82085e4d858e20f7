/* vec.c — the growth step of vec.h's arrays. */
#include "vec.h"

#include <stdint.h>

#include "fatal.h"

enum { VEC_MINIMUM_CAPACITY = 16 };

void *vec_grow(void *items, size_t *capacity, size_t needed, size_t element_size,
               const char *file, int line)
{
    size_t grown = *capacity ? *capacity : VEC_MINIMUM_CAPACITY;
    while (grown < needed) {
        if (grown > SIZE_MAX / 2)
            corral_fatal_at(file, line, 0, "an array cannot hold %zu elements", needed);
        grown *= 2;
    }
    if (grown > SIZE_MAX / element_size)
        corral_fatal_at(file, line, 0, "an array of %zu elements of %zu bytes is too large",
                        grown, element_size);
    void *moved = realloc(items, grown * element_size);
    if (!moved)
        corral_fatal_at(file, line, 0, "out of memory growing an array to %zu elements of %zu "
                        "bytes", grown, element_size);
    *capacity = grown;
    return moved;
}
