/* call_pins.c — pins that compiled code takes for the duration of one call.
 *
 * The pass brackets a call with these when the callee gets an object's
 * address where no stackmap sees it (polls/call_pins.c): a reference passed
 * through "...", or a raw pointer into an object. Such pins nest exactly like
 * the calls, so each thread keeps them on a stack of its own: no lock, two
 * stores per call. The collector reads every stopped thread's stack
 * (call_pins_for_each_from_stw) and leaves those objects' regions in place;
 * the objects stay alive because the caller still uses them after the call.
 * Null pins nothing; a thread that is not attached uses the global pin table.
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
    VEC_PUSH(self->call_pins, (void *)object);
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
    self->call_pins.count--;
}

void call_pins_for_each_from_stw(const stop_report *stop,
                                 void (*fn)(void *object, void *context), void *context)
{
    /* The stopped threads only: the coordinator's acquire of each one's
     * state orders its pushes before these reads. */
    for (size_t t = 0; t < stop->thread_count; t++) {
        const corral_thread *thread = stop->threads[t];
        for (size_t i = 0; i < thread->call_pins.count; i++)
            fn(thread->call_pins.items[i], context);
        const suspended_stack *stack; /* its stacks set aside hold theirs */
        cds_list_for_each_entry(stack, &thread->suspended_stacks, link) {
            for (size_t i = 0; i < stack->call_pins.count; i++)
                fn(stack->call_pins.items[i], context);
        }
    }
}
