/* landing_pads.c — references across calls that may unwind, kept in the frame.
 *
 * C built with -fexceptions (Fedora's default flags) runs a variable's
 * __attribute__((cleanup)) also when the stack unwinds (pthread_exit,
 * pthread_cancel), so each call in the variable's scope is an invoke whose
 * unwind edge reaches a landingpad that returns the exception:
 *
 *   invoke void @deep(i32 %sub) to label %next unwind label %lpad
 *   lpad: %pad = landingpad { ptr, i32 } cleanup
 *         call void @drop(ptr %slot) ... resume { ptr, i32 } %pad
 *
 * RS4GC (LLVM 19) relocates every reference live across a statepoint on
 * both edges of an invoke, and anchors the unwind edge's gc.relocates on
 * the landingpad, which must then be a token. With this landingpad the pass
 * made invalid IR ("Call parameter type does not match function
 * signature") wherever a reference was live across such a call, used in
 * the pad or not. So, before the frame is laid out, each such reference
 * leaves SSA for a slot of its own, which stack_roots.c moves into the
 * frame on the frame-root chain, where the collector updates it: stored
 * where the reference is made, loaded where it is used (a block of its own
 * on the call's normal edge holds the loads for phis after it). A phi in the
 * landing pad becomes a slot too (stored before the invoke, which the
 * collector updates across it). A pointer into an object (a
 * getelementptr of a reference) is made again from its base at each use.
 * What is left, a phi of pointers into objects or a vector of references,
 * check_landing_pad_references (checks.c) refuses by name.
 *
 * A pad runs while the stack unwinds, after the thread may have left
 * managed code (pthread_exit drops its managed frames first, threads/
 * attach.c): each pad of a managed function first calls
 * CORRAL_ABI_LANDING_PAD_ENTERED with its stack pointer, which makes the
 * pad's frame and its callers managed frames again. Without it a cleanup
 * holding a reference across an allocation read the old copy in every one
 * of 600 runs under pthread_exit.
 */
#include "liveness.h"
#include "pass.h"

#include "corral/abi.h"

#include <llvm-c/DebugInfo.h>
#include <string.h>

/* Phis and selects nested deeper than this are not taken for bases. */
#define BASE_SEARCH_DEPTH 8

static int counts_value_pad_invoke(LLVMValueRef safepoint, void *context)
{
    (void)context;
    return value_landing_pad(safepoint) != NULL;
}

static int has_value_pad_invoke(LLVMValueRef function)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        if (value_landing_pad(LLVMGetBasicBlockTerminator(block)))
            return 1;
    return 0;
}

/* Whether value is a reference to an object's start (what a frame slot may
 * hold), not a pointer into one: so are phis and selects of such, around a
 * loop too (visiting: those on the way, taken to be). */
static int is_base_on_every_path(LLVMValueRef value, ptr_table *visiting, int depth)
{
    /* Constants (null, undef on a path that does not allocate) move nowhere. */
    if (LLVMIsAConstant(value) || LLVMIsAArgument(value) || LLVMIsALoadInst(value) ||
        LLVMIsACallInst(value) || LLVMIsAInvokeInst(value) || LLVMIsAIntToPtrInst(value) ||
        LLVMIsAExtractValueInst(value) || LLVMIsAAddrSpaceCastInst(value))
        return 1;
    unsigned count = chosen_value_count(value);
    if (depth >= BASE_SEARCH_DEPTH || count == 0)
        return 0;
    if (ptr_table_contains(visiting, value))
        return 1;
    ptr_table_put(visiting, value, 1);
    for (unsigned i = 0; i < count; i++)
        if (!is_base_on_every_path(chosen_value(value, i), visiting, depth + 1))
            return 0;
    return 1;
}

static int is_base_reference(LLVMValueRef value)
{
    ptr_table visiting;
    ptr_table_init(&visiting);
    int base = is_base_on_every_path(value, &visiting, 0);
    ptr_table_free(&visiting);
    return base;
}

static LLVMValueRef live_across_value_pad_invoke(const safepoint_map *map, LLVMValueRef value)
{
    return live_across_safepoint_where(map, value, counts_value_pad_invoke, NULL);
}

/* A scalar reference or pointer into an object (collect_values). */
static int is_reference(LLVMValueRef value)
{
    return type_is_gc_pointer(LLVMTypeOf(value));
}

/* What every path of a pointer into an object starts from, when that is
 * one reference (a loop stepping through an array: p = phi [a->items,
 * p + 1]); NOT_ONE_BASE otherwise; A_CYCLE for a phi already on the way. */
#define NOT_ONE_BASE NULL
#define A_CYCLE ((LLVMValueRef)(uintptr_t)1)

static LLVMValueRef single_base(LLVMValueRef value, ptr_table *visited, int depth)
{
    if (is_base_reference(value))
        return value;
    if (depth >= BASE_SEARCH_DEPTH)
        return NOT_ONE_BASE;
    if (LLVMIsAGetElementPtrInst(value))
        return single_base(LLVMGetOperand(value, 0), visited, depth + 1);
    unsigned count = chosen_value_count(value);
    if (count == 0)
        return NOT_ONE_BASE;
    if (ptr_table_contains(visited, value))
        return A_CYCLE;
    ptr_table_put(visited, value, 1);
    LLVMValueRef base = A_CYCLE;
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef found = single_base(chosen_value(value, i), visited, depth + 1);
        if (found == NOT_ONE_BASE || (found != A_CYCLE && base != A_CYCLE && found != base))
            return NOT_ONE_BASE;
        if (found != A_CYCLE)
            base = found;
    }
    return base;
}

/* A pointer into an object made again from its base and its offset. */
typedef struct rebased {
    LLVMValueRef base, offset;
} rebased;

static LLVMValueRef build_rebased(polls_pass *pass, LLVMValueRef before, const void *context)
{
    const rebased *from = context;
    LLVMPositionBuilderBefore(pass->builder, before);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(pass->context);
    LLVMValueRef offset = from->offset;
    return LLVMBuildGEP2(pass->builder, i8, from->base, &offset, 1, "rebased");
}

/* Whether a phi reads value over the unwind edge of a call that may unwind
 * into a pad: no copy or load before the call could give it. */
static int read_over_pad_invoke_by_phi(LLVMValueRef value)
{
    for (LLVMUseRef use = LLVMGetFirstUse(value); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (!LLVMIsAPHINode(user))
            continue;
        for (unsigned i = 0; i < LLVMCountIncoming(user); i++)
            if (LLVMGetIncomingValue(user, i) == value &&
                value_landing_pad(LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(user, i))))
                return 1;
    }
    return 0;
}

/* Each pointer into an object live across such a call, with one base, is
 * kept as its offset from the base (an integer, which the call cannot make
 * stale) and made again from the base at each use; the base then crosses
 * the call instead. Returns whether anything changed. */
static int rebase_interior_pointers(polls_pass *pass, LLVMValueRef function)
{
    safepoint_map map;
    safepoint_map_build(&map, pass, function);
    value_list references = {0}, users = {0};
    collect_values(function, is_reference, &references);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    int changed = 0;
    for (size_t r = 0; r < references.count; r++) {
        LLVMValueRef pointer = references.items[r];
        if (is_base_reference(pointer) || !live_across_value_pad_invoke(&map, pointer) ||
            read_over_pad_invoke_by_phi(pointer))
            continue;
        ptr_table visited;
        ptr_table_init(&visited);
        LLVMValueRef base = single_base(pointer, &visited, 0);
        ptr_table_free(&visited);
        if (base == NOT_ONE_BASE || base == A_CYCLE)
            continue;
        users.count = 0;
        collect_instruction_users(pointer, NULL, &users);
        LLVMPositionBuilderBefore(pass->builder, insertion_point_after(pointer));
        LLVMValueRef address = LLVMBuildPtrToInt(pass->builder, pointer, i64, "interior");
        LLVMValueRef start = LLVMBuildPtrToInt(pass->builder, base, i64, "base");
        rebased from = {base, LLVMBuildSub(pass->builder, address, start, "offset")};
        replace_uses_with_copies(pass, pointer, &users, build_rebased, &from);
        changed = 1;
    }
    free(users.items);
    free(references.items);
    safepoint_map_free(&map);
    return changed;
}

/* A block of its own on an invoke's normal edge into phis, so that what a
 * phi takes over it can be loaded there, after the call. */
static void split_normal_edge(polls_pass *pass, LLVMValueRef invoke)
{
    LLVMBasicBlockRef normal = LLVMGetNormalDest(invoke);
    if (!LLVMIsAPHINode(LLVMGetFirstInstruction(normal)))
        return;
    LLVMBasicBlockRef from = LLVMGetInstructionParent(invoke);
    LLVMBasicBlockRef split = LLVMInsertBasicBlockInContext(pass->context, normal, "invoke.split");
    LLVMPositionBuilderAtEnd(pass->builder, split);
    LLVMBuildBr(pass->builder, normal);
    LLVMSetNormalDest(invoke, split);
    for (LLVMValueRef phi = LLVMGetFirstInstruction(normal); phi && LLVMIsAPHINode(phi);) {
        LLVMValueRef next = LLVMGetNextInstruction(phi);
        phi_replace_incoming_block(pass, phi, from, split);
        phi = next;
    }
}

/* A phi in a landing pad taking a value over the unwind edge (which cannot
 * be split; the normal edges into phis are) reads it after the call, where
 * no load before the call can give it: the phi becomes a slot
 * (keep_phi_in_slot). An invoke's own result never comes over its unwind
 * edge, so each incoming value can be stored before its block's end. */
static int takes_value_over_pad_invoke(LLVMValueRef phi)
{
    for (unsigned i = 0; i < LLVMCountIncoming(phi); i++)
        if (value_landing_pad(LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(phi, i))))
            return 1;
    return 0;
}

static LLVMValueRef new_slot(polls_pass *pass, LLVMValueRef function, LLVMValueRef value)
{
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    LLVMPositionBuilderBefore(pass->builder, LLVMGetFirstInstruction(entry));
    char *name = xasprintf("%s.unwind_slot", value_name(value));
    LLVMValueRef slot = LLVMBuildAlloca(pass->builder, LLVMTypeOf(value), name);
    free(name);
    return slot;
}

static LLVMValueRef build_slot_load(polls_pass *pass, LLVMValueRef before, const void *context)
{
    LLVMValueRef slot = (LLVMValueRef)context;
    LLVMPositionBuilderBefore(pass->builder, before);
    return LLVMBuildLoad2(pass->builder, LLVMGetAllocatedType(slot), slot, "");
}

/* Where value is first available after its definition, or NULL: an
 * invoke's result at its normal destination, when that has no other way in. */
static LLVMValueRef store_point(LLVMValueRef value)
{
    if (!LLVMIsAInvokeInst(value))
        return insertion_point_after(value);
    LLVMBasicBlockRef normal = LLVMGetNormalDest(value);
    LLVMValueRef first = LLVMGetFirstInstruction(normal);
    if (LLVMIsAPHINode(first))
        return NULL;
    /* Another edge into it would read the slot before any store. */
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(LLVMGetBasicBlockParent(normal)); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef terminator = LLVMGetBasicBlockTerminator(block);
        for (unsigned s = 0; terminator && s < LLVMGetNumSuccessors(terminator); s++)
            if (LLVMGetSuccessor(terminator, s) == normal && terminator != value)
                return NULL;
    }
    return first_insertion_point(normal);
}

/* Takes value out of SSA: a slot stored where it is made, loaded where it
 * is used. Returns 0 when it cannot be stored. */
static int keep_in_slot(polls_pass *pass, LLVMValueRef function, LLVMValueRef value)
{
    LLVMValueRef at = store_point(value);
    if (!at || read_over_pad_invoke_by_phi(value))
        return 0;
    LLVMValueRef slot = new_slot(pass, function, value);
    LLVMPositionBuilderBefore(pass->builder, at);
    value_list stored = {0}, users = {0};
    VEC_PUSH(stored, LLVMBuildStore(pass->builder, value, slot));
    collect_instruction_users(value, &stored, &users);
    replace_uses_with_copies(pass, value, &users, build_slot_load, slot);
    free(stored.items);
    free(users.items);
    return 1;
}

/* The phi's slot is stored at the end of each incoming block, before the
 * call the collector updates it across, and loaded where the phi was. */
static void keep_phi_in_slot(polls_pass *pass, LLVMValueRef function, LLVMValueRef phi)
{
    LLVMValueRef slot = new_slot(pass, function, phi);
    for (unsigned i = 0; i < LLVMCountIncoming(phi); i++) {
        LLVMPositionBuilderBefore(pass->builder,
                                  LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(phi, i)));
        LLVMBuildStore(pass->builder, LLVMGetIncomingValue(phi, i), slot);
    }
    LLVMPositionBuilderBefore(pass->builder, first_insertion_point(LLVMGetInstructionParent(phi)));
    LLVMValueRef load = LLVMBuildLoad2(pass->builder, LLVMTypeOf(phi), slot, "");
    char *name = xstrdup(value_name(phi));
    LLVMReplaceAllUsesWith(phi, load);
    LLVMInstructionEraseFromParent(phi);
    LLVMSetValueName2(load, name, strlen(name));
    free(name);
}

void enter_landing_pads_through_runtime(polls_pass *pass, LLVMValueRef function)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(pass->context), &ptr, 1, 0);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef pad = block_landing_pad(block);
        if (!pad)
            continue;
        LLVMPositionBuilderBefore(pass->builder, LLVMGetNextInstruction(pad));
        LLVMValueRef stack_pointer =
            build_intrinsic_call(pass, "llvm.stacksave", ptr, NULL, 0, "pad_stack_pointer");
        LLVMValueRef entered = LLVMGetNamedFunction(pass->module, CORRAL_ABI_LANDING_PAD_ENTERED);
        if (!entered)
            entered = LLVMAddFunction(pass->module, CORRAL_ABI_LANDING_PAD_ENTERED, type);
        function_add_flags(pass, entered, FUNCTION_SAFEPOINT);
        LLVMValueRef call = LLVMBuildCall2(pass->builder, type, entered, &stack_pointer, 1, "");
        LLVMInstructionSetDebugLoc(call, LLVMInstructionGetDebugLoc(pad));
    }
}

void keep_references_out_of_landing_pads(polls_pass *pass, LLVMValueRef function)
{
    if (!has_value_pad_invoke(function))
        return;
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        if (value_landing_pad(LLVMGetBasicBlockTerminator(block)))
            split_normal_edge(pass, LLVMGetBasicBlockTerminator(block));
    /* Fields of an aggregate (a compare-exchange's result) are kept one by one. */
    split_live_aggregates(pass, function);
    for (int round = 0; round < BASE_SEARCH_DEPTH && rebase_interior_pointers(pass, function);
         round++)
        ;
    value_list references = {0};
    collect_values(function, is_reference, &references);
    for (size_t r = 0; r < references.count; r++) {
        LLVMValueRef phi = references.items[r];
        if (LLVMIsAPHINode(phi) && takes_value_over_pad_invoke(phi) && is_base_reference(phi)) {
            keep_phi_in_slot(pass, function, phi);
            references.items[r] = NULL;
        }
    }
    safepoint_map map;
    safepoint_map_build(&map, pass, function);
    value_list crossing = {0};
    for (size_t r = 0; r < references.count; r++) {
        LLVMValueRef value = references.items[r];
        if (value && is_base_reference(value) && live_across_value_pad_invoke(&map, value))
            VEC_PUSH(crossing, value);
    }
    safepoint_map_free(&map);
    for (size_t c = 0; c < crossing.count; c++)
        keep_in_slot(pass, function, crossing.items[c]);
    free(crossing.items);
    free(references.items);
}
