/* call_pins.c — pins that compiled code takes for one call or for the rest
 * of a frame.
 *
 * The pass brackets a call with a call pin when the callee gets an object's
 * address where no stackmap sees it (polls/call_pins.c): a reference passed
 * through "...", or a raw pointer into an object. It takes a frame pin when
 * a raw pointer into an object reaches code that may hand back a pointer
 * into it (polls/frame_pins.c): strchr's result, strtol's end, a local the
 * pointer is stored in. Both nest exactly like the calls, so each thread
 * keeps them on one stack of its own: no lock, two stores per pin. The
 * collector reads every stopped thread's stack (call_pins_for_each_from_stw)
 * and leaves those objects' regions in place. Objects of call pins stay
 * alive because the caller uses them after the call; those of frame pins
 * are roots (call_pins_for_each_frame_pin_from_stw), since only C's pointer
 * into them may be left. Null pins nothing; a thread that is not attached
 * uses the global pin table for a call and takes no frame pin (no stack of
 * its is walked, so nothing it holds is kept anyway).
 *
 * A frame's pins, on the thread's stack:
 *
 *   [ caller's pins | F's frame pins (one entry per site) | pins of F's callee ]
 *                   ^ block[0] = mark                     ^ dropped as the call returns
 *
 *   site first runs:  push {object, &block[1 + site]}, block[1 + site] = its index
 *   site runs again:  its entry (index in range and pointing back at the
 *                     slot) takes the new object: one entry per site, loops
 *                     do not grow the stack
 *   F returns:        count = block[0] (corral_unpin_frame)
 *   longjmp:          count = the count at setjmp (threads/setjmp.c); an
 *                     entry above it no longer answers to its site, which
 *                     pushes again
 */
#include "call_pins.h"

#include <corral/jit.h>

#include "coordinator.h"
#include "fatal.h"
#include "stack_switch.h"
#include "thread.h"
#include "vec.h"

void corral_pin_for_call(corral_ref object)
{
    if (!object)
        return;
    corral_thread *self = corral_current_thread;
    if (!self) {
        corral_pin(object);
        return;
    }
    VEC_PUSH(self->call_pins, ((call_pin){(void *)object, NULL}));
}

void corral_unpin_after_call(corral_ref object)
{
    if (!object)
        return;
    corral_thread *self = corral_current_thread;
    if (!self) {
        corral_unpin(object);
        return;
    }
    /* The pins of one call are dropped together, in any order: pop one. */
    if (self->call_pins.count == 0)
        CORRAL_FATAL("corral_unpin_after_call: %s holds no call pin for %p", self->name,
                     (void *)object);
    const call_pin *top = &self->call_pins.items[self->call_pins.count - 1];
    if (top->frame_slot)
        CORRAL_FATAL("corral_unpin_after_call: %s's innermost pin (of %p) is a frame pin, "
                     "taken between the call's pin of %p and its unpin", self->name,
                     top->object, (void *)object);
    self->call_pins.count--;
}

void corral_pin_for_frame(size_t *block, uint32_t site, corral_ref object)
{
    corral_thread *self = corral_current_thread;
    if (!self)
        return;
    size_t *slot = &block[1 + site];
    size_t index = *slot;
    if (index < self->call_pins.count && self->call_pins.items[index].frame_slot == slot) {
        self->call_pins.items[index].object = (void *)object;
        return;
    }
    if (!object)
        return;
    if (block[0] == SIZE_MAX)
        block[0] = self->call_pins.count;
    *slot = self->call_pins.count;
    VEC_PUSH(self->call_pins, ((call_pin){(void *)object, slot}));
}

void corral_unpin_frame(size_t *block)
{
    corral_thread *self = corral_current_thread;
    size_t mark = block[0];
    if (!self || mark == SIZE_MAX)
        return;
    if (mark > self->call_pins.count)
        CORRAL_FATAL("corral_unpin_frame: %s's frame pins began at %zu, but it holds %zu pins "
                     "(a corrupt frame, or a pin popped out of turn)", self->name, mark,
                     self->call_pins.count);
    self->call_pins.count = mark;
}

/* Calls fn on each pin of thread and of its stacks set aside; frames_only:
 * the frame pins alone. */
static void for_each_pin(const corral_thread *thread, bool frames_only,
                         void (*fn)(void *object, void *context), void *context)
{
    for (size_t i = 0; i < thread->call_pins.count; i++) {
        const call_pin *pin = &thread->call_pins.items[i];
        if (pin->object && (pin->frame_slot || !frames_only))
            fn(pin->object, context);
    }
    const suspended_stack *stack;
    cds_list_for_each_entry(stack, &thread->suspended_stacks, link) {
        for (size_t i = 0; i < stack->call_pins.count; i++) {
            const call_pin *pin = &stack->call_pins.items[i];
            if (pin->object && (pin->frame_slot || !frames_only))
                fn(pin->object, context);
        }
    }
}

void call_pins_for_each_from_stw(const stop_report *stop,
                                 void (*fn)(void *object, void *context), void *context)
{
    /* The stopped threads only: the coordinator's acquire of each one's
     * state orders its pushes before these reads. */
    for (size_t t = 0; t < stop->thread_count; t++)
        for_each_pin(stop->threads[t], false, fn, context);
}

void call_pins_for_each_frame_pin_from_stw(const corral_thread *thread,
                                           void (*fn)(void *object, void *context),
                                           void *context)
{
    for_each_pin(thread, true, fn, context);
}
