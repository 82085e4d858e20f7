/* emit.h — writing a module out: IR text, bitcode, assembly or an object.
 * Used by corral-opt; a JIT emits through its own target machine. */
#ifndef CORRAL_POLLS_EMIT_H
#define CORRAL_POLLS_EMIT_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

typedef enum output_kind {
    OUTPUT_IR_TEXT,
    OUTPUT_BITCODE,
    OUTPUT_ASSEMBLY,
    OUTPUT_OBJECT,
} output_kind;

/* Creates a PIC target machine (x86-64 or AArch64) for the module's triple
 * (the host triple when the module has none) and fills in an empty triple and
 * datalayout. cpu may be NULL (the target's baseline) or "native". Returns NULL and sets
 * *error (free with free()) when the target is unsupported. */
LLVMTargetMachineRef emit_create_target_machine(LLVMModuleRef module, const char *cpu,
                                                unsigned optimization_level, char **error);

/* Writes module to path ("-" is stdout for IR text). Returns 0, or -1 with
 * *error set (free with free()). tm is needed for assembly and objects. */
int emit_module(LLVMModuleRef module, LLVMTargetMachineRef tm, output_kind kind,
                const char *path, char **error);

#endif /* CORRAL_POLLS_EMIT_H */
