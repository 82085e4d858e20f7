/* corral/jit.h — what a JIT's generated code links against.
 *
 * Code compiled in memory (MCJIT, ORC) cannot reach the host's thread-local
 * variables or rely on the static linker, so a JIT resolves these symbols by
 * address (e.g. LLVMAddSymbol or a symbol generator): the names are in
 * corral/abi.h, the prototypes here. After code generation, hand the
 * .llvm_stackmaps section of the new code to corral_register_stackmaps
 * before running it. See docs/embedding.md and examples/vm/.
 */
#ifndef CORRAL_JIT_H
#define CORRAL_JIT_H

#include <corral.h>

#ifdef __cplusplus
extern "C" {
#endif
/* What this header declares is exported from libcorral (it is built with
 * hidden visibility). */
#pragma GCC visibility push(default)

/* Called by the pass's GC-transition wrappers around an unmanaged callee:
 * return_address and frame_address are the wrapper's llvm.returnaddress(0)
 * and llvm.frameaddress(0); stack_pointer (the _at form) is its SP at entry,
 * llvm.sponentry(). The two-argument form takes SP = frame_address + 16,
 * which holds on x86-64 only. Both preserve errno. */
void corral_transition_to_unmanaged(void *return_address, void *frame_address);
void corral_transition_to_unmanaged_at(void *return_address, void *frame_address,
                                       void *stack_pointer);
void corral_transition_to_managed(void);

/* Asked by the entry the pass gives a managed function whose address may
 * reach C (corral/abi.h): 1 when the calling thread is attached and
 * UNMANAGED, so the function must run through corral_call_managed. A C
 * thread that was never attached (or detached) is attached here, UNMANAGED,
 * until it exits, and gets 1 too; the collector's own threads and any
 * thread before corral_init get 0. Never collects; called as a statepoint,
 * which gives the entry its record. Every external function C can enter
 * has an entry under its symbol (corral_polls_options.keep_external_symbols),
 * so a JIT resolves this and corral_call_managed unless it keeps them. */
int corral_callback_needs_entry(void);
/* Called by a managed main before it returns (corral/abi.h): the thread
 * leaves managed code for the C library's atexit handlers and exit. */
void corral_main_returns(void);
/* Called first in a managed landing pad with its stack pointer, as a
 * statepoint (corral/abi.h): managed code runs in the pad's frame again. */
void corral_landing_pad_entered(void *stack_pointer);

/* Called around a call that passes references through "..." (the pass
 * emits them, see corral/abi.h): the object stays pinned until the call
 * returns. Null pins nothing. Leaf. */
CORRAL_LEAF void corral_pin_for_call(corral_ref object);
CORRAL_LEAF void corral_unpin_after_call(corral_ref object);
/* A frame pin (corral/abi.h): object stays pinned, and alive, until the
 * frame holding block returns and calls corral_unpin_frame; each site of
 * the frame holds one object, the last it pinned. Null lets go. Leaf. */
CORRAL_LEAF void corral_pin_for_frame(size_t *block, uint32_t site, corral_ref object);
CORRAL_LEAF void corral_unpin_frame(size_t *block);

/* Around a setjmp call in managed code (corral/abi.h): save writes the
 * state the second return restores (state: CORRAL_ABI_SETJMP_STATE_BYTES,
 * 8-aligned); returned does nothing when result is 0. Leaf. */
CORRAL_LEAF void corral_setjmp_save(void *state);
CORRAL_LEAF void corral_setjmp_returned(void *state, int result, const char *function_name);

/* The calling thread's TLAB, for generated allocation fast paths (the same
 * bump as corral/alloc.h, zeroing the object too unless CORRAL_TLAB_ZERO=1;
 * fall back to corral_alloc_slow). Leaf. */
CORRAL_LEAF corral_tlab *corral_current_tlab(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* CORRAL_JIT_H */
