/* stack_switch.h — the runtime's record of a stack set aside by a switch
 * (corral_stack_suspend, corral.h; the protocol is in stack_switch.c). */
#ifndef CORRAL_STACK_SWITCH_H
#define CORRAL_STACK_SWITCH_H

#include <stdbool.h>
#include <stdint.h>
#include <urcu/list.h>

#include "thread.h"

struct corral_shadow_stack_entry;

/* Lives in a corral_suspended_stack on the stack it describes. Written by
 * the owner thread while MANAGED; read by the collector once it is stopped. */
typedef struct suspended_stack {
    uint64_t magic;               /* SUSPENDED_MAGIC while listed */
    struct cds_list_head link;    /* in the owner's suspended_stacks */
    const void *key;              /* the embedder's name for it: a ucontext_t *, ... */
    corral_thread *thread;        /* the owner; NULL: suspended unattached */
    managed_segment *segment;     /* the stack's innermost managed segment */
    frame_anchor anchor;          /* where its managed code was left */
    bool in_managed_code;
    uint32_t handle_scope_depth;  /* the thread's, at the suspend */
    struct corral_shadow_stack_entry *frame_roots_head;
    struct corral_shadow_stack_entry *shadow_stack_head;
    call_pin_stack call_pins;
} suspended_stack;

/* At detach: the thread's suspended stacks are no longer walked. */
void stack_switch_forget_all(corral_thread *thread);
/* Fatal unless stack is a listed record of thread (its memory intact). */
void stack_switch_check_from_stw(const corral_thread *thread, const suspended_stack *stack);

#endif /* CORRAL_STACK_SWITCH_H */
