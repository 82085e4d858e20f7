/* ptrmap.c — pointer-keyed hash map used by the pass's analyses. */
#include "ptrmap.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

void ptrmap_init(ptrmap *map)
{
    memset(map, 0, sizeof *map);
}

void ptrmap_free(ptrmap *map)
{
    free(map->entries);
    ptrmap_init(map);
}

static size_t ptrmap_hash(const void *key, size_t capacity)
{
    uint64_t h = (uint64_t)(uintptr_t)key;
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    return (size_t)h & (capacity - 1);
}

static ptrmap_entry *ptrmap_slot(const ptrmap *map, const void *key)
{
    size_t i = ptrmap_hash(key, map->capacity);
    while (map->entries[i].key && map->entries[i].key != key)
        i = (i + 1) & (map->capacity - 1);
    return &map->entries[i];
}

static void ptrmap_grow(ptrmap *map)
{
    ptrmap old = *map;
    map->capacity = old.capacity ? old.capacity * 2 : 64;
    map->entries = xcalloc(map->capacity, sizeof *map->entries);
    map->count = 0;
    for (size_t i = 0; i < old.capacity; i++)
        if (old.entries[i].key)
            ptrmap_put(map, old.entries[i].key, old.entries[i].value);
    free(old.entries);
}

void ptrmap_put(ptrmap *map, const void *key, uintptr_t value)
{
    /* Keep the load factor under 1/2 so probes stay short. */
    if ((map->count + 1) * 2 > map->capacity)
        ptrmap_grow(map);
    ptrmap_entry *slot = ptrmap_slot(map, key);
    if (!slot->key) {
        slot->key = key;
        map->count++;
    }
    slot->value = value;
}

int ptrmap_get(const ptrmap *map, const void *key, uintptr_t *value)
{
    if (map->capacity == 0)
        return 0;
    const ptrmap_entry *slot = ptrmap_slot(map, key);
    if (!slot->key)
        return 0;
    if (value)
        *value = slot->value;
    return 1;
}
