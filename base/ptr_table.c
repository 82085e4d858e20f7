/* ptr_table.c — see ptr_table.h. */
#include "ptr_table.h"

#include <stdlib.h>

#include "fatal.h"

/* A removed entry's key: an address no caller's key can have. */
static const char removed_marker;
#define REMOVED ((void *)&removed_marker)

static bool holds_key(const ptr_table_entry *entry)
{
    return entry->key && entry->key != REMOVED;
}

/* Pointers are aligned, so their low bits say little: mix every bit into the
 * index (MurmurHash3's finaliser). */
static size_t home_slot(const void *key, size_t capacity)
{
    uint64_t h = (uint64_t)(uintptr_t)key;
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    return (size_t)h & (capacity - 1);
}

/* key's entry if present; else, when insert, where to add it (the first
 * removed entry on its probe path, or the empty one ending it); else NULL. */
static ptr_table_entry *probe(const ptr_table *table, const void *key, bool insert)
{
    if (!table->capacity)
        return NULL;
    ptr_table_entry *reusable = NULL;
    for (size_t i = home_slot(key, table->capacity);; i = (i + 1) & (table->capacity - 1)) {
        ptr_table_entry *entry = &table->entries[i];
        if (!entry->key)
            return !insert ? NULL : reusable ? reusable : entry;
        if (entry->key == key)
            return entry;
        if (entry->key == REMOVED && !reusable)
            reusable = entry;
    }
}

/* The smallest power of two, at least the minimum, that count fills to a quarter at most. */
static size_t capacity_for(size_t count)
{
    size_t capacity = PTR_TABLE_MINIMUM_CAPACITY;
    while (capacity / 4 < count)
        capacity *= 2;
    return capacity;
}

/* Moves the keys into fresh entries of capacity slots, dropping removed ones. */
static void rebuild(ptr_table *table, size_t capacity)
{
    ptr_table old = *table;
    table->entries = calloc(capacity, sizeof *table->entries);
    if (!table->entries)
        CORRAL_FATAL("out of memory for a table of %zu pointers", capacity);
    table->capacity = capacity;
    for (size_t i = 0; i < old.capacity; i++)
        if (holds_key(&old.entries[i]))
            *probe(table, old.entries[i].key, true) = old.entries[i];
    table->used = table->count;
    free(old.entries);
}

void ptr_table_free(ptr_table *table)
{
    free(table->entries);
    ptr_table_init(table);
}

ptr_table_entry *ptr_table_find(const ptr_table *table, const void *key)
{
    return probe(table, key, false);
}

ptr_table_entry *ptr_table_insert(ptr_table *table, void *key, bool *added)
{
    CORRAL_CHECK(key && key != REMOVED, "a pointer table key %p", key);
    if ((table->used + 1) * 2 > table->capacity)
        rebuild(table, capacity_for(table->count + 1));
    ptr_table_entry *entry = probe(table, key, true);
    bool absent = entry->key != key;
    if (absent) {
        if (!entry->key)
            table->used++;
        *entry = (ptr_table_entry){key, 0};
        table->count++;
    }
    if (added)
        *added = absent;
    return entry;
}

bool ptr_table_remove(ptr_table *table, const void *key)
{
    ptr_table_entry *entry = probe(table, key, false);
    if (!entry)
        return false;
    entry->key = REMOVED;
    table->count--;
    /* At a sixteenth: a rebuild leaves it a quarter to an eighth full, so
     * each one is paid for by as many removals as it moves keys. */
    if (table->capacity > PTR_TABLE_MINIMUM_CAPACITY && table->count * 16 < table->capacity)
        rebuild(table, capacity_for(table->count));
    return true;
}

ptr_table_entry *ptr_table_next(const ptr_table *table, const ptr_table_entry *previous)
{
    size_t i = previous ? (size_t)(previous - table->entries) + 1 : 0;
    for (; i < table->capacity; i++)
        if (holds_key(&table->entries[i]))
            return &table->entries[i];
    return NULL;
}
