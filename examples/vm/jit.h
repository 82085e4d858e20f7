/* jit.h — compiling a tiny program to machine code that corral can collect.
 *
 *   tiny_program ─ jit_emit.c ─> LLVM IR: values are ptr addrspace(1),
 *        allocation is the TLAB bump of corral/alloc.h written out in IR
 *   ─ corral_polls_run (corral/safepoint_pass.h) ─> polls + statepoints
 *   ─ MCJIT (jit_engine.c) ─> code in memory; its memory manager keeps the
 *        address of the .llvm_stackmaps section it allocates
 *   ─ corral_register_stackmaps ─> the walker knows every frame of the code
 *
 * The code is never freed: corral cannot unregister stackmaps, and a frame
 * of it may be on some thread's stack until that thread returns.
 * Compiled code trusts the program's types (the interpreter checks them): a
 * type error that the interpreter reports is a crash here.
 */
#ifndef TINY_JIT_H
#define TINY_JIT_H

#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>

#include "program.h"

/* What the compiled entry reads and writes: plain C data, so it can cross
 * from C into managed code and back. */
typedef struct tiny_jit_call {
    const int64_t *args; /* the entry function's integer arguments */
    int64_t result;      /* its integer result, stored before returning */
} tiny_jit_call;

/* The compiled entry, managed code: enter it with corral_call_managed from
 * UNMANAGED C, or start a thread on it with corral_thread_create. Its
 * argument is a tiny_jit_call; it returns NULL. */
typedef void *(*tiny_jit_entry)(void *call);

/* The name of the entry function in the emitted module. */
#define TINY_JIT_ENTRY_NAME "tiny_entry"

/* Emits a module with one function per tiny function and the entry that
 * calls entry_function (jit_emit.c). */
LLVMModuleRef tiny_jit_emit(LLVMContextRef context, const tiny_program *program,
                            const tiny_function *entry_function, const char *module_name);

/* Returns the calling thread's TLAB (&corral_thread_tlab): compiled code
 * reaches the thread-local buffer through this leaf call once per function. */
void *tiny_jit_current_tlab(void);

/* Compiles program with entry_function as the entry, registers its
 * stackmaps, and returns the entry; NULL with a message in error on failure.
 * print_ir: print the module before and after the pass on stderr.
 * Call after corral_init; any thread. */
tiny_jit_entry tiny_jit_compile(const tiny_program *program, const tiny_function *entry_function,
                                const char *name, int print_ir, char *error,
                                size_t error_size);

#endif /* TINY_JIT_H */
