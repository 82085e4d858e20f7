/* verify.h — the heap verifier (CORRAL_GC_VERIFY=before,after): checks that
 * every reference reachable from the roots points at a valid object, and
 * before a minor collection that no old-to-young store skipped the write
 * barrier (verify.c lists the checks).
 */
#ifndef CORRAL_VERIFY_H
#define CORRAL_VERIFY_H

#include <stdint.h>

#include "gc.h"

/* Checks everything reachable from the roots; when ("before", "after")
 * names the moment in reports. Returns the problems found; aborts with a
 * report when there are any. */
uint64_t verify_heap_from_stw(gc_cycle *cycle, const char *when);

/* CORRAL_GC_VERIFY=satb (verify.c has the check): at the end of a
 * collection, note what is reachable and turn the deletion barrier on; at
 * the start of the next, check that those objects are reached from the
 * noted roots and the barrier's log, and turn it off. */
void verify_satb_open_from_stw(gc_cycle *cycle);
void verify_satb_close_from_stw(gc_cycle *cycle);

#endif /* CORRAL_VERIFY_H */
