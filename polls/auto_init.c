/* auto_init.c — clang's pattern initialisation of local references, made null.
 *
 * -ftrivial-auto-var-init=pattern (hardened builds: Chromium, Android, some
 * distributions' defaults) fills each local before the program's first
 * store, so that reading one uninitialised is deterministic and faults. A
 * pointer gets the unmappable word 0xAAAAAAAAAAAAAAAA; an aggregate gets a
 * memset of 0xAA bytes or a copy of a constant holding that word:
 *
 *   store ptr addrspace(1) inttoptr (i64 0xAAAA...AA to ptr addrspace(1)), ptr %x, !annotation !1
 *   call void @llvm.memset.p0.i64(ptr %arr, i8 -86, i64 512, i1 false), !annotation !1
 *   call void @llvm.memcpy.p0.p0.i64(ptr %pair, ptr @__const.f.pair, i64 24, i1 false)
 *   !1 = !{!"auto-init"}
 *
 * A collection that found the word in a frame-root slot, or in a phi live
 * across a poll, took it for a reference: every program built with the flag
 * stopped at its first collection with "a reference 0xaaaaaaaaaaaaaaaa that
 * is neither in the heap nor a large object". Null serves the flag's purpose
 * as well (a load through it faults) and every tag scheme reads word 0 as
 * null or an immediate, so before optimisation the pattern becomes null
 * wherever it is a reference, and an auto-init memset of a local that holds
 * references becomes one of zeroes; stack_roots.c does the same for untyped
 * memory (a char buffer, alloca()'s) the program stores references in.
 */
#include "pass.h"

#include <string.h>

/* clang's pattern for 64-bit pointers (clang/lib/CodeGen/PatternInit.cpp). */
#define POINTER_PATTERN 0xAAAAAAAAAAAAAAAAull
#define POINTER_PATTERN_BYTE 0xAA

/* Whether the instruction carries clang's !annotation !{!"auto-init"}. */
static int is_auto_init(LLVMValueRef instruction)
{
    LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(instruction));
    unsigned kind = LLVMGetMDKindIDInContext(context, "annotation", 10);
    LLVMValueRef node = LLVMGetMetadata(instruction, kind);
    if (!node)
        return 0;
    unsigned count = LLVMGetMDNodeNumOperands(node);
    LLVMValueRef operands[8];
    if (count > sizeof operands / sizeof operands[0])
        return 0;
    LLVMGetMDNodeOperands(node, operands);
    for (unsigned i = 0; i < count; i++) {
        unsigned length = 0;
        const char *text = operands[i] ? LLVMGetMDString(operands[i], &length) : NULL;
        if (text && length == 9 && memcmp(text, "auto-init", 9) == 0)
            return 1;
    }
    return 0;
}

int is_pattern_fill(LLVMValueRef call)
{
    if (!LLVMIsACallInst(call) || !calls_function_prefixed(call, "llvm.memset.") ||
        !is_auto_init(call))
        return 0;
    LLVMValueRef byte = LLVMGetOperand(call, 1);
    return LLVMIsAConstantInt(byte) &&
           (LLVMConstIntGetZExtValue(byte) & 0xff) == POINTER_PATTERN_BYTE;
}

void zero_pattern_fill(LLVMValueRef call)
{
    LLVMSetOperand(call, 1, LLVMConstNull(LLVMTypeOf(LLVMGetOperand(call, 1))));
}

/* A pattern fill of a local whose type holds references. (One of untyped
 * memory the program then stores references in is zeroed by stack_roots.c,
 * which finds those stores after optimisation.) */
static int fills_reference_local(LLVMValueRef call)
{
    LLVMValueRef local = strip_address(LLVMGetOperand(call, 0));
    return LLVMIsAAllocaInst(local) && type_contains_gc_pointer(LLVMGetAllocatedType(local));
}

void null_pattern_initialised_references(polls_pass *pass)
{
    LLVMTypeRef word = LLVMInt64TypeInContext(pass->context);
    LLVMTypeRef reference = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    /* Constants are unique: this is the one clang wrote, wherever it is
     * used (stores, phis, the constants auto-init copies from). */
    LLVMValueRef pattern = LLVMConstIntToPtr(LLVMConstInt(word, POINTER_PATTERN, 0), reference);
    if (LLVMGetFirstUse(pattern))
        LLVMReplaceAllUsesWith(pattern, LLVMConstNull(reference));
    FOR_EACH_INSTRUCTION_IN_MODULE(pass->module, function, block, inst)
        if (is_pattern_fill(inst) && fills_reference_local(inst))
            zero_pattern_fill(inst);
}
