/* remset.h — the remembered set of a minor collection: the dirty cards of
 * the write barrier (barrier.h) over old objects, scanned as roots and
 * cleaned (generation.h explains old and young).
 *
 * A heap card (512 bytes) is exactly one word of the start bitmap, so the
 * old objects a dirty card covers are the start bits of its word, plus at
 * most one object that starts before the card and runs into it. A large
 * object carries its own cards; only the parts under dirty cards of a
 * reference array are scanned, other large objects whole.
 *
 * Cards are read and cleaned with the world stopped. Marking runs at the
 * same time (minor GCs scan cards inside the mark phase), so start bits and
 * mark bytes are read atomically: an object marked meanwhile is a young
 * survivor, and scanning it as well is harmless.
 */
#ifndef CORRAL_REMSET_H
#define CORRAL_REMSET_H

#include <corral.h>
#include <stdbool.h>
#include <stddef.h>

#include "los.h"
#include "object.h"

/* Heap cards below the heap top: the range remset_scan_heap_cards takes. */
size_t remset_heap_card_count(void);
/* Before a minor collection's mark phase: whether the scans below record
 * what they clean, for remset_rescan_from_stw (with aging). */
void remset_begin_minor_from_stw(bool record);
/* Visits every slot of every old object under a dirty card in [first, end)
 * and cleans those cards. Thread: GC worker `worker` in the mark phase. */
void remset_scan_heap_cards(unsigned worker, size_t first, size_t end, object_slot_fn visit,
                            corral_visit_fn hook_visit, void *context);
/* The same for one large object: nothing unless it is old. */
void remset_scan_large_object(unsigned worker, los_object *object, object_slot_fn visit,
                              corral_visit_fn hook_visit, void *context);
/* After the minor sweep aged the survivors (heap_sweep_young_from_stw):
 * dirties again the card of every slot under a card the mark phase cleaned
 * that holds an aging object. An aging object is young: the next minor
 * collection must find these references. Collector only. */
void remset_rescan_from_stw(void);

#endif /* CORRAL_REMSET_H */
