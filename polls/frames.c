/* frames.c — keeps every managed frame addressable from SP or FP, and its
 * CFA known to the walker.
 *
 * The walker finds spill slots as [SP + n] or [FP + n]. x86-64 code
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
 *
 * The walker needs each frame's CFA. A stackmap gives a frame's size unless
 * it is dynamic (or realigned). x86-64 finds a dynamic frame's CFA at
 * RBP + 16; AArch64 keeps the frame record below the other saved registers,
 * so there the CFA is at a distance from FP only the unwind tables know.
 * On such a target every function is kept from realigning (aligned by hand
 * as above); in a function with dynamic allocas, static allocas beyond 240
 * bytes are made dynamic too (else LLVM addresses slots from a base register,
 * x19), and each statepoint gets the CFA as deopt operands, which the
 * stackmap records as a spill slot:
 *
 *   entry:  %cfa = call ptr @llvm.sponentry()
 *   call token @llvm.experimental.gc.statepoint(...)
 *             [ "deopt"(i32 CORRAL_ABI_FRAME_CFA_MARKER, ptr %cfa), "gc-live"(...) ]
 */
#include "pass.h"
#include "target.h"

#include "corral/abi.h"

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include <stdlib.h>
#include <string.h>

/* The stack alignment x86-64 code generation guarantees without realigning. */
#define STACK_ALIGNMENT 16

static int has_dynamic_alloca(LLVMValueRef function)
{
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    for (LLVMBasicBlockRef block = entry; block; block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (LLVMIsAAllocaInst(inst) && !is_static_alloca(inst))
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

static uint64_t alloca_bytes(LLVMValueRef alloca, LLVMTargetDataRef layout)
{
    uint64_t count = LLVMConstIntGetZExtValue(LLVMGetOperand(alloca, 0));
    return LLVMABISizeOfType(layout, LLVMGetAllocatedType(alloca)) * count;
}

/* Replaces a static alloca aligned beyond the stack by a byte buffer with
 * room to align it by hand. */
static void align_by_hand(polls_pass *pass, LLVMValueRef alloca, LLVMTargetDataRef layout)
{
    unsigned alignment = LLVMGetAlignment(alloca);
    uint64_t bytes = alloca_bytes(alloca, layout);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(pass->context);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMPositionBuilderBefore(pass->builder, alloca);
    LLVMValueRef raw = LLVMBuildArrayAlloca(pass->builder, i8,
                                            LLVMConstInt(i64, bytes + alignment - 1, 0), "");
    LLVMSetAlignment(raw, STACK_ALIGNMENT);
    LLVMValueRef offset = LLVMConstInt(i64, alignment - 1, 0);
    LLVMValueRef end = LLVMBuildGEP2(pass->builder, i8, raw, &offset, 1, "");
    LLVMValueRef aligned = ptrmask(pass, end, ~(uint64_t)(alignment - 1));
    replace_instruction(alloca, aligned);
}

/* Bytes of static allocas a dynamic AArch64 frame may keep: LLVM 19 gives a
 * frame with dynamic allocas a base pointer (x19, whose value no stackmap
 * records) once its block of locals reaches 256 bytes. */
#define STATIC_LOCALS_WITHOUT_BASE_POINTER 240

int used_by_gcroot(LLVMValueRef alloca)
{
    for (LLVMUseRef use = LLVMGetFirstUse(alloca); use; use = LLVMGetNextUse(use))
        if (is_call_to(LLVMGetUser(use), "llvm.gcroot"))
            return 1;
    return 0;
}

/* alloca T, N (static)  ->  %n = asm "" (N * sizeof T); alloca i8, i64 %n:
 * the same memory, freed at return, but allocated below the fixed frame. */
static void make_dynamic(polls_pass *pass, LLVMValueRef alloca, uint64_t bytes)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMTypeRef opaque_type = LLVMFunctionType(i64, &i64, 1, 0);
    LLVMValueRef opaque = LLVMGetInlineAsm(opaque_type, "", 0, "=r,0", 4, 0, 0,
                                           LLVMInlineAsmDialectATT, 0);
    LLVMPositionBuilderBefore(pass->builder, alloca);
    LLVMValueRef size = LLVMConstInt(i64, bytes, 0);
    LLVMValueRef hidden = LLVMBuildCall2(pass->builder, opaque_type, opaque, &size, 1, "");
    LLVMValueRef dynamic =
        LLVMBuildArrayAlloca(pass->builder, LLVMInt8TypeInContext(pass->context), hidden, "");
    LLVMSetAlignment(dynamic, LLVMGetAlignment(alloca));
    replace_instruction(alloca, dynamic);
}

static uint64_t round_to_stack_alignment(uint64_t bytes)
{
    return (bytes + STACK_ALIGNMENT - 1) / STACK_ALIGNMENT * STACK_ALIGNMENT;
}

/* Moves the largest static allocas of a dynamic frame below the fixed frame
 * until the rest cannot make LLVM use a base pointer. */
static void keep_static_locals_small(polls_pass *pass, LLVMValueRef function,
                                     LLVMTargetDataRef layout)
{
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    for (;;) {
        uint64_t total = 0, largest_bytes = 0;
        LLVMValueRef largest = NULL;
        for (LLVMValueRef inst = LLVMGetFirstInstruction(entry); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if (!LLVMIsAAllocaInst(inst) || !is_static_alloca(inst))
                continue;
            uint64_t bytes = alloca_bytes(inst, layout);
            total += round_to_stack_alignment(bytes);
            if (bytes > largest_bytes && !used_by_gcroot(inst)) {
                largest = inst;
                largest_bytes = bytes;
            }
        }
        if (total < STATIC_LOCALS_WITHOUT_BASE_POINTER || !largest)
            return;
        make_dynamic(pass, largest, largest_bytes);
    }
}

void keep_frame_walkable(polls_pass *pass, LLVMValueRef function)
{
    bool dynamic = has_dynamic_alloca(function);
    bool saves_cfa = target_dynamic_frame_saves_cfa(target_of_module(pass->module));
    if (!dynamic && !saves_cfa)
        return;
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    LLVMValueRef inst = LLVMGetFirstInstruction(entry);
    while (inst) {
        LLVMValueRef next = LLVMGetNextInstruction(inst);
        if (LLVMIsAAllocaInst(inst) && is_static_alloca(inst) &&
            LLVMGetAlignment(inst) > STACK_ALIGNMENT)
            align_by_hand(pass, inst, layout);
        inst = next;
    }
    if (dynamic && saves_cfa)
        keep_static_locals_small(pass, function, layout);
    add_function_string_attribute(function, "no-realign-stack", "");
}

/* Rebuilds a gc.statepoint call or invoke with (marker, cfa) in front of its
 * deopt operands; everything else (arguments, bundles, attributes) is kept. */
static void add_frame_cfa_operands(polls_pass *pass, LLVMValueRef statepoint, LLVMValueRef cfa)
{
    unsigned bundle_count = LLVMGetNumOperandBundles(statepoint);
    LLVMOperandBundleRef *bundles = xcalloc(bundle_count + 1, sizeof *bundles);
    value_list deopt = {0};
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    VEC_PUSH(deopt, LLVMConstInt(i32, CORRAL_ABI_FRAME_CFA_MARKER, 0));
    VEC_PUSH(deopt, cfa);
    unsigned kept = 0;
    for (unsigned b = 0; b < bundle_count; b++) {
        LLVMOperandBundleRef bundle = LLVMGetOperandBundleAtIndex(statepoint, b);
        size_t length;
        const char *tag = LLVMGetOperandBundleTag(bundle, &length);
        if (length == 5 && memcmp(tag, "deopt", 5) == 0) {
            for (unsigned a = 0; a < LLVMGetNumOperandBundleArgs(bundle); a++)
                VEC_PUSH(deopt, LLVMGetOperandBundleArgAtIndex(bundle, a));
            LLVMDisposeOperandBundle(bundle);
        } else {
            bundles[kept++] = bundle;
        }
    }
    bundles[kept++] = LLVMCreateOperandBundle("deopt", 5, deopt.items, (unsigned)deopt.count);

    unsigned argument_count = LLVMGetNumArgOperands(statepoint);
    LLVMValueRef rebuilt = rebuild_call(pass, statepoint, LLVMGetCalledFunctionType(statepoint),
                                        LLVMGetCalledValue(statepoint), argument_count, bundles,
                                        kept);
    copy_call_properties(statepoint, rebuilt, argument_count);
    LLVMReplaceAllUsesWith(statepoint, rebuilt);
    LLVMInstructionEraseFromParent(statepoint);
    for (unsigned b = 0; b < kept; b++)
        LLVMDisposeOperandBundle(bundles[b]);
    free(bundles);
    VEC_FREE(deopt);
}

static void save_frame_cfa(polls_pass *pass, LLVMValueRef function)
{
    value_list statepoints = {0};
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (is_call_site(inst) && is_gc_statepoint_function(called_function(inst)))
                VEC_PUSH(statepoints, inst);
    if (statepoints.count) {
        LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
        LLVMPositionBuilderBefore(pass->builder,
                                  first_insertion_point(LLVMGetEntryBasicBlock(function)));
        LLVMValueRef cfa = build_intrinsic_call(pass, "llvm.sponentry", ptr, NULL, 0, "corral.cfa");
        for (size_t i = 0; i < statepoints.count; i++)
            add_frame_cfa_operands(pass, statepoints.items[i], cfa);
    }
    VEC_FREE(statepoints);
}

void save_dynamic_frame_cfas(polls_pass *pass)
{
    if (!target_dynamic_frame_saves_cfa(target_of_module(pass->module)))
        return;
    for (size_t i = 0; i < pass->managed_functions.count; i++)
        if (has_dynamic_alloca(pass->managed_functions.items[i]))
            save_frame_cfa(pass, pass->managed_functions.items[i]);
}
