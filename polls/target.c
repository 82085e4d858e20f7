/* target.c — per-target facts for the pass and code generation. */
#include "target.h"

#include <llvm-c/Target.h>

#include <string.h>

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

void target_initialize_llvm(void)
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
