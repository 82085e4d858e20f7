/* remset.c — scanning and cleaning dirty cards in a minor collection (remset.h). */
#include "remset.h"

#include "barrier.h"
#include "config.h"
#include "heap.h"
#include "los.h"
#include "object.h"

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

/* Scans the old objects card covers, skipping *last (already scanned: it
 * ran in from the previous dirty card). */
static void scan_card(size_t card, void **last, object_slot_fn visit, corral_visit_fn hook_visit,
                      void *context)
{
    size_t granule;
    if (object_before(card, &granule)) {
        char *object = heap_granule_address(granule);
        if (object != *last && object + object_size(object) > heap_granule_address(card * 64)) {
            object_visit_slots(object, visit, hook_visit, context);
            *last = object;
        }
    }
    uint64_t bits = __atomic_load_n(&corral_heap.start_bits[card], __ATOMIC_RELAXED);
    while (bits) {
        char *object = heap_granule_address(card * 64 + (unsigned)__builtin_ctzll(bits));
        bits &= bits - 1;
        if (object != *last) {
            object_visit_slots(object, visit, hook_visit, context);
            *last = object;
        }
    }
}

void remset_scan_heap_cards(size_t first, size_t end, object_slot_fn visit,
                            corral_visit_fn hook_visit, void *context)
{
    uint8_t *cards = corral_barrier.cards;
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
            scan_card(card, &last, visit, hook_visit, context);
        }
        card++;
    }
}

void remset_scan_large_object(los_object *header, object_slot_fn visit, corral_visit_fn hook_visit,
                              void *context)
{
    void *object = los_payload(header);
    if (!atomic_load_explicit(&header->marked, memory_order_relaxed))
        return; /* young: traced if reachable */
    uint8_t *cards = los_cards(header);
    size_t count = barrier_card_count(header->size);
    const corral_type *type = object_type(object);
    bool sliced = object_is_slot_array(type);
    bool whole_done = false;
    for (size_t c = 0; c < count; c++) {
        if (!cards[c])
            continue;
        cards[c] = 0;
        if (!sliced) {
            if (!whole_done)
                object_visit_slots(object, visit, hook_visit, context);
            whole_done = true;
            continue;
        }
        /* Elements under card c; first == 0 visits the fixed fields too. */
        size_t from = c << CORRAL_CARD_SHIFT, to = (c + 1) << CORRAL_CARD_SHIFT;
        uint64_t first = from > type->size ? (from - type->size) / type->element_size : 0;
        uint64_t end = to > type->size
                           ? (to - type->size + type->element_size - 1) / type->element_size
                           : 0;
        object_visit_slots_range(object, first, end, visit, hook_visit, context);
    }
}
