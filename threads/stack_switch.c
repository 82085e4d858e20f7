/* stack_switch.c — managed code on more than one stack per thread:
 * coroutines, fibers and generators switching stacks with swapcontext or a
 * switch routine of the embedder's.
 *
 * A thread's managed segments and anchor, its frame-root and gcroot chains
 * and its call pins all describe the stack it runs on. Before a switch the
 * thread moves them into a suspended_stack kept on the stack it leaves and
 * lists that record on itself; every collection walks the listed stacks like
 * the running one (walker.c). The stack switched to starts with none (a new
 * context: its function enters managed code through corral_call_managed,
 * which its callback entry calls) or takes its own back from its record.
 *
 *          corral_stack_suspend: state into the record, record listed
 *   running -----------------------------------------------------> suspended
 *      ^                                                               |
 *      +--- corral_stack_resume (same thread): record unlisted --------+
 *                                                                      |
 *   forgotten <--- corral_stack_forget, or a new suspend under its key --+
 *
 * The owner changes its list and state while MANAGED, so a collection that
 * walks them (only once the thread is stopped) sees either side of the
 * change; it is UNMANAGED, with no managed frames, across the switch itself.
 */
#include <corral.h>
#include <stdalign.h>
#include <stdbool.h>
#include <string.h>
#include <ucontext.h>
#include <urcu/list.h>

#include "corral/shadow_stack.h"
#include "entry.h"
#include "fatal.h"
#include "stack_switch.h"
#include "thread.h"

/* A record still listed (suspended) carries this; forgotten or resumed ones
 * do not, so a record whose stack was freed or reused is caught by name. */
#define SUSPENDED_MAGIC UINT64_C(0xC022A15A5D57AC4B)

_Static_assert(sizeof(suspended_stack) <= sizeof(corral_suspended_stack),
               "corral_suspended_stack (corral.h) is too small for the runtime's record");
_Static_assert(alignof(suspended_stack) <= alignof(corral_suspended_stack),
               "corral_suspended_stack (corral.h) is not aligned enough");

/* The running stack's part of the thread record, moved into or out of a
 * record; the thread's side is left empty or filled. */
static void move_stack_state(corral_thread *self, suspended_stack *stack, bool suspend)
{
    if (suspend) {
        stack->segment = self->segment;
        stack->anchor = self->anchor;
        stack->in_managed_code = self->in_managed_code;
        stack->frame_roots_head = *self->frame_roots_head;
        stack->shadow_stack_head = *self->shadow_stack_head;
        stack->call_pins = self->call_pins;
        stack->handle_scope_depth = self->handle_scope_depth;
        self->segment = NULL;
        self->anchor = (frame_anchor){0};
        self->in_managed_code = false;
        *self->frame_roots_head = NULL;
        *self->shadow_stack_head = NULL;
        self->call_pins = (call_pin_stack){0};
        return;
    }
    VEC_FREE(self->call_pins); /* the finished stack's, empty */
    self->segment = stack->segment;
    self->anchor = stack->anchor;
    self->in_managed_code = stack->in_managed_code;
    *self->frame_roots_head = stack->frame_roots_head;
    *self->shadow_stack_head = stack->shadow_stack_head;
    self->call_pins = stack->call_pins;
}

static suspended_stack *listed_under(corral_thread *self, const void *key)
{
    suspended_stack *stack;
    cds_list_for_each_entry(stack, &self->suspended_stacks, link) {
        if (stack->key == key)
            return stack;
    }
    return NULL;
}

static void unlist(suspended_stack *stack)
{
    cds_list_del(&stack->link);
    stack->magic = 0;
}

/* The caller is UNMANAGED: MANAGED while it changes what a collection reads. */
static corral_thread *enter_change(const char *call)
{
    corral_thread *self = corral_current_thread;
    if (!self)
        return NULL;
    if (atomic_load_explicit(&self->state, memory_order_relaxed) != THREAD_UNMANAGED)
        CORRAL_FATAL("%s: %s is %s: call it from C that managed code reached through an "
                     "unmanaged call, around the switch of stacks",
                     call, self->name, thread_state_name(self->state));
    thread_resume_managed(self);
    return self;
}

static void leave_change(corral_thread *self)
{
    thread_publish_stopped(self, THREAD_UNMANAGED);
}

/* Called by managed code directly (corral-opt's statepoint, no wrapper):
 * the thread is MANAGED, so nothing reads its list or state meanwhile. */
static bool called_from_managed_code(const corral_thread *self)
{
    return self && self->in_managed_code &&
           atomic_load_explicit(&self->state, memory_order_relaxed) == THREAD_MANAGED;
}

/* MANAGED: the running stack's state into stack, listed under key. */
static void suspend_running_stack(corral_thread *self, suspended_stack *stack, const void *key)
{
    suspended_stack *stale = listed_under(self, key);
    if (stale)
        unlist(stale); /* saved again under its key: that stack never ran again */
    stack->magic = SUSPENDED_MAGIC;
    stack->key = key;
    stack->thread = self;
    move_stack_state(self, stack, true);
    cds_list_add(&stack->link, &self->suspended_stacks);
}

/* The thread the code runs on after a switch: read again, not from a value
 * the compiler kept from before it (the switch may cross threads). */
__attribute__((noinline)) static corral_thread *thread_after_switch(void)
{
    return corral_current_thread;
}

/* Before resume_suspended_stack, while still UNMANAGED: fatal unless stack
 * may be resumed on self. */
static void check_resumable(const corral_thread *self, const suspended_stack *stack)
{
    if (stack->magic != SUSPENDED_MAGIC)
        CORRAL_FATAL("corral_stack_resume: the stack suspended under key %p is not suspended "
                     "(resumed twice, or forgotten with corral_stack_forget)",
                     stack->key);
    if (stack->thread != self)
        CORRAL_FATAL("corral_stack_resume: the stack suspended on %s (key %p) resumed on %s: "
                     "a stack with managed frames must run again on the thread that suspended "
                     "it",
                     stack->thread->name, stack->key, self ? self->name : "a detached thread");
}

/* MANAGED: stack's state back into the thread, which must have none left. */
static void resume_suspended_stack(corral_thread *self, suspended_stack *stack)
{
    if (self->segment || *self->frame_roots_head || *self->shadow_stack_head ||
        self->call_pins.count)
        CORRAL_FATAL("corral_stack_resume: %s switched to the stack suspended under key %p "
                     "from one that still lists managed frames: the switch away did not go "
                     "through corral_stack_suspend (swapcontext from plain C?)",
                     self->name, stack->key);
    if (self->handle_scope_depth != stack->handle_scope_depth)
        CORRAL_FATAL("corral_stack_resume: %s resumes the stack suspended under key %p with %u "
                     "handle scopes open, against %u when it was suspended: another stack "
                     "opened or closed one meanwhile (close a stack's handle scopes before "
                     "it switches away)",
                     self->name, stack->key, self->handle_scope_depth,
                     stack->handle_scope_depth);
    unlist(stack);
    move_stack_state(self, stack, false);
}

void corral_stack_suspend(corral_suspended_stack *saved, const void *key)
{
    suspended_stack *stack = (suspended_stack *)(void *)saved;
    memset(stack, 0, sizeof *stack);
    corral_thread *self = enter_change("corral_stack_suspend");
    if (!self)
        return;
    suspend_running_stack(self, stack, key);
    leave_change(self);
}

void corral_stack_resume(corral_suspended_stack *saved)
{
    suspended_stack *stack = (suspended_stack *)(void *)saved;
    if (!stack->thread)
        return; /* suspended unattached: nothing was set aside */
    corral_thread *self = thread_after_switch();
    check_resumable(self, stack);
    enter_change("corral_stack_resume");
    resume_suspended_stack(self, stack);
    leave_change(self);
}

void corral_stack_forget(const void *key)
{
    corral_thread *self = corral_current_thread;
    if (!self)
        return;
    bool unmanaged =
        atomic_load_explicit(&self->state, memory_order_relaxed) == THREAD_UNMANAGED;
    if (unmanaged)
        thread_resume_managed(self); /* MANAGED: no collection reads the list meanwhile */
    suspended_stack *stack = listed_under(self, key);
    if (stack)
        unlist(stack);
    if (unmanaged)
        leave_change(self);
}

/* From managed code, a statepoint call (its record describes the caller's
 * frame, which the suspended stack's anchor names): one transition per
 * switch, where a wrapper and the C path take three. UNMANAGED across the
 * switch, so that a new context's entry enters through corral_call_managed
 * and a collection need not wait for the system call. From C (UNMANAGED),
 * corral_stack_suspend and corral_stack_resume around it. */
CORRAL_RUNTIME_ENTRY int corral_swapcontext(void *save, const void *target)
{
    corral_thread *self = corral_current_thread;
    corral_suspended_stack saved;
    suspended_stack *stack = (suspended_stack *)(void *)&saved;
    if (!called_from_managed_code(self)) {
        corral_stack_suspend(&saved, save);
        int result = swapcontext(save, target);
        corral_stack_resume(&saved);
        return result;
    }
    self->anchor = FRAME_ANCHOR_OF_CALLER();
    self->in_managed_code = false;
    suspend_running_stack(self, stack, save);
    thread_publish_stopped(self, THREAD_UNMANAGED);
    int result = swapcontext(save, target);
    self = thread_after_switch();
    check_resumable(self, stack);
    thread_resume_managed(self);
    resume_suspended_stack(self, stack);
    self->anchor.return_address = 0; /* back in the managed caller */
    self->in_managed_code = true;
    return result;
}

CORRAL_RUNTIME_ENTRY int corral_setcontext(const void *target)
{
    corral_thread *self = corral_current_thread;
    bool from_managed = called_from_managed_code(self);
    if (!from_managed)
        self = enter_change("corral_setcontext");
    if (self) {
        /* The running stack is abandoned: its frames are no longer walked. */
        suspended_stack abandoned;
        move_stack_state(self, &abandoned, true);
        VEC_FREE(abandoned.call_pins);
        leave_change(self); /* UNMANAGED for the stack it goes to, as a switch leaves it */
    }
    return setcontext(target);
}

CORRAL_RUNTIME_ENTRY int corral_getcontext(void *context)
{
    /* The context is of this function's frame, gone once it returns: only
     * makecontext may make something of it. A second return is caught while
     * the dead frame still holds the mark. */
    volatile bool returned = false;
    corral_stack_forget(context); /* what it held is overwritten: never resumed now */
    int result = getcontext(context);
    if (returned)
        CORRAL_FATAL("a context that getcontext saved in managed code was resumed: managed "
                     "code may resume only a context makecontext made or swapcontext saved");
    returned = true;
    return result;
}

void stack_switch_forget_all(corral_thread *thread)
{
    suspended_stack *stack, *next;
    cds_list_for_each_entry_safe(stack, next, &thread->suspended_stacks, link) {
        VEC_FREE(stack->call_pins);
        unlist(stack);
    }
}

void stack_switch_check_from_stw(const corral_thread *thread, const suspended_stack *stack)
{
    if (stack->magic != SUSPENDED_MAGIC || stack->thread != thread)
        CORRAL_FATAL("stack walk of %s (tid %d): its suspended stack record at %p is "
                     "overwritten (magic %#lx): the stack's memory was freed or reused while "
                     "it was suspended; call corral_stack_forget(key) before that",
                     thread->name, (int)thread->tid, (const void *)stack,
                     (unsigned long)stack->magic);
}
