/* compact.h — sliding compaction of the heap after a major collection's
 * marking, in four phases (compact.c says how): plan where every live
 * object goes, update every reference to its new address, slide the live
 * data there, finish with the new free ranges and clean bitmaps.
 */
#ifndef CORRAL_COMPACT_H
#define CORRAL_COMPACT_H

#include "gc.h"

void compact_plan_from_stw(gc_cycle *cycle);
void compact_update_from_stw(gc_cycle *cycle);
void compact_slide_from_stw(gc_cycle *cycle);
void compact_finish_from_stw(gc_cycle *cycle);

#endif /* CORRAL_COMPACT_H */
