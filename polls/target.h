/* target.h — what the pass and code generation know about each target
 * (x86-64 and AArch64 Linux); the rest of polls/ asks here, never tests a
 * triple itself. docs/platforms.md has the porting notes. */
#ifndef CORRAL_POLLS_TARGET_H
#define CORRAL_POLLS_TARGET_H

#include <llvm-c/Core.h>
#include <stdbool.h>

typedef enum corral_target {
    TARGET_UNSUPPORTED,
    TARGET_X86_64,
    TARGET_AARCH64,
} corral_target;

corral_target target_of_triple(const char *triple);
corral_target target_of_module(LLVMModuleRef module);

/* The CPU code generation assumes when none is given. */
const char *target_default_cpu(corral_target target);

/* Registers the LLVM targets corral generates code for (once; any thread). */
void target_initialize_llvm(void);

/* Whether a transition wrapper must pass its SP at entry (llvm.sponentry):
 * the caller's SP is not frame address + 16 there (ABI: _AT form). */
bool target_wrapper_passes_entry_sp(corral_target target);

/* Whether a frame's CFA is at no fixed distance from its frame pointer, so
 * a frame without a size in its stackmap (dynamic allocas, realignment) must
 * save its CFA for the walker (corral/abi.h CORRAL_ABI_FRAME_CFA_MARKER). */
bool target_dynamic_frame_saves_cfa(corral_target target);

#endif /* CORRAL_POLLS_TARGET_H */
