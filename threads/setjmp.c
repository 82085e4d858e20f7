/* setjmp.c — what a setjmp in managed code saves, and what its second
 * return restores (the pass's side is polls/setjmp.c; the protocol is in
 * corral/abi.h).
 *
 * longjmp unwinds without running anything in the frames it skips, so the
 * per-thread stacks those frames pushed on stay pushed: entries of the two
 * shadow-stack chains (their frames are gone: the walker would read freed
 * stack) and call pins (the objects would stay pinned for ever). The second
 * return puts all of them back to what they were at the setjmp call.
 *
 * longjmp from plain C that managed code called through a GC transition
 * would land in managed code with the thread still UNMANAGED, so that
 * collections would run while it mutates the heap: that is a fatal error,
 * caught here before the function goes on.
 */
#include "thread.h"

#include <corral/abi.h>
#include <corral/jit.h>
#include <corral/shadow_stack.h>

#include "fatal.h"

/* Written by corral_setjmp_save in the frame of the function calling setjmp;
 * read by its corral_setjmp_returned, on the same thread. */
typedef struct setjmp_state {
    corral_shadow_stack_entry *frame_roots_head;
    corral_shadow_stack_entry *shadow_stack_head;
    const managed_segment *segment;
    size_t call_pins;
} setjmp_state;

_Static_assert(sizeof(setjmp_state) <= CORRAL_ABI_SETJMP_STATE_BYTES,
               "the pass reserves CORRAL_ABI_SETJMP_STATE_BYTES for the state");

void corral_setjmp_save(void *state_bytes)
{
    setjmp_state *state = state_bytes;
    const corral_thread *self = corral_current_thread;
    state->frame_roots_head = corral_frame_roots_head;
    state->shadow_stack_head = corral_shadow_stack_head;
    state->segment = self ? self->segment : NULL;
    state->call_pins = self ? self->call_pins.count : 0;
}

void corral_setjmp_returned(void *state_bytes, int result, const char *function_name)
{
    if (result == 0)
        return;
    const setjmp_state *state = state_bytes;
    corral_thread *self = corral_current_thread;
    if (self) {
        uint32_t now = atomic_load_explicit(&self->state, memory_order_relaxed);
        if (now != THREAD_MANAGED)
            CORRAL_FATAL("longjmp to the setjmp in managed function '%s' on %s came from code "
                         "running %s (plain C called through a GC transition): collections "
                         "would run while the function mutates the heap; longjmp only from "
                         "managed code, or return an error to the managed caller "
                         "(docs/managed-c.md rule 6)",
                         function_name, self->name, thread_state_name(now));
        if (self->segment != state->segment)
            CORRAL_FATAL("longjmp to the setjmp in managed function '%s' on %s skipped a call "
                         "from plain C into managed code (its managed segment %p, now %p): "
                         "longjmp only within managed code (docs/managed-c.md rule 6)",
                         function_name, self->name, (const void *)state->segment,
                         (const void *)self->segment);
        if (state->call_pins > self->call_pins.count)
            CORRAL_FATAL("longjmp to the setjmp in managed function '%s' on %s: %zu call pins "
                         "at setjmp, %zu now (a corrupt jmp_buf or state?)",
                         function_name, self->name, state->call_pins, self->call_pins.count);
        self->call_pins.count = state->call_pins;
    }
    corral_frame_roots_head = state->frame_roots_head;
    corral_shadow_stack_head = state->shadow_stack_head;
}
