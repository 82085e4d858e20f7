/* walker.h — finding the roots on a stopped thread's stack.
 *
 * The walk follows the thread's managed segments (thread.h): from each
 * segment's anchor, frame by frame through the stackmap records, to the
 * segment's outer frame. It records the addresses of base slots (each once)
 * and (base slot, derived slot) pairs in thread->roots; the collector marks
 * through the bases and later rewrites every slot. A return address without a
 * record inside a segment is a fatal error naming the address and symbol.
 */
#ifndef CORRAL_WALKER_H
#define CORRAL_WALKER_H

#include "thread.h"

/* From the stopped world: fills thread->roots from its stack. */
void walker_collect_roots_from_stw(corral_thread *thread);

/* Called per managed frame: its index on the thread, its segment's on its
 * stack (0: the innermost), its stack's (0: the running one, then each
 * stack set aside by a switch, corral_stack_suspend). */
typedef void walker_frame_fn(uintptr_t return_address, size_t frame, size_t segment,
                             size_t stack, void *context);
/* Calls fn for every managed frame of a stopped thread, innermost first. */
void walker_for_each_frame(const corral_thread *thread, walker_frame_fn *fn, void *context);

/* The CFA of the outermost managed frame above (and including) the frame at
 * from: frames are followed while their return address has a stackmap
 * record. 0 when from itself is not managed. Thread: the owner, MANAGED. */
uintptr_t walker_outermost_managed_cfa(frame_anchor from);
/* The CFA of the one frame at `at`; 0 when its return address has no record. */
uintptr_t walker_frame_cfa(frame_anchor at);

/* Rewrites the thread's recorded slots through forward(): derived pointers
 * first (from their old bases), then every base slot exactly once. A slot
 * holds a word of compiled code, which under a tag scheme may be a tagged
 * reference or an immediate: forward() maps the word to its new word (an
 * immediate to itself, a reference with its tag kept), so a derived pointer
 * moves by as much as its base's object. */
void walker_update_roots_from_stw(corral_thread *thread, void *(*forward)(void *));

#endif /* CORRAL_WALKER_H */
