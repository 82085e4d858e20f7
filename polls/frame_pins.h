/* frame_pins.h — where a function's frame pins hold their objects
 * (frame_pins.c): for the pass placing them, and for the check of values
 * made from references live across safepoints (checks.c), which a pin
 * keeps valid. */
#ifndef CORRAL_POLLS_FRAME_PINS_H
#define CORRAL_POLLS_FRAME_PINS_H

#include "cfg.h"
#include "pass.h"

typedef struct frame_pin_index {
    const cfg *graph; /* the function's, borrowed; its blocks must not change */
    size_t *idom;     /* its dominator tree */
    value_list pins;  /* the calls of CORRAL_ABI_PIN_FOR_FRAME */
} frame_pin_index;

/* Lists the frame pins of graph's function. */
void frame_pin_index_build(frame_pin_index *index, const cfg *graph);
void frame_pin_index_free(frame_pin_index *index);
/* Whether a frame pin of object runs on every path to at, so the object
 * (its current value) stays in place there until the function returns. */
int frame_pin_holds(const frame_pin_index *index, LLVMValueRef object, LLVMValueRef at);
/* Whether object's definition may run again after since (both in the same
 * loop): a pin then holds its new value, not the one since saw. */
int defined_again_after(const cfg *graph, LLVMValueRef object, LLVMValueRef since);

#endif /* CORRAL_POLLS_FRAME_PINS_H */
