/* remset.c — scanning and cleaning dirty cards in a minor collection (remset.h). */
#include "remset.h"

#include "barrier.h"
#include "config.h"
#include "heap.h"
#include "los.h"
#include "object.h"
#include "vec.h"
#include "workers.h"

/* A card of a large object the mark phase cleaned. */
typedef struct large_card {
    los_object *header;
    size_t card;
} large_card;

/* With aging (remset_begin_minor_from_stw): the cards the mark phase
 * cleaned, to dirty again those that still refer to a young object once the
 * survivors have aged. Each worker writes only its own entries during the
 * mark phase; the collecting thread reads them after it. */
static bool recording;
static VEC(size_t) cleaned_heap_cards[GC_WORKERS_MAX];
static VEC(large_card) cleaned_large_cards[GC_WORKERS_MAX];

void remset_begin_minor_from_stw(bool record)
{
    recording = record;
    for (unsigned w = 0; w < GC_WORKERS_MAX; w++) {
        cleaned_heap_cards[w].count = 0;
        cleaned_large_cards[w].count = 0;
    }
}

size_t remset_heap_card_count(void)
{
    return barrier_cards_below(corral_heap.top);
}

/* The start granule of the last old object before card (= bitmap word)
 * `card`, if it may reach into it: heap objects are smaller than the
 * large-object threshold, so the search stops that far back. */
static bool object_before(size_t card, size_t *granule)
{
    size_t reach = corral_runtime_config.large_object_size / HEAP_BLOCK_SIZE + 1;
    for (size_t w = card; w-- > 0 && card - w <= reach;) {
        uint64_t bits = __atomic_load_n(&corral_heap.start_bits[w], __ATOMIC_RELAXED);
        if (bits) {
            *granule = w * 64 + 63 - (unsigned)__builtin_clzll(bits);
            return true;
        }
    }
    return false;
}

/* Calls fn on each old object card covers, skipping *last (already done:
 * it ran in from the previous card). Inlined with fn. */
static inline __attribute__((always_inline)) void
for_each_old_object(size_t card, void **last, void (*fn)(void *object, void *context),
                    void *context)
{
    size_t granule;
    if (object_before(card, &granule)) {
        char *object = heap_granule_address(granule);
        if (object != *last && object + object_size(object) > heap_granule_address(card * 64)) {
            fn(object, context);
            *last = object;
        }
    }
    uint64_t bits = __atomic_load_n(&corral_heap.start_bits[card], __ATOMIC_RELAXED);
    while (bits) {
        char *object = heap_granule_address(card * 64 + (unsigned)__builtin_ctzll(bits));
        bits &= bits - 1;
        if (object != *last) {
            fn(object, context);
            *last = object;
        }
    }
}

typedef struct slot_visitor {
    object_slot_fn visit;
    corral_visit_fn hook_visit;
    void *context;
} slot_visitor;

static inline __attribute__((always_inline)) void visit_object(void *object, void *context)
{
    slot_visitor *visitor = context;
    object_visit_slots(object, visitor->visit, visitor->hook_visit, visitor->context);
}

void remset_scan_heap_cards(unsigned worker, size_t first, size_t end, object_slot_fn visit,
                            corral_visit_fn hook_visit, void *context)
{
    uint8_t *cards = corral_barrier.cards;
    slot_visitor visitor = {visit, hook_visit, context};
    void *last = NULL;
    size_t card = first;
    while (card < end) {
        /* Most cards are clean: skip eight at a time. */
        if (card + 8 <= end && !(card & 7)) {
            uint64_t eight;
            __builtin_memcpy(&eight, &cards[card], sizeof eight);
            if (!eight) {
                card += 8;
                continue;
            }
        }
        if (cards[card]) {
            cards[card] = 0;
            for_each_old_object(card, &last, visit_object, &visitor);
            if (recording)
                VEC_PUSH(cleaned_heap_cards[worker], card);
        }
        card++;
    }
}

/* Visits the slots of an old large object under its card c: the elements
 * there of a reference array (first == 0 visits the fixed fields too), or
 * every slot of any other object (unless *whole_done). */
static void scan_large_card(los_object *header, size_t c, bool *whole_done,
                            object_slot_fn visit, corral_visit_fn hook_visit, void *context)
{
    void *object = los_payload(header);
    const corral_type *type = object_type(object);
    if (!object_is_slot_array(type)) {
        if (!*whole_done)
            object_visit_slots(object, visit, hook_visit, context);
        *whole_done = true;
        return;
    }
    size_t from = c << CORRAL_CARD_SHIFT, to = (c + 1) << CORRAL_CARD_SHIFT;
    uint64_t first = from > type->size ? (from - type->size) / type->element_size : 0;
    uint64_t end = to > type->size
                       ? (to - type->size + type->element_size - 1) / type->element_size
                       : 0;
    object_visit_slots_range(object, first, end, visit, hook_visit, context);
}

void remset_scan_large_object(unsigned worker, los_object *header, object_slot_fn visit,
                              corral_visit_fn hook_visit, void *context)
{
    /* Young: traced if reachable. Its cards stay as they are, so those
     * dirtied by stores of young objects into it remain if it survives. */
    if (!atomic_load_explicit(&header->marked, memory_order_relaxed))
        return;
    uint8_t *cards = los_cards(header);
    size_t count = barrier_card_count(header->size);
    bool whole_done = false;
    for (size_t c = 0; c < count; c++) {
        if (!cards[c])
            continue;
        cards[c] = 0;
        scan_large_card(header, c, &whole_done, visit, hook_visit, context);
        if (recording)
            VEC_PUSH(cleaned_large_cards[worker], ((large_card){header, c}));
    }
}

/* ------------------------------------------------------ after the aging */

/* A slot of an old object: an aging referent stays young, so the slot's
 * card must be dirty again. */
static void remember_tagged_slot(void **slot, uintptr_t tag, void *object)
{
    if (heap_is_aging(object_slot_target(slot, tag)))
        corral_write_barrier(object, slot);
}

static void remember_slot(void **slot, void *object)
{
    remember_tagged_slot(slot, 0, object);
}

static void remember_object(void *object, void *context)
{
    (void)context;
    object_visit_slots(object, remember_tagged_slot, remember_slot, object);
}

void remset_rescan_from_stw(void)
{
    for (unsigned w = 0; w < GC_WORKERS_MAX; w++) {
        void *last = NULL;
        for (size_t i = 0; i < cleaned_heap_cards[w].count; i++)
            for_each_old_object(cleaned_heap_cards[w].items[i], &last, remember_object, NULL);
        for (size_t i = 0; i < cleaned_large_cards[w].count; i++) {
            large_card cleaned = cleaned_large_cards[w].items[i];
            bool whole_done = false;
            scan_large_card(cleaned.header, cleaned.card, &whole_done, remember_tagged_slot,
                            remember_slot, los_payload(cleaned.header));
        }
    }
}
