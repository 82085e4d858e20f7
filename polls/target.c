/* target.c — per-target facts for the pass and code generation. */
#include "target.h"

#include <corral/safepoint_pass.h>
#include <llvm-c/Target.h>

#include <pthread.h>
#include <string.h>

#include "arch.h"

corral_target target_of_triple(const char *triple)
{
    if (!triple)
        return TARGET_UNSUPPORTED;
    if (strncmp(triple, "x86_64", 6) == 0)
        return TARGET_X86_64;
    /* aarch64_be is another data layout and ABI: not supported. */
    if (strncmp(triple, "aarch64-", 8) == 0 || strncmp(triple, "arm64-", 6) == 0)
        return TARGET_AARCH64;
    return TARGET_UNSUPPORTED;
}

corral_target target_of_module(LLVMModuleRef module)
{
    return target_of_triple(LLVMGetTarget(module));
}

const char *target_default_cpu(corral_target target)
{
    return target == TARGET_AARCH64 ? "generic" : "x86-64";
}

static void register_llvm_targets(void)
{
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser(); /* inline assembly in object output */
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeAArch64AsmParser();
}

void target_initialize_llvm(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_llvm_targets);
}

/* base/arch.h names the machine this library was compiled for, where the
 * JIT's code runs; LLVM_NATIVE_TARGET names the one LLVM's headers were
 * configured on (X86 in a cross build with the build machine's headers). */
const char *corral_polls_jit_target(void)
{
    target_initialize_llvm();
    return ARCH_LLVM_TRIPLE;
}

/* AArch64 keeps the frame record below the other callee-saved registers. */
bool target_wrapper_passes_entry_sp(corral_target target)
{
    return target == TARGET_AARCH64;
}

/* The same layout: CFA = FP + the size of the other saved registers. */
bool target_dynamic_frame_saves_cfa(corral_target target)
{
    return target == TARGET_AARCH64;
}
