/* frames.c — keeps every managed frame addressable from RSP or RBP.
 *
 * The walker finds spill slots as [RSP + n] or [RBP + n]. x86-64 code
 * generation leaves those two only when a frame is both realigned (a local
 * aligned beyond the 16-byte stack alignment) and dynamically sized (a VLA,
 * alloca()): then it addresses slots from a base register (RBX) whose value
 * no stackmap records. In such a function the pass removes the need to
 * realign:
 *
 *   %a = alloca T, align 64          %raw = alloca i8, i64 sizeof(T) + 63, align 16
 *                            -->     %end = getelementptr i8, ptr %raw, i64 63
 *                                    %a   = llvm.ptrmask(ptr %end, i64 -64)
 *
 * and marks it "no-realign-stack", so code generation keeps spill slots
 * within the 16-byte alignment too (wide vector spills use unaligned moves).
 */
#include "pass.h"

#include <llvm-c/Target.h>

#include <stdlib.h>
#include <string.h>

/* The stack alignment x86-64 code generation guarantees without realigning. */
#define STACK_ALIGNMENT 16

static int is_static_alloca(LLVMValueRef alloca, LLVMBasicBlockRef entry)
{
    return LLVMGetInstructionParent(alloca) == entry &&
           LLVMIsAConstantInt(LLVMGetOperand(alloca, 0));
}

static int has_dynamic_alloca(LLVMValueRef function)
{
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    for (LLVMBasicBlockRef block = entry; block; block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (LLVMIsAAllocaInst(inst) && !is_static_alloca(inst, entry))
                return 1;
    return 0;
}

static LLVMValueRef ptrmask(polls_pass *pass, LLVMValueRef pointer, uint64_t mask)
{
    const char *name = "llvm.ptrmask";
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMTypeRef overloads[2] = {LLVMTypeOf(pointer), LLVMInt64TypeInContext(pass->context)};
    LLVMValueRef intrinsic = LLVMGetIntrinsicDeclaration(pass->module, id, overloads, 2);
    LLVMValueRef args[2] = {pointer, LLVMConstInt(overloads[1], mask, 0)};
    return LLVMBuildCall2(pass->builder, LLVMIntrinsicGetType(pass->context, id, overloads, 2),
                          intrinsic, args, 2, "");
}

/* Replaces a static alloca aligned beyond the stack by a byte buffer with
 * room to align it by hand. */
static void align_by_hand(polls_pass *pass, LLVMValueRef alloca, LLVMTargetDataRef layout)
{
    unsigned alignment = LLVMGetAlignment(alloca);
    uint64_t count = LLVMConstIntGetZExtValue(LLVMGetOperand(alloca, 0));
    uint64_t bytes = LLVMABISizeOfType(layout, LLVMGetAllocatedType(alloca)) * count;
    LLVMTypeRef i8 = LLVMInt8TypeInContext(pass->context);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMPositionBuilderBefore(pass->builder, alloca);
    LLVMValueRef raw = LLVMBuildArrayAlloca(pass->builder, i8,
                                            LLVMConstInt(i64, bytes + alignment - 1, 0), "");
    LLVMSetAlignment(raw, STACK_ALIGNMENT);
    LLVMValueRef offset = LLVMConstInt(i64, alignment - 1, 0);
    LLVMValueRef end = LLVMBuildGEP2(pass->builder, i8, raw, &offset, 1, "");
    LLVMValueRef aligned = ptrmask(pass, end, ~(uint64_t)(alignment - 1));
    char *name = xstrdup(value_name(alloca));
    LLVMReplaceAllUsesWith(alloca, aligned);
    LLVMInstructionEraseFromParent(alloca);
    LLVMSetValueName2(aligned, name, strlen(name));
    free(name);
}

void keep_frame_walkable(polls_pass *pass, LLVMValueRef function)
{
    if (!has_dynamic_alloca(function))
        return;
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    LLVMValueRef inst = LLVMGetFirstInstruction(entry);
    while (inst) {
        LLVMValueRef next = LLVMGetNextInstruction(inst);
        if (LLVMIsAAllocaInst(inst) && is_static_alloca(inst, entry) &&
            LLVMGetAlignment(inst) > STACK_ALIGNMENT)
            align_by_hand(pass, inst, layout);
        inst = next;
    }
    add_function_string_attribute(function, "no-realign-stack", "");
}
