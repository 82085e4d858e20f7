/* call_pins.h — objects pinned by compiled code for one call (call_pins.c). */
#ifndef CORRAL_CALL_PINS_H
#define CORRAL_CALL_PINS_H

#include "coordinator.h"

/* Calls fn for every object a thread of stop pinned for a call. */
void call_pins_for_each_from_stw(const stop_report *stop,
                                 void (*fn)(void *object, void *context), void *context);

#endif /* CORRAL_CALL_PINS_H */
