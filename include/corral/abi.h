/* corral/abi.h — the contract between compiled code (the corral-opt pass) and
 * the runtime: symbol names and the protocol each one follows. The pass knows
 * the runtime only through this file; nothing here needs the runtime's types.
 *
 * Poll (inlined by the pass at every poll site):
 *     if (load volatile i64 CORRAL_ABI_POLL_PAGE[0]) != 0) call CORRAL_ABI_POLL_SLOW()
 *   The slow-path call is a statepoint, so the polling frame is walkable.
 *
 * Unmanaged call (managed code calling C that may block): the pass emits one
 * wrapper per callee (per argument-type list for varargs callees). The wrapper
 * is plain code (no gc strategy, no polls), never inlined, keeps its frame
 * pointer, and does:
 *     ra = llvm.returnaddress(0); fp = llvm.frameaddress(0)
 *     CORRAL_ABI_TO_UNMANAGED(ra, fp)    -- anchor = managed caller's frame
 *     result = callee(args...)
 *     CORRAL_ABI_TO_MANAGED()            -- blocks while a collection runs
 *     return result
 *   The managed call to the wrapper is an ordinary statepoint; the two runtime
 *   calls inside are "gc-leaf-function" (the wrapper is not managed code).
 *   Where the caller's SP is not fp + 16 (AArch64: the frame record sits below
 *   the other saved registers), the wrapper also passes its SP at entry:
 *     CORRAL_ABI_TO_UNMANAGED_AT(ra, fp, llvm.sponentry())
 *
 * Runtime safepoint calls (CORRAL_SAFEPOINT_CALL in corral.h): direct
 * statepoint calls, no wrapper; they may collect and take no references.
 * Runtime leaf calls (CORRAL_LEAF): direct calls marked "gc-leaf-function".
 */
#ifndef CORRAL_ABI_H
#define CORRAL_ABI_H

#define CORRAL_ABI_POLL_PAGE "corral_poll_page"
#define CORRAL_ABI_POLL_SLOW "corral_poll_slow"
#define CORRAL_ABI_TO_UNMANAGED "corral_transition_to_unmanaged"
#define CORRAL_ABI_TO_UNMANAGED_AT "corral_transition_to_unmanaged_at"
#define CORRAL_ABI_TO_MANAGED "corral_transition_to_managed"

/* A managed function whose address may reach C (qsort's comparator, a
 * struct of callbacks): the pass replaces the address by an entry
 * (managed, no polls) that asks
 *     CORRAL_ABI_CALLBACK_NEEDS_ENTRY()  -- int (void), a statepoint
 *                                           without references (its record)
 * and when it answers nonzero (the thread is attached and UNMANAGED: C was
 * called through a transition wrapper; or it was a C thread not attached,
 * which it attached) runs the function through corral_call_managed, a leaf
 * call; else (MANAGED; before corral_init; a collector thread running a
 * trace hook) musttail-calls it. */
#define CORRAL_ABI_CALLBACK_NEEDS_ENTRY "corral_callback_needs_entry"

/* Before each return of a managed main, after its return poll, a
 * statepoint without references (its record lets the runtime find main's
 * frame): void (void). When main is the thread's outermost managed frame,
 * the thread becomes UNMANAGED with no managed frames, as C code that
 * attached: the C library's atexit handlers then enter through their
 * entries, and collections no longer wait for the thread. */
#define CORRAL_ABI_MAIN_RETURNS "corral_main_returns"

/* First in each landing pad of a managed function, which runs while the
 * stack unwinds (C cleanups under -fexceptions during pthread_exit or
 * pthread_cancel): void (ptr stack_pointer), a statepoint (its record lets
 * the runtime find the pad's frame), given the pad's llvm.stacksave. The
 * thread runs managed code in the pad's frame and its callers again, and
 * forgets the frames the unwinding left behind. */
#define CORRAL_ABI_LANDING_PAD_ENTERED "corral_landing_pad_entered"

/* Pin count up and down around a call that passes references through "..."
 * (void fn(ptr addrspace(1)); null is ignored; gc-leaf). */
#define CORRAL_ABI_PIN_FOR_CALL "corral_pin_for_call"
#define CORRAL_ABI_UNPIN_AFTER_CALL "corral_unpin_after_call"

/* Frame pins, for a raw pointer into an object that reaches code which may
 * hand back a pointer into it (a call that may capture it, a phi with other
 * pointers, a local): the object stays pinned and alive until the function
 * returns. The function's entry fills a block of 1 + sites i64 words with
 * -1; each site calls void PIN_FOR_FRAME(ptr block, i32 site, ptr
 * addrspace(1) object), and every return first calls void
 * UNPIN_FRAME(ptr block). Both gc-leaf. */
#define CORRAL_ABI_PIN_FOR_FRAME "corral_pin_for_frame"
#define CORRAL_ABI_UNPIN_FRAME "corral_unpin_frame"

/* Write barrier (pass option --write-barrier), after a reference store to
 * %field of %object (corral/barrier.h has the C form):
 *     %offset = ptrtoint %field - load CORRAL_ABI_BARRIER_TABLE.heap_base
 *     if (%offset <u .heap_size) store atomic unordered i8 1, .cards[%offset >> 9]
 *     else if (.outside_heap != 0) call CORRAL_ABI_BARRIER_OUTSIDE_HEAP(%object, %field)
 * The table is five 64-bit words at these byte offsets (the fifth is the
 * deletion barrier's, below); the call is gc-leaf. */
#define CORRAL_ABI_BARRIER_TABLE "corral_barrier"
#define CORRAL_ABI_BARRIER_HEAP_BASE 0
#define CORRAL_ABI_BARRIER_HEAP_SIZE 8
#define CORRAL_ABI_BARRIER_CARDS 16
#define CORRAL_ABI_BARRIER_OUTSIDE_HEAP_FLAG 24
#define CORRAL_ABI_BARRIER_CARD_SHIFT 9
#define CORRAL_ABI_BARRIER_OUTSIDE_HEAP "corral_write_barrier_outside_heap"
/* After llvm.memcpy/memmove into the heap (it may copy references):
 * void (ptr addrspace(1) object or null, ptr addrspace(1) start, i64 bytes), gc-leaf. */
#define CORRAL_ABI_BARRIER_RANGE "corral_write_barrier_range"
/* Deletion barrier (pass option --satb-barrier), before a reference store,
 * cmpxchg, xchg, memcpy, memmove or memset into the heap that is not elided
 * (stores into an object allocated since the last safepoint are; stores of
 * null or constants are not, since what matters is the word overwritten):
 *     if (load CORRAL_ABI_BARRIER_TABLE.satb_active != 0)
 *         call CORRAL_ABI_SATB_LOG_RANGE(%object or null, %field, i64 bytes)
 * bytes: what the store writes (8 for one reference). The table's fifth
 * word; the call is gc-leaf and logs the references about to be
 * overwritten (corral/barrier.h, corral_deletion_barrier). */
#define CORRAL_ABI_BARRIER_SATB_ACTIVE 32
#define CORRAL_ABI_SATB_LOG_RANGE "corral_satb_log_range"

/* Annotation strings (clang's annotate attribute) the pass reads. */
#define CORRAL_ABI_ANNOTATION_LEAF "corral_leaf"
#define CORRAL_ABI_ANNOTATION_UNMANAGED "corral_unmanaged"
#define CORRAL_ABI_ANNOTATION_SAFEPOINT "corral_safepoint"
#define CORRAL_ABI_ANNOTATION_NOPOLL "corral_nopoll"
#define CORRAL_ABI_ANNOTATION_POLL_ALL "corral_poll_all"

/* The runtime's safepoint calls, for modules built without corral.h (JITs):
 * the pass treats these names as CORRAL_SAFEPOINT_CALL even unannotated. */
#define CORRAL_ABI_SAFEPOINT_FUNCTIONS                                                    \
    "corral_poll_slow", "corral_alloc_slow", "corral_collect", "corral_thread_attach",    \
        "corral_thread_detach", "corral_dump_threads", "corral_swapcontext",                 \
        "corral_setcontext", "corral_getcontext"

/* The gc strategy the pass sets on managed functions. */
#define CORRAL_ABI_GC_STRATEGY "coreclr"

/* Functions with gc "shadow-stack" mark their roots with @llvm.gcroot; the
 * pass lowers them to LLVM's shadow-stack frame layout (corral/shadow_stack.h)
 * pushed on this thread-local chain head (a ptr, initial value null):
 *     entry: frame = { head, @map, null... }; head = frame   (volatile stores)
 *     ret/resume: head = frame.next                           (volatile store)
 * and then compiles them like any managed function (gc "coreclr"). */
#define CORRAL_ABI_SHADOW_STACK_GC "shadow-stack"
#define CORRAL_ABI_SHADOW_STACK_HEAD "corral_shadow_stack_head"
/* The statepoint id of every call site in a gcroot function compiled in
 * promoted mode: its stores have no write barrier, so the walker counts
 * such frames and a minor collection refuses to run with them. */
#define CORRAL_ABI_GCROOT_STATEPOINT_ID 0x67637274u /* "gcrt" */
#define CORRAL_ABI_GCROOT_STATEPOINT_ID_TEXT "1734570612"
/* The statepoint id of every other call site the pass rewrites: a tag, and
 * in its low byte the barriers the code was built with, so that the runtime
 * refuses code that lacks one its configuration needs (src/code_check.c):
 * CORRAL_GC_GENERATIONAL=1 the card barrier, CORRAL_GC_CONCURRENT=1 the
 * deletion barrier. (RS4GC's default id, 0xABCDEF00, says neither.) */
#define CORRAL_ABI_STATEPOINT_ID 0x636f7200u /* "cor" */
#define CORRAL_ABI_STATEPOINT_ID_TAG_MASK 0xffffff00u
#define CORRAL_ABI_STATEPOINT_CARD_BARRIER 0x1u
#define CORRAL_ABI_STATEPOINT_SATB_BARRIER 0x2u

/* setjmp in managed code (polls/setjmp.c). Around each call of setjmp,
 * sigsetjmp or __builtin_setjmp, both gc-leaf:
 *     CORRAL_ABI_SETJMP_SAVE(ptr state)            -- state: CORRAL_ABI_SETJMP_STATE_BYTES
 *     %r = setjmp(...)                                in the frame, 8-aligned
 *     CORRAL_ABI_SETJMP_RETURNED(ptr state, i32 %r, ptr function_name)
 *   The second call does nothing when %r is 0; at the second return it drops
 *   what longjmp skipped (chain entries, call pins) and stops with a fatal
 *   error if longjmp came from code running UNMANAGED. A function with
 *   references live across such a call keeps them in a frame on the
 *   frame-root chain (corral/shadow_stack.h's layout), pushed and popped
 *   like a gcroot frame:
 *     entry: frame = { head, @map, null... }; head = frame
 *     each reference live across the call: stored to its root slot where it
 *       is defined, loaded again before each use
 *     ret: head = frame.next */
#define CORRAL_ABI_SETJMP_SAVE "corral_setjmp_save"
#define CORRAL_ABI_SETJMP_RETURNED "corral_setjmp_returned"
#define CORRAL_ABI_SETJMP_STATE_BYTES 32

/* The frame-root chain (corral/shadow_stack.h): the frames above, and those
 * of managed functions keeping references in fixed-size stack memory
 * (polls/stack_roots.c), whose map lists runs of reference words:
 *     entry: frame = { head, @map, slots... }; slots null, a byval
 *            parameter's copied in; head = frame; then the entry poll
 *     ret, resume: head = frame.next */
#define CORRAL_ABI_FRAME_ROOTS_HEAD "corral_frame_roots_head"

/* Where the CFA is not at a fixed distance from the frame pointer (AArch64:
 * the frame record sits below the other saved registers), a managed function
 * with dynamic allocas gives each statepoint the deopt operands
 * (i32 CORRAL_ABI_FRAME_CFA_MARKER, ptr llvm.sponentry()): the stackmap then
 * names the spill slot holding the frame's CFA, which the walker reads. */
#define CORRAL_ABI_FRAME_CFA_MARKER 0x43464121 /* "!AFC": "CFA!" little-endian */

/* The stackmap section, renamed after code generation so the linker defines
 * __start_/__stop_ symbols for it (it must be a C identifier). */
#define CORRAL_ABI_STACKMAP_SECTION "llvm_stackmaps"

#endif /* CORRAL_ABI_H */
