/* heap.c — reserving the heap, handing out chunks, the budget. */
#include "heap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "config.h"
#include "coordinator.h"
#include "fatal.h"
#include "vec.h"

heap corral_heap;
region_type_table corral_region_types;

/* Reserves length bytes of address space that cost nothing until touched. */
static void *reserve(size_t length, const char *what)
{
    void *memory = mmap(NULL, length, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
        corral_set_error("cannot reserve %zu MiB of address space for the %s: %s", length >> 20,
                         what, strerror(errno));
        return NULL;
    }
    return memory;
}

/* Room for fragmentation: non-moving regions and TLAB tails use address
 * space the budget does not count. */
static size_t reserve_size_for(size_t heap_max)
{
    size_t size = heap_max + heap_max / 4 + 8 * HEAP_REGION_SIZE;
    /* Quarantine (quarantine.h): live data is evacuated into fresh regions
     * while N earlier heaps' worth of vacated regions are still held. */
    uint64_t quarantine = corral_runtime_config.stress_quarantine;
    if (quarantine)
        size = size > HEAP_MAX_RESERVE / (quarantine + 2) ? HEAP_MAX_RESERVE
                                                            : size * (size_t)(quarantine + 2);
    size = (size + HEAP_REGION_SIZE - 1) & ~(HEAP_REGION_SIZE - 1);
    return size > HEAP_MAX_RESERVE ? HEAP_MAX_RESERVE : size;
}

int heap_init(size_t heap_min, size_t heap_max, unsigned expansiveness,
              unsigned growth_expansiveness)
{
    heap *h = &corral_heap;
    memset(h, 0, sizeof *h);
    size_t size = reserve_size_for(heap_max);
    /* Over-reserve by one region so the base can be region-aligned. */
    char *raw = reserve(size + HEAP_REGION_SIZE, "heap");
    if (!raw)
        return CORRAL_ERROR_NO_MEMORY;
    h->base = (char *)(((uintptr_t)raw + HEAP_REGION_SIZE - 1) & ~(uintptr_t)(HEAP_REGION_SIZE - 1));
    h->end = h->base + size;
    /* Unmap the alignment slack on both sides: the heap owns [base, end). */
    if (h->base > raw)
        munmap(raw, (size_t)(h->base - raw));
    if (raw + size + HEAP_REGION_SIZE > h->end)
        munmap(h->end, (size_t)(raw + size + HEAP_REGION_SIZE - h->end));
    h->region_count = size >> HEAP_REGION_SHIFT;
    size_t words = (size / CORRAL_GRANULE) / 64;
    h->start_bits = reserve(words * sizeof(uint64_t), "mark bitmap");
    h->live_bits = reserve(words * sizeof(uint64_t), "live bitmap");
    h->scratch_bits = reserve(words * sizeof(uint64_t), "scratch bitmap");
    h->age_bits = reserve(words * sizeof(uint64_t), "age bitmap");
    h->alloc_bits = reserve(words * sizeof(uint64_t), "headerless slot bitmap");
    h->new_blocks = reserve(words / 64 * sizeof(uint64_t) + sizeof(uint64_t), "new-block bitmap");
    corral_region_types = (region_type_table){(uintptr_t)h->base, h->region_count,
                                              reserve(h->region_count * sizeof(corral_type *),
                                                      "region type table")};
    h->block_dest = reserve(words * sizeof(uint32_t), "forwarding table");
    h->region_moves = reserve(h->region_count, "region table");
    h->regions = reserve(h->region_count * sizeof(heap_region), "region table");
    if (!h->start_bits || !h->live_bits || !h->scratch_bits || !h->age_bits || !h->alloc_bits ||
        !h->new_blocks ||
        !corral_region_types.types || !h->block_dest || !h->region_moves || !h->regions)
        return CORRAL_ERROR_NO_MEMORY;
    pthread_mutex_init(&h->alloc_lock, NULL);
    h->range_capacity = 64;
    h->ranges = calloc(h->range_capacity, sizeof *h->ranges);
    h->range_origin_capacity = h->range_capacity;
    h->range_origins = calloc(h->range_origin_capacity, sizeof *h->range_origins);
    if (!h->ranges || !h->range_origins)
        CORRAL_FATAL("out of memory for the free-range table");
    h->ranges[0] = (heap_free_range){h->base, h->end};
    h->range_origins[0] = h->base;
    h->range_count = 1;
    h->top = h->base;
    h->heap_min = heap_min;
    h->heap_max = heap_max;
    heap_sizer_init(&h->sizer, expansiveness, growth_expansiveness, heap_min, heap_max,
                    monotonic_ns());
    h->target = heap_min;
    return 0;
}

void heap_destroy(void)
{
    heap *h = &corral_heap;
    size_t size = (size_t)(h->end - h->base);
    size_t words = (size / CORRAL_GRANULE) / 64;
    munmap(h->base, size);
    munmap(h->start_bits, words * sizeof(uint64_t));
    munmap(h->live_bits, words * sizeof(uint64_t));
    munmap(h->scratch_bits, words * sizeof(uint64_t));
    munmap(h->age_bits, words * sizeof(uint64_t));
    munmap(h->alloc_bits, words * sizeof(uint64_t));
    munmap(h->new_blocks, words / 64 * sizeof(uint64_t) + sizeof(uint64_t));
    munmap(corral_region_types.types, h->region_count * sizeof(corral_type *));
    corral_region_types = (region_type_table){0};
    munmap(h->block_dest, words * sizeof(uint32_t));
    munmap(h->region_moves, h->region_count);
    munmap(h->regions, h->region_count * sizeof(heap_region));
    free(h->ranges);
    free(h->range_origins);
    pthread_mutex_destroy(&h->alloc_lock);
    memset(h, 0, sizeof *h);
}

void heap_set_live_range(size_t first, size_t count)
{
    uint64_t *bits = corral_heap.live_bits;
    size_t last = first + count - 1;
    size_t first_word = first >> 6, last_word = last >> 6;
    uint64_t head = ~UINT64_C(0) << (first & 63);
    uint64_t tail = ~UINT64_C(0) >> (63 - (last & 63));
    /* Objects share boundary words with neighbours another marker may be
     * setting at the same time: those words need an atomic or. */
    if (first_word == last_word) {
        atomic_fetch_or_explicit((_Atomic uint64_t *)&bits[first_word], head & tail,
                                 memory_order_relaxed);
        return;
    }
    atomic_fetch_or_explicit((_Atomic uint64_t *)&bits[first_word], head, memory_order_relaxed);
    for (size_t w = first_word + 1; w < last_word; w++)
        bits[w] = ~UINT64_C(0); /* wholly inside this object: nobody else writes it */
    atomic_fetch_or_explicit((_Atomic uint64_t *)&bits[last_word], tail, memory_order_relaxed);
}

char *heap_take_chunk(size_t min_bytes, size_t want_bytes, size_t *got)
{
    heap *h = &corral_heap;
    char *chunk = NULL;
    size_t size = 0;
    pthread_mutex_lock(&h->alloc_lock);
    while (h->range_next < h->range_count) {
        heap_free_range *range = &h->ranges[h->range_next];
        size_t room = (size_t)(range->end - range->start);
        if (room >= min_bytes) {
            size = room < want_bytes ? room : want_bytes;
            chunk = range->start;
            range->start += size;
            if (range->start > h->top)
                h->top = range->start;
            if (h->top > h->high_water)
                h->high_water = h->top;
            break;
        }
        h->range_next++; /* too small to use: the tail stays free until the next GC */
    }
    pthread_mutex_unlock(&h->alloc_lock);
    *got = size;
    return chunk;
}

/* The range keeps what lies below the region and its young memory
 * ([origin, start), which minor collections sweep); what lies above the
 * region becomes a range of its own, none of it handed out yet. */
size_t heap_take_region_locked(void)
{
    heap *h = &corral_heap;
    for (size_t i = h->range_next; i < h->range_count; i++) {
        heap_free_range *range = &h->ranges[i];
        char *region = (char *)(((uintptr_t)range->start + HEAP_REGION_SIZE - 1) &
                                ~(uintptr_t)(HEAP_REGION_SIZE - 1));
        if (region >= range->end || (size_t)(range->end - region) < HEAP_REGION_SIZE)
            continue;
        char *above = region + HEAP_REGION_SIZE;
        ARRAY_RESERVE(h->ranges, h->range_capacity, h->range_count + 1);
        ARRAY_RESERVE(h->range_origins, h->range_origin_capacity, h->range_count + 1);
        range = &h->ranges[i];
        memmove(&h->ranges[i + 2], &h->ranges[i + 1],
                (h->range_count - i - 1) * sizeof *h->ranges);
        memmove(&h->range_origins[i + 2], &h->range_origins[i + 1],
                (h->range_count - i - 1) * sizeof *h->range_origins);
        h->ranges[i + 1] = (heap_free_range){above, range->end};
        h->range_origins[i + 1] = above;
        range->end = region;
        h->range_count++;
        if (above > h->top)
            h->top = above;
        if (h->top > h->high_water)
            h->high_water = h->top;
        return heap_region_index(region);
    }
    return SIZE_MAX;
}

size_t heap_reserve(size_t min_bytes, size_t want_bytes, size_t limit)
{
    heap *h = &corral_heap;
    size_t allocated = atomic_load_explicit(&h->allocated_since_gc, memory_order_relaxed);
    for (;;) {
        size_t in_use = h->live_after_gc + allocated;
        size_t room = limit > in_use ? limit - in_use : 0;
        room &= ~(size_t)(CORRAL_GRANULE - 1);
        if (room < min_bytes)
            return 0;
        size_t take = want_bytes < room ? want_bytes : room;
        /* Check and record in one step: threads that saw the same room one
         * by one would together pass the limit. */
        if (atomic_compare_exchange_weak_explicit(&h->allocated_since_gc, &allocated,
                                                  allocated + take, memory_order_relaxed,
                                                  memory_order_relaxed))
            return take;
    }
}

void heap_unreserve(size_t bytes)
{
    atomic_fetch_sub_explicit(&corral_heap.allocated_since_gc, bytes, memory_order_relaxed);
}

void heap_count_allocated(size_t bytes)
{
    atomic_fetch_add_explicit(&corral_heap.allocated_total, bytes, memory_order_relaxed);
}

void heap_reset_free_ranges_from_stw(const heap_free_range *ranges, char *const *origins,
                                     size_t count)
{
    heap *h = &corral_heap;
    ARRAY_RESERVE(h->ranges, h->range_capacity, count);
    ARRAY_RESERVE(h->range_origins, h->range_origin_capacity, count);
    memcpy(h->ranges, ranges, count * sizeof *ranges);
    for (size_t i = 0; i < count; i++)
        h->range_origins[i] = origins ? origins[i] : ranges[i].start;
    h->range_count = count;
    h->range_next = 0;
    /* The highest byte still in use: below the first byte of the last range
     * (which always runs to the end of the reservation). */
    h->top = count ? ranges[count - 1].start : h->end;
    atomic_store_explicit(&h->allocated_since_gc, 0, memory_order_relaxed);
}

void heap_set_budget_from_stw(size_t live_bytes, size_t heap_before, bool at_limit,
                              uint64_t gc_start_ns, uint64_t gc_end_ns)
{
    heap *h = &corral_heap;
    h->live_after_gc = live_bytes;
    size_t target = heap_sizer_limit_from_stw(&h->sizer, live_bytes, heap_before, at_limit,
                                              gc_start_ns, gc_end_ns);
    h->target = target;
    /* Give back the pages well above what the next cycle may use. Twice the
     * allocation room: TLAB tails and regions that stay in place stretch a
     * cycle's footprint past its budget, and pages given back only to be
     * faulted in again cost more than they save. */
    heap_free_range *last = &h->ranges[h->range_count - 1];
    size_t room = target > live_bytes ? target - live_bytes : 0;
    char *keep_until = last->start + 2 * room;
    keep_until = (char *)(((uintptr_t)keep_until + HEAP_REGION_SIZE - 1) &
                          ~(uintptr_t)(HEAP_REGION_SIZE - 1));
    /* Near heap_max the room runs past the reservation; MADV_DONTNEED there
     * would reset whatever is mapped next (a library's GOT, once). */
    if (keep_until > h->end)
        keep_until = h->end;
    char *touched_until = h->high_water > keep_until ? h->high_water : keep_until;
    CORRAL_CHECK(touched_until <= h->end, "heap high water %p past the reservation end %p",
                 (void *)touched_until, (void *)h->end);
    if (keep_until < touched_until)
        madvise(keep_until, (size_t)(touched_until - keep_until), MADV_DONTNEED);
    h->high_water = keep_until;
}

void heap_poison_range(char *start, char *end)
{
    for (uint64_t *word = (uint64_t *)start; (char *)word < end; word++)
        *word = CORRAL_POISON_PATTERN;
}

size_t heap_used_bytes(void)
{
    return (size_t)(corral_heap.top - corral_heap.base);
}

const char *heap_check(void)
{
    heap *h = &corral_heap;
    if (!h->base || ((uintptr_t)h->base & (HEAP_REGION_SIZE - 1)))
        return "heap base is not region-aligned";
    if (h->top < h->base || h->top > h->end)
        return "heap top outside the reserved range";
    if (h->high_water > h->end)
        return "heap high water outside the reserved range";
    for (size_t i = 0; i < h->range_count; i++) {
        heap_free_range *r = &h->ranges[i];
        if (r->start > r->end || r->start < h->base || r->end > h->end)
            return "free range outside the reserved range";
        if (i > 0 && r->start < h->ranges[i - 1].end)
            return "free ranges overlap or are out of order";
        if (((uintptr_t)r->start | (uintptr_t)r->end) & (CORRAL_GRANULE - 1))
            return "free range not granule-aligned";
    }
    return NULL;
}
