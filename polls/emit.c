/* emit.c — target machine set-up and module output for corral-opt. */
#include "emit.h"

#include "target.h"
#include "util.h"

#include <llvm-c/BitWriter.h>
#include <llvm-c/Target.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *take_llvm_message(char *message)
{
    char *copy = xstrdup(message ? message : "unknown error");
    LLVMDisposeMessage(message);
    return copy;
}

LLVMTargetMachineRef emit_create_target_machine(LLVMModuleRef module, const char *cpu,
                                                unsigned optimization_level, char **error)
{
    target_initialize_llvm();
    char *default_triple = LLVMGetDefaultTargetTriple();
    const char *triple = LLVMGetTarget(module);
    if (!triple || !*triple) {
        LLVMSetTarget(module, default_triple);
        triple = LLVMGetTarget(module);
    }
    LLVMDisposeMessage(default_triple);
    corral_target kind = target_of_triple(triple);
    if (kind == TARGET_UNSUPPORTED) {
        *error = xasprintf("target triple '%s' is not supported: corral generates x86-64 "
                           "and AArch64 Linux code (x86_64-linux-gnu, aarch64-linux-gnu)",
                           triple);
        return NULL;
    }
    LLVMTargetRef target;
    char *message = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &message)) {
        *error = take_llvm_message(message);
        return NULL;
    }
    char *host_cpu = NULL;
    if (cpu && strcmp(cpu, "native") == 0)
        cpu = host_cpu = LLVMGetHostCPUName();
    static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                 LLVMCodeGenLevelDefault,
                                                 LLVMCodeGenLevelAggressive};
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
        target, triple, cpu ? cpu : target_default_cpu(kind), "", levels[optimization_level > 3 ? 3 : optimization_level],
        LLVMRelocPIC, LLVMCodeModelDefault);
    if (host_cpu)
        LLVMDisposeMessage(host_cpu);
    if (!tm) {
        *error = xasprintf("cannot create a target machine for '%s'", triple);
        return NULL;
    }
    const char *layout = LLVMGetDataLayoutStr(module);
    if (!layout || !*layout) {
        LLVMTargetDataRef data = LLVMCreateTargetDataLayout(tm);
        char *text = LLVMCopyStringRepOfTargetData(data);
        LLVMSetDataLayout(module, text);
        LLVMDisposeMessage(text);
        LLVMDisposeTargetData(data);
    }
    return tm;
}

static int write_ir_text(LLVMModuleRef module, const char *path, char **error)
{
    if (strcmp(path, "-") != 0) {
        char *message = NULL;
        if (LLVMPrintModuleToFile(module, path, &message)) {
            *error = take_llvm_message(message);
            return -1;
        }
        return 0;
    }
    char *text = LLVMPrintModuleToString(module);
    int failed = fputs(text, stdout) < 0 || fflush(stdout) != 0;
    LLVMDisposeMessage(text);
    if (failed) {
        *error = xasprintf("writing to standard output: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int emit_module(LLVMModuleRef module, LLVMTargetMachineRef tm, output_kind kind,
                const char *path, char **error)
{
    *error = NULL;
    switch (kind) {
    case OUTPUT_IR_TEXT:
        return write_ir_text(module, path, error);
    case OUTPUT_BITCODE:
        if (LLVMWriteBitcodeToFile(module, path) != 0) {
            *error = xasprintf("cannot write bitcode to '%s'", path);
            return -1;
        }
        return 0;
    case OUTPUT_ASSEMBLY:
    case OUTPUT_OBJECT: {
        char *message = NULL;
        char *writable_path = xstrdup(path);
        LLVMBool failed = LLVMTargetMachineEmitToFile(
            tm, module, writable_path, kind == OUTPUT_OBJECT ? LLVMObjectFile : LLVMAssemblyFile,
            &message);
        free(writable_path);
        if (failed) {
            *error = take_llvm_message(message);
            return -1;
        }
        if (message)
            LLVMDisposeMessage(message);
        return 0;
    }
    }
    *error = xstrdup("unknown output kind");
    return -1;
}
