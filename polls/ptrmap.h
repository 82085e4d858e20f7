/* ptrmap.h — a pointer-keyed hash map (open addressing, linear probing).
 *
 * The LLVM-C API has no value or block numbering, so every analysis in the
 * pass that needs "a number per block" or "a set of values" uses this.
 * Keys are never NULL; values are uintptr_t (an index, a flag or a pointer).
 */
#ifndef CORRAL_POLLS_PTRMAP_H
#define CORRAL_POLLS_PTRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ptrmap_entry {
    const void *key;
    uintptr_t value;
} ptrmap_entry;

typedef struct ptrmap {
    ptrmap_entry *entries;
    size_t capacity; /* a power of two, or 0 */
    size_t count;
} ptrmap;

void ptrmap_init(ptrmap *map);
void ptrmap_free(ptrmap *map);
/* Inserts or overwrites. */
void ptrmap_put(ptrmap *map, const void *key, uintptr_t value);
/* Returns 1 and sets *value (if non-NULL) when key is present. */
int ptrmap_get(const ptrmap *map, const void *key, uintptr_t *value);
static inline int ptrmap_contains(const ptrmap *map, const void *key)
{
    return ptrmap_get(map, key, NULL);
}

#endif /* CORRAL_POLLS_PTRMAP_H */
