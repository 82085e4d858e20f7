/* los.c — large objects: malloc-backed, listed, marked in a side byte. */
#include "los.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "fatal.h"
#include "heap.h"
#include "vec.h"

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
    size_t cards = barrier_card_count(size);
    if (posix_memalign((void **)&header, 16, sizeof(los_object) + size + cards) != 0)
        return NULL;
    memset(header, 0, sizeof(los_object) + size);
    header->size = size;
    barrier_set_newborn_cards(los_cards(header), cards);
    header->signature = LOS_SIGNATURE;
    pthread_mutex_lock(&los_lock);
    if (heap_marking()) /* the collector sets it holding los_lock too */
        atomic_store_explicit(&header->newborn, 1, memory_order_relaxed);
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

/* Copies the list into objects (room for los_count); under los_lock. */
static size_t list_into(los_object **objects)
{
    size_t n = 0;
    for (los_object *o = los_list; o; o = o->next)
        objects[n++] = o;
    return n;
}

los_object **los_snapshot_from_stw(size_t *count)
{
    ARRAY_RESERVE(snapshot, snapshot_capacity, los_count);
    *count = list_into(snapshot);
    return snapshot;
}

los_object **los_snapshot(size_t *count)
{
    pthread_mutex_lock(&los_lock);
    los_object **objects = malloc((los_count ? los_count : 1) * sizeof *objects);
    if (!objects)
        CORRAL_FATAL("out of memory for a list of %zu large objects", los_count);
    *count = list_into(objects);
    pthread_mutex_unlock(&los_lock);
    return objects;
}

static void poison(void *memory, size_t size)
{
    uint64_t *words = memory;
    for (size_t i = 0; i < size / sizeof(uint64_t); i++)
        words[i] = poison_pattern;
}

size_t los_sweep_from_stw(bool keep_marks)
{
    los_object **link = &los_list;
    size_t live = 0;
    while (*link) {
        los_object *o = *link;
        /* Newborn: alive, and young from now on (unmarked). */
        bool newborn = atomic_exchange_explicit(&o->newborn, 0, memory_order_relaxed);
        if (newborn || atomic_load_explicit(&o->marked, memory_order_relaxed)) {
            if (!keep_marks)
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

void los_clear_marks_from_stw(void)
{
    for (los_object *o = los_list; o; o = o->next) {
        atomic_store_explicit(&o->marked, 0, memory_order_relaxed);
        atomic_store_explicit(&o->newborn, 0, memory_order_relaxed);
    }
}


size_t los_live_bytes(void)
{
    return los_bytes;
}

static int compare_addresses(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

void los_index_build_from_stw(los_index *index)
{
    size_t count;
    los_object **objects = los_snapshot_from_stw(&count);
    ARRAY_RESERVE(index->payloads, index->capacity, count);
    for (size_t i = 0; i < count; i++)
        index->payloads[i] = (uintptr_t)los_payload(objects[i]);
    index->count = count;
    /* qsort and bsearch take no NULL array, even for zero elements. */
    if (count)
        qsort(index->payloads, count, sizeof *index->payloads, compare_addresses);
}

bool los_index_contains(const los_index *index, const void *pointer)
{
    if (!index->count)
        return false;
    uintptr_t key = (uintptr_t)pointer;
    return bsearch(&key, index->payloads, index->count, sizeof key, compare_addresses) != NULL;
}

void los_index_free(los_index *index)
{
    free(index->payloads);
    *index = (los_index){0};
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
