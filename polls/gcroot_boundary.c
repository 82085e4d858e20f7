/* gcroot_boundary.c — references passed between gcroot code and managed code.
 *
 * A gcroot function holds objects as plain ptr in its slots and hands one to
 * managed code (managed C, or its own ptr addrspace(1) arguments and
 * results) with `addrspacecast ptr %p to ptr addrspace(1)` (or an inttoptr).
 * The collector updates the slot, and RS4GC the reference once it exists;
 * nothing updates %p. Left as a cast, optimisation may sink it to a use after
 * a call, or fold it into a later cast back to ptr, so the plain %p stays
 * live across the call instead of the reference; seen once a gcroot function
 * is inlined into its managed caller at -O2 (the caller's reference became
 * %p, recast at each use):
 *
 *   %p = load ptr, ptr %slot                %p = load ptr, ptr %slot
 *   %r = addrspacecast ptr %p to ...  ->    %r = call ptr addrspace(1) @corral.gcroot.reference(ptr %p)
 *   call @f(...)   ; %r live here           call @f(...)   ; %r relocated
 *
 * A slot may also be stored a reference or loaded as one (`store ptr
 * addrspace(1) %r, ptr %slot`, `load ptr addrspace(1), ptr %slot`): those
 * become the plain store or load plus a cast, so both modes see only ptr in
 * their slots and the casts below cover the loads.
 *
 * So, before optimisation, each such cast in a gcroot function becomes a
 * call with a side effect no pass moves or folds; after it, the call is a
 * cast again at the place the frontend wrote it, which normalize.c makes
 * `ptrtoint` + `inttoptr`, a base of its own for RS4GC. The other direction
 * (a reference to a plain ptr) needs nothing: raw_pointers.c recomputes it
 * from the reference at each use.
 */
#include "pass.h"

#include <stdlib.h>
#include <string.h>

#define REFERENCE_FUNCTION_NAME "corral.gcroot.reference"

static LLVMValueRef reference_function(polls_pass *pass)
{
    LLVMValueRef function = LLVMGetNamedFunction(pass->module, REFERENCE_FUNCTION_NAME);
    if (function)
        return function;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMTypeRef reference = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    function = LLVMAddFunction(pass->module, REFERENCE_FUNCTION_NAME,
                               LLVMFunctionType(reference, &ptr, 1, 0));
    /* memory(inaccessiblemem: readwrite): a side effect, so no pass sinks,
     * merges or deletes the call, yet loads and stores still move around it. */
    static const char *const kinds[] = {"nounwind", "willreturn"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        LLVMAddAttributeAtIndex(
            function, LLVMAttributeFunctionIndex,
            LLVMCreateEnumAttribute(pass->context,
                                    LLVMGetEnumAttributeKindForName(kinds[i], strlen(kinds[i])), 0));
    unsigned memory = LLVMGetEnumAttributeKindForName("memory", 6);
    enum { INACCESSIBLE_MEMORY_READ_WRITE = 3u << 2 }; /* llvm::MemoryEffects encoding */
    LLVMAddAttributeAtIndex(function, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(pass->context, memory,
                                                    INACCESSIBLE_MEMORY_READ_WRITE));
    return function;
}

/* An address-space-1 reference made from a plain pointer or an integer. */
static int makes_reference(LLVMValueRef inst)
{
    LLVMOpcode opcode = LLVMGetInstructionOpcode(inst);
    return (opcode == LLVMAddrSpaceCast || opcode == LLVMIntToPtr) &&
           type_is_gc_pointer(LLVMTypeOf(inst)) &&
           !type_contains_gc_pointer(LLVMTypeOf(LLVMGetOperand(inst, 0)));
}

/* A reference stored to or loaded from a gcroot slot: a ptr one plus a cast. */
static void retype_slot_access(polls_pass *pass, LLVMValueRef access)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMPositionBuilderBefore(pass->builder, access);
    LLVMValueRef plain;
    if (LLVMIsAStoreInst(access)) {
        LLVMValueRef cast = LLVMBuildAddrSpaceCast(pass->builder, LLVMGetOperand(access, 0), ptr, "");
        plain = LLVMBuildStore(pass->builder, cast, LLVMGetOperand(access, 1));
    } else {
        plain = LLVMBuildLoad2(pass->builder, ptr, LLVMGetOperand(access, 0), "");
        char *name = xstrdup(value_name(access));
        LLVMValueRef cast = LLVMBuildAddrSpaceCast(pass->builder, plain, LLVMTypeOf(access), name);
        free(name);
        LLVMReplaceAllUsesWith(access, cast);
    }
    LLVMSetVolatile(plain, LLVMGetVolatile(access));
    LLVMSetAlignment(plain, LLVMGetAlignment(access));
    LLVMInstructionEraseFromParent(access);
}

static void retype_slot_accesses(polls_pass *pass, LLVMValueRef function)
{
    value_list calls = {0}, accesses = {0};
    collect_gcroot_calls(function, &calls);
    for (size_t i = 0; i < calls.count; i++) {
        LLVMValueRef slot = LLVMGetOperand(calls.items[i], 0);
        for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
            LLVMValueRef user = LLVMGetUser(use);
            int stores_reference = LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot &&
                                   type_is_gc_pointer(LLVMTypeOf(LLVMGetOperand(user, 0)));
            int loads_reference = LLVMIsALoadInst(user) && type_is_gc_pointer(LLVMTypeOf(user));
            if ((stores_reference || loads_reference) && !value_list_contains(&accesses, user))
                VEC_PUSH(accesses, user);
        }
    }
    for (size_t a = 0; a < accesses.count; a++)
        retype_slot_access(pass, accesses.items[a]);
    free(calls.items);
    free(accesses.items);
}

void make_gcroot_casts_opaque(polls_pass *pass, LLVMValueRef function)
{
    retype_slot_accesses(pass, function);
    value_list casts = {0};
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (makes_reference(inst))
                VEC_PUSH(casts, inst);
    if (casts.count == 0)
        return;
    LLVMValueRef convert = reference_function(pass);
    LLVMTypeRef type = LLVMGlobalGetValueType(convert);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    for (size_t i = 0; i < casts.count; i++) {
        LLVMValueRef cast = casts.items[i];
        LLVMPositionBuilderBefore(pass->builder, cast);
        LLVMValueRef plain = LLVMGetOperand(cast, 0);
        if (LLVMGetInstructionOpcode(cast) == LLVMIntToPtr)
            plain = LLVMBuildIntToPtr(pass->builder, plain, ptr, "");
        else if (LLVMGetPointerAddressSpace(LLVMTypeOf(plain)) != 0)
            plain = LLVMBuildAddrSpaceCast(pass->builder, plain, ptr, "");
        char *name = xstrdup(value_name(cast));
        LLVMValueRef call = LLVMBuildCall2(pass->builder, type, convert, &plain, 1, name);
        free(name);
        LLVMReplaceAllUsesWith(cast, call);
        LLVMInstructionEraseFromParent(cast);
    }
    free(casts.items);
}

void lower_gcroot_casts(polls_pass *pass)
{
    LLVMValueRef convert = LLVMGetNamedFunction(pass->module, REFERENCE_FUNCTION_NAME);
    if (!convert)
        return;
    /* A cast again, made a base of its own by normalize_function. */
    LLVMUseRef use;
    while ((use = LLVMGetFirstUse(convert))) {
        LLVMValueRef call = LLVMGetUser(use);
        LLVMPositionBuilderBefore(pass->builder, call);
        char *name = xstrdup(value_name(call));
        LLVMValueRef cast = LLVMBuildAddrSpaceCast(pass->builder, LLVMGetOperand(call, 0),
                                                   LLVMTypeOf(call), name);
        free(name);
        LLVMReplaceAllUsesWith(call, cast);
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDeleteFunction(convert);
}
