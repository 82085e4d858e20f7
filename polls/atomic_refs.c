/* atomic_refs.c — C11 atomics on references, done on references.
 *
 * clang 19 lowers atomic_load, atomic_store, atomic_exchange and
 * atomic_compare_exchange of a pointer to i64 operations, moving the
 * pointer through locals of the pointer's type:
 *
 *   %w = load atomic i64, ptr addrspace(1) %top seq_cst   ; atomic_load
 *   store i64 %w, ptr %atomic-temp                        ; alloca ptr addrspace(1)
 *   %e = load i64, ptr %expected                          ; alloca ptr addrspace(1)
 *   %n = load i64, ptr %.atomictmp                        ; the desired reference
 *   %x = cmpxchg ptr addrspace(1) %top, i64 %e, i64 %n seq_cst seq_cst
 *
 * split_coerced_reference_accesses (abi_coercion.c) has made the locals'
 * integer accesses typed ones, so each word above is a ptrtoint of a
 * reference or goes to corral.ref_from_int. Left so, the optimiser keeps
 * the references as integers: in a compare-exchange loop it hoists
 * `ptrtoint %desired` above the loop and carries the expected value round
 * it as an i64 phi, both across the loop's poll where no stackmap names
 * them (the checks refused such a program; before 2026-11-28 no lock-free
 * push on a reference field compiled at -O1 and above). Here, before
 * optimisation, each such operation is done on the references themselves,
 * which LLVM allows and RS4GC relocates (normalize.c turns an exchange back
 * into i64 just around itself, for RS4GC):
 *
 *   %r = load atomic ptr addrspace(1), ptr addrspace(1) %top seq_cst
 *   %x = cmpxchg ptr addrspace(1) %top, ptr addrspace(1) %E, ptr addrspace(1) %N ...
 *
 * An operation is taken to be on a reference when a word it stores is a
 * ptrtoint of one (a compare-exchange needs both, or null), or, for a load,
 * when what it reads is made a reference. Words used as integers too keep a
 * ptrtoint of the new reference, which the checks judge as before.
 */
#include "pass.h"

/* The reference a word moves: R for `ptrtoint R` of a reference, the null
 * reference for 0 when null_allowed, else NULL. */
static LLVMValueRef reference_in_word(polls_pass *pass, LLVMValueRef word, bool null_allowed)
{
    if (LLVMIsAPtrToIntInst(word) && type_is_gc_pointer(LLVMTypeOf(LLVMGetOperand(word, 0))))
        return LLVMGetOperand(word, 0);
    if (null_allowed && LLVMIsAConstantInt(word) && LLVMConstIntGetZExtValue(word) == 0)
        return LLVMConstNull(LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE));
    return NULL;
}

/* A use that makes the word a reference again: corral.ref_from_int (from a
 * typed local's store) or an inttoptr to a reference. */
static int makes_reference(LLVMValueRef user)
{
    return is_ref_from_int_call(user) ||
           (LLVMIsAIntToPtrInst(user) && type_is_gc_pointer(LLVMTypeOf(user)));
}

static int word_becomes_reference(LLVMValueRef word)
{
    for (LLVMUseRef use = LLVMGetFirstUse(word); use; use = LLVMGetNextUse(use))
        if (makes_reference(LLVMGetUser(use)))
            return 1;
    return 0;
}

/* Every use of the old word reads reference instead: directly where it was
 * made a reference again, through a ptrtoint where it is an integer. */
static void replace_word(polls_pass *pass, LLVMValueRef word, LLVMValueRef reference)
{
    LLVMPositionBuilderBefore(pass->builder, LLVMGetNextInstruction(reference));
    LLVMValueRef integer =
        LLVMBuildPtrToInt(pass->builder, reference, LLVMInt64TypeInContext(pass->context), "");
    LLVMReplaceAllUsesWith(word, integer);
    LLVMUseRef use = LLVMGetFirstUse(integer);
    while (use) {
        LLVMValueRef user = LLVMGetUser(use);
        use = LLVMGetNextUse(use);
        if (makes_reference(user)) {
            LLVMReplaceAllUsesWith(user, reference);
            LLVMInstructionEraseFromParent(user);
        }
    }
    if (!LLVMGetFirstUse(integer))
        LLVMInstructionEraseFromParent(integer);
}

static void copy_atomic_properties(LLVMValueRef from, LLVMValueRef to)
{
    LLVMSetVolatile(to, LLVMGetVolatile(from));
    LLVMSetAlignment(to, LLVMGetAlignment(from));
    LLVMSetAtomicSingleThread(to, LLVMIsAtomicSingleThread(from));
}

static void retype_load(polls_pass *pass, LLVMValueRef load)
{
    if (!word_becomes_reference(load))
        return;
    LLVMPositionBuilderBefore(pass->builder, load);
    LLVMValueRef reference =
        LLVMBuildLoad2(pass->builder, LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE),
                       LLVMGetOperand(load, 0), "");
    LLVMSetOrdering(reference, LLVMGetOrdering(load));
    copy_atomic_properties(load, reference);
    replace_word(pass, load, reference);
    LLVMInstructionEraseFromParent(load);
}

static void retype_store(polls_pass *pass, LLVMValueRef store)
{
    LLVMValueRef reference = reference_in_word(pass, LLVMGetOperand(store, 0), false);
    if (!reference)
        return;
    LLVMPositionBuilderBefore(pass->builder, store);
    LLVMValueRef typed = LLVMBuildStore(pass->builder, reference, LLVMGetOperand(store, 1));
    LLVMSetOrdering(typed, LLVMGetOrdering(store));
    copy_atomic_properties(store, typed);
    LLVMInstructionEraseFromParent(store);
}

static void retype_exchange(polls_pass *pass, LLVMValueRef exchange)
{
    LLVMValueRef incoming = reference_in_word(pass, LLVMGetOperand(exchange, 1),
                                              word_becomes_reference(exchange));
    if (!incoming)
        return;
    LLVMValueRef typed = build_exchange_like(pass, exchange, incoming);
    replace_word(pass, exchange, typed);
    LLVMInstructionEraseFromParent(exchange);
}

/* Only extractvalues read a compare-exchange's pair (clang's form); with
 * any other user it is left as it is. */
static int only_extracted(LLVMValueRef pair)
{
    for (LLVMUseRef use = LLVMGetFirstUse(pair); use; use = LLVMGetNextUse(use))
        if (!LLVMIsAExtractValueInst(LLVMGetUser(use)))
            return 0;
    return 1;
}

static void retype_compare_exchange(polls_pass *pass, LLVMValueRef exchange)
{
    LLVMValueRef expected_word = LLVMGetOperand(exchange, 1);
    LLVMValueRef desired_word = LLVMGetOperand(exchange, 2);
    LLVMValueRef expected = reference_in_word(pass, expected_word, true);
    LLVMValueRef desired = reference_in_word(pass, desired_word, true);
    int any_reference = LLVMIsAPtrToIntInst(expected_word) || LLVMIsAPtrToIntInst(desired_word);
    if (!expected || !desired || !any_reference || !only_extracted(exchange))
        return;
    LLVMPositionBuilderBefore(pass->builder, exchange);
    LLVMValueRef typed = LLVMBuildAtomicCmpXchg(
        pass->builder, LLVMGetOperand(exchange, 0), expected, desired,
        LLVMGetCmpXchgSuccessOrdering(exchange), LLVMGetCmpXchgFailureOrdering(exchange),
        LLVMIsAtomicSingleThread(exchange));
    copy_atomic_properties(exchange, typed);
    LLVMSetWeak(typed, LLVMGetWeak(exchange));
    LLVMValueRef old = LLVMBuildExtractValue(pass->builder, typed, 0, "");
    LLVMValueRef success = LLVMBuildExtractValue(pass->builder, typed, 1, "");
    LLVMUseRef use = LLVMGetFirstUse(exchange);
    while (use) {
        LLVMValueRef extract = LLVMGetUser(use);
        use = LLVMGetNextUse(use);
        if (*LLVMGetIndices(extract) == 1)
            LLVMReplaceAllUsesWith(extract, success);
        else
            replace_word(pass, extract, old);
        LLVMInstructionEraseFromParent(extract);
    }
    LLVMInstructionEraseFromParent(exchange);
}

static void retype_function(polls_pass *pass, LLVMValueRef function)
{
    value_list atomics = {0};
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            int atomic_access = (LLVMIsALoadInst(inst) || LLVMIsAStoreInst(inst)) &&
                                LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic;
            if (atomic_access || is_atomic_exchange(inst) || LLVMIsAAtomicCmpXchgInst(inst))
                VEC_PUSH(atomics, inst);
        }
    for (size_t i = 0; i < atomics.count; i++) {
        LLVMValueRef inst = atomics.items[i];
        if (LLVMIsALoadInst(inst) && type_is_word(LLVMTypeOf(inst)))
            retype_load(pass, inst);
        else if (LLVMIsAStoreInst(inst) && type_is_word(LLVMTypeOf(LLVMGetOperand(inst, 0))))
            retype_store(pass, inst);
        else if (is_atomic_exchange(inst) && type_is_word(LLVMTypeOf(inst)))
            retype_exchange(pass, inst);
        else if (LLVMIsAAtomicCmpXchgInst(inst) && type_is_word(LLVMTypeOf(LLVMGetOperand(inst, 1))))
            retype_compare_exchange(pass, inst);
    }
    VEC_FREE(atomics);
}

void retype_atomic_reference_words(polls_pass *pass)
{
    for (LLVMValueRef function = LLVMGetFirstFunction(pass->module); function;
         function = LLVMGetNextFunction(function))
        if (!LLVMIsDeclaration(function))
            retype_function(pass, function);
}
