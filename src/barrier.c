/* barrier.c — the card table behind the write barrier (see barrier.h and
 * corral/barrier.h): reserving it, the large-object slow path, and the
 * queries tests and the verifier use.
 *
 * Why cards, not field-logging bits: the barrier is one unconditional byte
 * store with no load of the table entry and no slow path in the heap (field
 * logging needs a load, a test and a slow path to append the field to a log);
 * docs/performance.md has the measured cost on a store-heavy kernel.
 */
#include "barrier.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fatal.h"
#include "heap.h"
#include "los.h"

/* Written once by barrier_init before any mutator runs; read by every
 * barrier (corral/barrier.h). */
corral_barrier_table corral_barrier;

/* The reservation, also when the barrier is off (tests query it). Written by
 * barrier_init only. */
static uint8_t *card_table;
static size_t card_table_size;
static bool enabled;

int barrier_init(bool enable)
{
    size_t covered = (size_t)(corral_heap.end - corral_heap.base);
    card_table_size = covered >> CORRAL_CARD_SHIFT;
    /* Untouched pages cost nothing: only written cards are ever committed. */
    void *table = mmap(NULL, card_table_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (table == MAP_FAILED) {
        corral_set_error("cannot reserve %zu KiB of address space for the card table: %s",
                         card_table_size >> 10, strerror(errno));
        return CORRAL_ERROR_NO_MEMORY;
    }
    card_table = table;
    enabled = enable;
    if (enable)
        corral_barrier = (corral_barrier_table){
            .heap_base = (uintptr_t)corral_heap.base,
            .heap_size = covered,
            .cards = card_table,
            .outside_heap = 1,
        };
    return 0;
}

void *barrier_large_object_holding(const void *field)
{
    size_t count;
    los_object **objects = los_snapshot(&count);
    void *found = NULL;
    for (size_t i = 0; i < count && !found; i++) {
        char *payload = los_payload(objects[i]);
        if ((const char *)field >= payload && (const char *)field < payload + objects[i]->size)
            found = payload;
    }
    free(objects);
    return found;
}

static uint8_t *large_object_card(void *object, const void *field)
{
    los_object *header = los_header(object);
    CORRAL_CHECK(header->signature == LOS_SIGNATURE,
                 "write barrier: %p holds no heap field and is not a large object (field %p)",
                 object, field);
    size_t offset = (size_t)((const char *)field - (char *)object);
    CORRAL_CHECK(offset < header->size, "write barrier: field %p is outside object %p (%zu bytes)",
                 field, object, header->size);
    return los_cards(header) + (offset >> CORRAL_CARD_SHIFT);
}

/* The object a barrier names: compiled code may name it by a tagged word
 * (corral/tagged.h), whose tag is in the low three bits (objects are
 * 8-byte aligned). */
static void *untagged_object(corral_ref object)
{
    return (void *)((uintptr_t)object & ~(uintptr_t)(CORRAL_GRANULE - 1));
}

void corral_write_barrier_outside_heap(corral_ref object, const void *field)
{
    if (!enabled)
        return;
    void *holder = untagged_object(object);
    if (!holder)
        holder = barrier_large_object_holding(field);
    /* Not in the heap nor the LOS: C memory, which the collector never scans. */
    if (!holder)
        return;
    __atomic_store_n(large_object_card(holder, field), (uint8_t)CORRAL_CARD_DIRTY,
                     __ATOMIC_RELAXED);
}

void barrier_set_newborn_cards(uint8_t *cards, size_t count)
{
    memset(cards, enabled ? CORRAL_CARD_DIRTY : 0, count);
}

/* Byte by byte with the barrier's own relaxed stores: other threads may be
 * marking the same cards. */
static void mark_cards(uint8_t *cards, size_t count)
{
    for (size_t i = 0; i < count; i++)
        __atomic_store_n(&cards[i], (uint8_t)CORRAL_CARD_DIRTY, __ATOMIC_RELAXED);
}

void corral_write_barrier_range(corral_ref object, const void *start, size_t bytes)
{
    if (!enabled || bytes == 0)
        return;
    const char *first = start, *last = first + bytes - 1;
    uintptr_t offset = (uintptr_t)first - corral_barrier.heap_base;
    if (offset < corral_barrier.heap_size) {
        size_t count = (((uintptr_t)last - corral_barrier.heap_base) >> CORRAL_CARD_SHIFT) -
                       (offset >> CORRAL_CARD_SHIFT) + 1;
        mark_cards(&card_table[offset >> CORRAL_CARD_SHIFT], count);
        return;
    }
    void *holder = untagged_object(object);
    if (!holder)
        holder = barrier_large_object_holding(first);
    if (!holder)
        return;
    uint8_t *from = large_object_card(holder, first), *to = large_object_card(holder, last);
    mark_cards(from, (size_t)(to - from) + 1);
}

int corral_barrier_recorded(const void *field)
{
    uintptr_t offset = (uintptr_t)field - (uintptr_t)corral_heap.base;
    if (offset < card_table_size << CORRAL_CARD_SHIFT)
        return __atomic_load_n(&card_table[offset >> CORRAL_CARD_SHIFT], __ATOMIC_RELAXED) ==
               CORRAL_CARD_DIRTY;
    void *holder = barrier_large_object_holding(field);
    return holder && __atomic_load_n(large_object_card(holder, field), __ATOMIC_RELAXED) ==
                         CORRAL_CARD_DIRTY;
}

bool barrier_recorded_in(const void *object, const void *field)
{
    uintptr_t offset = (uintptr_t)field - (uintptr_t)corral_heap.base;
    if (offset < card_table_size << CORRAL_CARD_SHIFT)
        return __atomic_load_n(&card_table[offset >> CORRAL_CARD_SHIFT], __ATOMIC_RELAXED) ==
               CORRAL_CARD_DIRTY;
    return __atomic_load_n(large_object_card((void *)object, field), __ATOMIC_RELAXED) ==
           CORRAL_CARD_DIRTY;
}

void corral_barrier_clean_all(void)
{
    /* Dropping the pages zeroes them and uncommits what was written. */
    if (madvise(card_table, card_table_size, MADV_DONTNEED) != 0)
        CORRAL_FATAL("cannot clean the card table: %s", strerror(errno));
    size_t count;
    los_object **objects = los_snapshot(&count);
    for (size_t i = 0; i < count; i++)
        memset(los_cards(objects[i]), 0, barrier_card_count(objects[i]->size));
    free(objects);
}

size_t barrier_cards_below(const char *top)
{
    size_t card = (size_t)1 << CORRAL_CARD_SHIFT;
    return ((size_t)(top - corral_heap.base) + card - 1) >> CORRAL_CARD_SHIFT;
}

void barrier_clean_below_from_stw(const char *top)
{
    /* Only cards below the top were ever dirtied; writing them is cheaper
     * than faulting the pages in again after dropping them. */
    size_t heap_cards = barrier_cards_below(top);
    memset(card_table, 0, heap_cards < card_table_size ? heap_cards : card_table_size);
    size_t count;
    los_object **objects = los_snapshot_from_stw(&count);
    for (size_t i = 0; i < count; i++)
        memset(los_cards(objects[i]), 0, barrier_card_count(objects[i]->size));
}
