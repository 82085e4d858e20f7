/* ptr_table.h — a hash table keyed by pointer: open addressing, linear probing.
 *
 * Maps a pointer (never NULL) to a uintptr_t: a count, an index, a flag, a
 * pointer. Sized by the keys it holds, never by the keys it ever held: it
 * grows to stay under half full (removed entries included) and shrinks once
 * removals leave it under a sixteenth full, each time to the smallest
 * capacity (at least 64) that the keys fill to a quarter at most. So a walk
 * over it costs O(keys) and memory comes back when keys go.
 *
 * No lock: every user holds its own or runs with the world stopped, where a
 * plain table beats liburcu's rculfhash (made for readers racing writers).
 * Entries stay put until the next insert or remove; do neither while walking.
 *
 *   ptr_table pins = {0};
 *   ptr_table_insert(&pins, object, NULL)->value++;
 *   PTR_TABLE_FOR_EACH(entry, &pins)
 *       visit(&entry->key, context);
 *   ptr_table_free(&pins);
 */
#ifndef CORRAL_BASE_PTR_TABLE_H
#define CORRAL_BASE_PTR_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ptr_table_entry {
    void *key;
    uintptr_t value;
} ptr_table_entry;

typedef struct ptr_table {
    ptr_table_entry *entries;
    size_t capacity; /* a power of two, or 0 before the first insert */
    size_t count;    /* keys present */
    size_t used;     /* keys present and removed entries not yet reclaimed */
} ptr_table;

enum { PTR_TABLE_MINIMUM_CAPACITY = 64 };

static inline void ptr_table_init(ptr_table *table)
{
    *table = (ptr_table){0};
}

/* Frees the entries; the table is empty and usable again. */
void ptr_table_free(ptr_table *table);

/* key's entry, or NULL when absent. */
ptr_table_entry *ptr_table_find(const ptr_table *table, const void *key);

/* key's entry, added with value 0 when absent (then *added, if given, is true). */
ptr_table_entry *ptr_table_insert(ptr_table *table, void *key, bool *added);

/* Removes key; false when it was absent. */
bool ptr_table_remove(ptr_table *table, const void *key);

/* The entry after previous (NULL: the first) in slot order, or NULL at the end. */
ptr_table_entry *ptr_table_next(const ptr_table *table, const ptr_table_entry *previous);

#define PTR_TABLE_FOR_EACH(entry, table)                                                   \
    for (ptr_table_entry *entry = ptr_table_next((table), NULL); entry;                    \
         entry = ptr_table_next((table), entry))

static inline void ptr_table_put(ptr_table *table, void *key, uintptr_t value)
{
    ptr_table_insert(table, key, NULL)->value = value;
}

/* True when key is present; its value goes to *value if value is not NULL. */
static inline bool ptr_table_get(const ptr_table *table, const void *key, uintptr_t *value)
{
    const ptr_table_entry *entry = ptr_table_find(table, key);
    if (entry && value)
        *value = entry->value;
    return entry != NULL;
}

static inline bool ptr_table_contains(const ptr_table *table, const void *key)
{
    return ptr_table_find(table, key) != NULL;
}

#endif /* CORRAL_BASE_PTR_TABLE_H */
