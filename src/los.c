/* los.c — large objects: malloc-backed, listed, marked in a side byte. */
#include "los.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fatal.h"

/* The list of every large object. Writers: mutators allocating (under
 * los_lock) and the sweep (world stopped). Readers: the collector. */
static pthread_mutex_t los_lock = PTHREAD_MUTEX_INITIALIZER;
static los_object *los_list;
static size_t los_count;
static size_t los_bytes;

/* Scratch array handed to parallel phases; rebuilt each GC. */
static los_object **snapshot;
static size_t snapshot_capacity;

static bool poison_freed;
static uint64_t poison_pattern;

void *los_alloc(size_t size)
{
    los_object *header;
    if (posix_memalign((void **)&header, 16, sizeof(los_object) + size) != 0)
        return NULL;
    memset(header, 0, sizeof(los_object) + size);
    header->size = size;
    header->signature = LOS_SIGNATURE;
    pthread_mutex_lock(&los_lock);
    header->next = los_list;
    los_list = header;
    los_count++;
    los_bytes += size;
    pthread_mutex_unlock(&los_lock);
    return los_payload(header);
}

void los_lock_from_stw(void)
{
    pthread_mutex_lock(&los_lock);
}

void los_unlock_from_stw(void)
{
    pthread_mutex_unlock(&los_lock);
}

los_object **los_snapshot_from_stw(size_t *count)
{
    if (los_count > snapshot_capacity) {
        snapshot_capacity = los_count * 2;
        snapshot = realloc(snapshot, snapshot_capacity * sizeof *snapshot);
        if (!snapshot)
            CORRAL_FATAL("out of memory for a snapshot of %zu large objects", los_count);
    }
    size_t n = 0;
    for (los_object *o = los_list; o; o = o->next)
        snapshot[n++] = o;
    *count = n;
    return snapshot;
}

static void poison(void *memory, size_t size)
{
    uint64_t *words = memory;
    for (size_t i = 0; i < size / sizeof(uint64_t); i++)
        words[i] = poison_pattern;
}

size_t los_sweep_from_stw(void)
{
    los_object **link = &los_list;
    size_t live = 0;
    while (*link) {
        los_object *o = *link;
        if (atomic_load_explicit(&o->marked, memory_order_relaxed)) {
            atomic_store_explicit(&o->marked, 0, memory_order_relaxed);
            live += o->size;
            link = &o->next;
            continue;
        }
        *link = o->next;
        los_count--;
        los_bytes -= o->size;
        if (poison_freed)
            poison(los_payload(o), o->size);
        o->signature = 0;
        free(o);
    }
    return live;
}

size_t los_live_bytes(void)
{
    return los_bytes;
}

bool los_contains_object_from_stw(const void *pointer)
{
    for (los_object *o = los_list; o; o = o->next)
        if (los_payload(o) == pointer)
            return true;
    return false;
}

void los_set_poison(bool enabled, uint64_t pattern)
{
    poison_freed = enabled;
    poison_pattern = pattern;
}

void los_destroy(void)
{
    while (los_list) {
        los_object *next = los_list->next;
        free(los_list);
        los_list = next;
    }
    los_count = los_bytes = 0;
    free(snapshot);
    snapshot = NULL;
    snapshot_capacity = 0;
}
