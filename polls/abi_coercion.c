/* abi_coercion.c — references a C ABI moves as integers through a local.
 *
 * AArch64's procedure call standard passes and returns a composite of up to
 * 16 bytes in general registers, so clang coerces a struct of references
 * to [2 x i64] (or i64 for 8 bytes) and moves it through the struct's stack
 * slot with one integer load or store:
 *
 *   callee:  %v = load [2 x i64], ptr %retval        ; %retval: alloca %struct.pair
 *            ret [2 x i64] %v
 *   caller:  %r = call [2 x i64] @make_pair(...)
 *            store [2 x i64] %r, ptr %p              ; %p: alloca %struct.pair
 *
 * With references non-integral, SROA cannot promote such a slot, and the
 * pass would refuse it as references in memory on the stack. Here each such
 * access becomes one access per 8-byte word, typed as the slot's field
 * there: a reference field is loaded as a reference and turned into its
 * integer (ptrtoint) just before the value leaves, and stored back from
 * one (inttoptr: a new base for RS4GC, just after it arrives):
 *
 *   %f0 = load ptr addrspace(1), ptr %retval         %e0 = extractvalue [2 x i64] %r, 0
 *   %i0 = ptrtoint ptr addrspace(1) %f0 to i64       %r0 = inttoptr i64 %e0 to ptr addrspace(1)
 *   %v0 = insertvalue [2 x i64] poison, i64 %i0, 0   store ptr addrspace(1) %r0, ptr %p
 *   ...                                              ...
 *
 * after which the slot is accessed only by its field types and promotes.
 * The integers live from the ptrtoint to the ret, or from the call to the
 * inttoptr: the return poll goes before the ptrtoints (placement.c), and a
 * safepoint between is refused by the checks (checks.c: integers made from
 * references, through insertvalue and extractvalue too).
 *
 * Until optimisation is over the inttoptr is a call of corral.ref_from_int,
 * which the optimiser cannot see through: it would fold ptrtoint(inttoptr
 * (%e0)) back to %e0 and hand the call's stale integers to a later call.
 * clang's own inttoptr of a coerced one-word struct (`%coerce.val.ip =
 * inttoptr i64 %call`, or of such a parameter) is made opaque the same way.
 */
#include "pass.h"

#include <llvm-c/Target.h>

enum { WORD_BYTES = 8, MAX_COERCED_WORDS = 4 };

/* The inttoptr the optimiser must not see (lowered after it). */
#define REF_FROM_INT "corral.ref_from_int"

static LLVMTypeRef ref_from_int_type(polls_pass *pass)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    return LLVMFunctionType(LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE), &i64, 1,
                            0);
}

static LLVMValueRef ref_from_int(polls_pass *pass)
{
    LLVMValueRef function = LLVMGetNamedFunction(pass->module, REF_FROM_INT);
    if (!function) {
        function = LLVMAddFunction(pass->module, REF_FROM_INT, ref_from_int_type(pass));
        unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
        LLVMAddAttributeAtIndex(function, LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(pass->context, nounwind, 0));
    }
    return function;
}

/* 1 when the word at byte offset of type is a reference, 0 when it holds
 * none, -1 when a reference straddles it or only part of one is there. */
static int reference_at(LLVMTargetDataRef layout, LLVMTypeRef type, uint64_t offset)
{
    if (type_is_gc_pointer(type))
        return offset == 0 ? 1 : -1;
    if (!type_contains_gc_pointer(type))
        return 0;
    LLVMTypeKind kind = LLVMGetTypeKind(type);
    if (kind == LLVMStructTypeKind) {
        unsigned index = LLVMElementAtOffset(layout, type, offset);
        uint64_t start = LLVMOffsetOfElement(layout, type, index);
        return reference_at(layout, LLVMStructGetTypeAtIndex(type, index), offset - start);
    }
    if (kind == LLVMArrayTypeKind) {
        LLVMTypeRef element = LLVMGetElementType(type);
        uint64_t size = LLVMABISizeOfType(layout, element);
        return size ? reference_at(layout, element, offset % size) : -1;
    }
    return -1;
}

/* How many i64 words an integer-coerced value type has: i64 is 1, [N x i64]
 * is N (up to MAX_COERCED_WORDS); 0 for any other type. */
static unsigned coerced_words(LLVMTypeRef type)
{
    LLVMTypeRef word = type;
    unsigned count = 1;
    if (LLVMGetTypeKind(type) == LLVMArrayTypeKind) {
        word = LLVMGetElementType(type);
        count = LLVMGetArrayLength(type);
    }
    return type_is_word(word) && count >= 1 && count <= MAX_COERCED_WORDS ? count : 0;
}

/* The words of a slot a coerced value covers, when at least one is a
 * reference and none is part of one; else 0. kinds[i] = reference_at. */
static unsigned classify_words(LLVMTargetDataRef layout, LLVMValueRef slot, LLVMTypeRef value_type,
                               int kinds[MAX_COERCED_WORDS])
{
    unsigned words = coerced_words(value_type);
    if (!words || !LLVMIsAAllocaInst(slot))
        return 0;
    LLVMTypeRef slot_type = LLVMGetAllocatedType(slot);
    if (LLVMABISizeOfType(layout, slot_type) < (uint64_t)words * WORD_BYTES)
        return 0;
    bool any = false;
    for (unsigned i = 0; i < words; i++) {
        kinds[i] = reference_at(layout, slot_type, (uint64_t)i * WORD_BYTES);
        if (kinds[i] < 0)
            return 0;
        any |= kinds[i] == 1;
    }
    return any ? words : 0;
}

static LLVMValueRef build_ref_from_int(polls_pass *pass, LLVMValueRef word)
{
    return LLVMBuildCall2(pass->builder, ref_from_int_type(pass), ref_from_int(pass), &word, 1,
                          "");
}

static LLVMValueRef word_address(polls_pass *pass, LLVMValueRef slot, unsigned word)
{
    if (word == 0)
        return slot;
    LLVMTypeRef i8 = LLVMInt8TypeInContext(pass->context);
    LLVMValueRef offset = LLVMConstInt(LLVMInt64TypeInContext(pass->context),
                                       (uint64_t)word * WORD_BYTES, 0);
    return LLVMBuildInBoundsGEP2(pass->builder, i8, slot, &offset, 1, "");
}

/* load T, ptr %slot  ->  a load per word, references through ptrtoint. */
static void split_load(polls_pass *pass, LLVMValueRef load, unsigned words, const int *kinds)
{
    LLVMTypeRef type = LLVMTypeOf(load);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMTypeRef reference = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    LLVMValueRef slot = LLVMGetOperand(load, 0);
    LLVMPositionBuilderBefore(pass->builder, load);
    LLVMValueRef value = LLVMGetPoison(type);
    for (unsigned i = 0; i < words; i++) {
        LLVMValueRef address = word_address(pass, slot, i);
        LLVMValueRef word =
            kinds[i] ? LLVMBuildPtrToInt(pass->builder,
                                         LLVMBuildLoad2(pass->builder, reference, address, ""),
                                         i64, "")
                     : LLVMBuildLoad2(pass->builder, i64, address, "");
        value = LLVMGetTypeKind(type) == LLVMArrayTypeKind
                    ? LLVMBuildInsertValue(pass->builder, value, word, i, "")
                    : word;
    }
    replace_instruction(load, value);
}

/* store T %v, ptr %slot  ->  a store per word, references through
 * corral.ref_from_int. */
static void split_store(polls_pass *pass, LLVMValueRef store, unsigned words, const int *kinds)
{
    LLVMValueRef value = LLVMGetOperand(store, 0);
    LLVMValueRef slot = LLVMGetOperand(store, 1);
    LLVMPositionBuilderBefore(pass->builder, store);
    for (unsigned i = 0; i < words; i++) {
        LLVMValueRef word = LLVMGetTypeKind(LLVMTypeOf(value)) == LLVMArrayTypeKind
                                ? LLVMBuildExtractValue(pass->builder, value, i, "")
                                : value;
        if (kinds[i])
            word = build_ref_from_int(pass, word);
        LLVMBuildStore(pass->builder, word, word_address(pass, slot, i));
    }
    LLVMInstructionEraseFromParent(store);
}

/* An integer as it arrives from a call or a parameter (a coerced struct). */
static int is_arriving_integer(LLVMValueRef value)
{
    if (LLVMIsAExtractValueInst(value))
        value = LLVMGetOperand(value, 0);
    return LLVMIsAArgument(value) || (LLVMIsAInstruction(value) && is_call_site(value));
}

static int is_coerced_inttoptr(LLVMValueRef inst)
{
    return LLVMIsAIntToPtrInst(inst) && type_is_gc_pointer(LLVMTypeOf(inst)) &&
           is_arriving_integer(LLVMGetOperand(inst, 0));
}

static void make_opaque(polls_pass *pass, LLVMValueRef inttoptr)
{
    LLVMPositionBuilderBefore(pass->builder, inttoptr);
    replace_instruction(inttoptr, build_ref_from_int(pass, LLVMGetOperand(inttoptr, 0)));
}

static void split_accesses(polls_pass *pass, LLVMValueRef function, LLVMTargetDataRef layout)
{
    value_list accesses = {0};
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (((LLVMIsALoadInst(inst) || LLVMIsAStoreInst(inst)) && !LLVMGetVolatile(inst)) ||
                is_coerced_inttoptr(inst))
                VEC_PUSH(accesses, inst);
    for (size_t i = 0; i < accesses.count; i++) {
        LLVMValueRef access = accesses.items[i];
        int kinds[MAX_COERCED_WORDS];
        if (LLVMIsAIntToPtrInst(access)) {
            make_opaque(pass, access);
        } else if (LLVMIsALoadInst(access)) {
            unsigned words = classify_words(layout, LLVMGetOperand(access, 0),
                                            LLVMTypeOf(access), kinds);
            if (words)
                split_load(pass, access, words, kinds);
        } else {
            LLVMValueRef value = LLVMGetOperand(access, 0);
            unsigned words = classify_words(layout, LLVMGetOperand(access, 1),
                                            LLVMTypeOf(value), kinds);
            if (words)
                split_store(pass, access, words, kinds);
        }
    }
    VEC_FREE(accesses);
}

void split_coerced_reference_accesses(polls_pass *pass)
{
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    for (LLVMValueRef function = LLVMGetFirstFunction(pass->module); function;
         function = LLVMGetNextFunction(function))
        if (!LLVMIsDeclaration(function))
            split_accesses(pass, function, layout);
}

int is_ref_from_int_call(LLVMValueRef inst)
{
    return is_call_to(inst, REF_FROM_INT);
}

void lower_ref_from_int_calls(polls_pass *pass)
{
    LLVMValueRef function = LLVMGetNamedFunction(pass->module, REF_FROM_INT);
    if (!function)
        return;
    LLVMTypeRef reference = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    LLVMUseRef use;
    while ((use = LLVMGetFirstUse(function))) {
        LLVMValueRef call = LLVMGetUser(use);
        LLVMPositionBuilderBefore(pass->builder, call);
        replace_instruction(call, LLVMBuildIntToPtr(pass->builder, LLVMGetOperand(call, 0), reference, ""));
    }
    LLVMDeleteFunction(function);
}
