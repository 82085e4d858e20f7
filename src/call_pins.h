/* call_pins.h — objects compiled code pins for one call or for the rest of
 * a frame (call_pins.c). */
#ifndef CORRAL_CALL_PINS_H
#define CORRAL_CALL_PINS_H

#include "coordinator.h"

/* Calls fn for every object a thread of stop pinned, for a call or a frame:
 * their regions stay in place. */
void call_pins_for_each_from_stw(const stop_report *stop,
                                 void (*fn)(void *object, void *context), void *context);

/* Calls fn for every object a stopped thread pinned for a frame: roots. The
 * object is a stack root's word (a tagged reference under a tag scheme). */
void call_pins_for_each_frame_pin_from_stw(const corral_thread *thread,
                                           void (*fn)(void *object, void *context),
                                           void *context);

#endif /* CORRAL_CALL_PINS_H */
