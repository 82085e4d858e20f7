/* gcroot_promoted.c — gcroot functions in promoted mode (--gcroot=promoted).
 *
 * Instead of a shadow-stack frame, each @llvm.gcroot slot becomes SSA
 * references that RS4GC relocates, so roots live in stackmaps and a call
 * costs no push or pop. Until here (after poll placement) the gcroot calls
 * stay, and with them the slots' escape: optimisation reloads a root after
 * every call and at every loop fence, as the frontend's contract says.
 * Then, for each safepoint (call or poll) and each slot a load may read
 * after it (slot_liveness: a dead root would keep its object alive):
 *
 *   %r = load ptr, ptr %slot                 ; the root before the call
 *   %a = ptrtoint ptr %r to i64
 *   %ref = inttoptr i64 %a to ptr addrspace(1)  ; a base of its own for RS4GC
 *   call @f()                                ; %ref relocated here
 *   %b = ptrtoint ptr addrspace(1) %ref to i64
 *   %p = inttoptr i64 %b to ptr
 *   store ptr %p, ptr %slot                  ; the root after the call
 *
 * (an addrspacecast from ptr to ptr addrspace(1) would make RS4GC assert),
 * the gcroot calls become null stores, and mem2reg turns the slots into SSA
 * values (dce then drops what is left unused), so RS4GC records live roots
 * only. A pointer loaded from a slot is then an
 * integer made from a reference: the checks still reject it when it is live
 * across a safepoint (a frontend that kept it in a register across a call),
 * where shadow-stack mode could not tell.
 *
 * A function whose roots cannot all be promoted (roots_promotable: a slot
 * whose address is used otherwise, or a root live across an invoke, which
 * RS4GC cannot relocate into a landingpad that returns a value) gets a
 * shadow-stack frame instead (lower_gcroot_slots_to_frame).
 */
#include "liveness.h"
#include "pass.h"

#include "corral/abi.h"

#include <stdlib.h>
#include <string.h>

static int is_call_named(LLVMValueRef inst, const char *prefix)
{
    LLVMValueRef callee = LLVMIsACallInst(inst) ? called_function(inst) : NULL;
    return callee && strncmp(value_name(callee), prefix, strlen(prefix)) == 0;
}

/* mem2reg promotes a slot only if it is an entry-block alloca, just loaded
 * and stored as a ptr. Not so: a slot whose address is passed on or offset,
 * or one in a phi or select (the frontend's own optimisation sinks a load
 * from two slots into one from a phi of them). */
static int slot_promotable(polls_pass *pass, LLVMValueRef function, LLVMValueRef slot)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    if (LLVMGetInstructionParent(slot) != LLVMGetEntryBasicBlock(function))
        return 0;
    for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if ((LLVMIsALoadInst(user) && LLVMTypeOf(user) == ptr && !LLVMGetVolatile(user)) ||
            (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot &&
             LLVMGetOperand(user, 0) != slot &&
             LLVMTypeOf(LLVMGetOperand(user, 0)) == ptr && !LLVMGetVolatile(user)) ||
            is_call_named(user, "llvm.gcroot") || is_call_named(user, "llvm.lifetime."))
            continue;
        return 0;
    }
    return 1;
}

/* The slots of function's gcroot calls, each once, in order. */
static void gcroot_slots(LLVMValueRef function, value_list *slots)
{
    value_list calls = {0};
    collect_gcroot_calls(function, &calls);
    for (size_t i = 0; i < calls.count; i++) {
        LLVMValueRef slot = LLVMGetOperand(calls.items[i], 0);
        if (!value_list_contains(slots, slot))
            VEC_PUSH(*slots, slot);
    }
    free(calls.items);
}

/* The gcroot calls of function (whose slots are promotable) become null
 * stores (a root starts null, also when an inlined callee's call sits in a
 * loop) and are erased. The entry block stores null too, so no path reads
 * an undefined root at a safepoint. */
static void take_slots(polls_pass *pass, LLVMValueRef function, const value_list *slots)
{
    value_list calls = {0};
    collect_gcroot_calls(function, &calls);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    for (size_t i = 0; i < calls.count; i++) {
        LLVMPositionBuilderBefore(pass->builder, calls.items[i]);
        LLVMBuildStore(pass->builder, LLVMConstNull(ptr), LLVMGetOperand(calls.items[i], 0));
        LLVMInstructionEraseFromParent(calls.items[i]);
    }
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    for (size_t s = 0; s < slots->count; s++) {
        LLVMPositionBuilderBefore(pass->builder, first_insertion_point(entry));
        LLVMBuildStore(pass->builder, LLVMConstNull(ptr), slots->items[s]);
    }
    free(calls.items);
}

/* The safepoints of function, in order: polls and future statepoints
 * (calls, invokes and callbrs). */
static void collect_safepoints(polls_pass *pass, LLVMValueRef function, value_list *safepoints)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (is_call_site(inst) &&
                (classify_call(pass, inst) == CALL_POLL || call_is_statepoint(pass, inst)))
                VEC_PUSH(*safepoints, inst);
}

/* Pointers computed from a load of slot (through GEPs, casts, phis and
 * selects), the load first. */
static void values_from_loads(LLVMValueRef slot, value_list *values)
{
    ptr_table seen;
    ptr_table_init(&seen);
    for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use))
        if (LLVMIsALoadInst(LLVMGetUser(use))) {
            VEC_PUSH(*values, LLVMGetUser(use));
            ptr_table_put(&seen, LLVMGetUser(use), 1);
        }
    for (size_t next = 0; next < values->count; next++)
        for (LLVMUseRef use = LLVMGetFirstUse(values->items[next]); use; use = LLVMGetNextUse(use)) {
            LLVMValueRef user = LLVMGetUser(use);
            int carries = LLVMIsAGetElementPtrInst(user) || LLVMIsACastInst(user) ||
                          LLVMIsAPHINode(user) || LLVMIsASelectInst(user);
            if (carries && LLVMGetTypeKind(LLVMTypeOf(user)) == LLVMPointerTypeKind &&
                !ptr_table_contains(&seen, user)) {
                ptr_table_put(&seen, user, 1);
                VEC_PUSH(*values, user);
            }
        }
    ptr_table_free(&seen);
}

/* LLVM's contract: a root is reloaded after every call. Here a pointer
 * held in a register across one would be stale once the object moved, so
 * it is an error (the shadow stack cannot tell; it would be stale there too). */
static void check_reloads(polls_pass *pass, LLVMValueRef function, const value_list *slots)
{
    safepoint_map map;
    safepoint_map_build(&map, pass, function);
    for (size_t s = 0; s < slots->count; s++) {
        value_list values = {0};
        values_from_loads(slots->items[s], &values);
        for (size_t v = 0; v < values.count; v++) {
            LLVMValueRef crossed = live_across_safepoint(&map, values.items[v]);
            if (!crossed)
                continue;
            char *where = describe_safepoint(pass, crossed);
            const char *name = value_name(values.items[v]);
            pass_error(pass, function, values.items[v],
                       "pointer '%s' from gcroot slot '%s' is held in a register across %s: "
                       "the object may move there; load it from the slot again after the call",
                       *name ? name : "(unnamed)", value_name(slots->items[s]), where);
            free(where);
            break;
        }
        free(values.items);
    }
    safepoint_map_free(&map);
}

/* Where a slot's root is needed: RS4GC keeps alive whatever it is given,
 * and a root threaded through every safepoint would stay live to the end
 * of the function through the loads added for the next one (dce cannot
 * break the cycle through a loop's phis). */
typedef struct slot_liveness {
    cfg graph;
    LLVMValueRef slot;
    unsigned char *live_out; /* per block: a load may come before a store */
} slot_liveness;

typedef enum slot_access { ACCESS_NONE, ACCESS_LOAD, ACCESS_STORE } slot_access;

static slot_access access_of(LLVMValueRef inst, LLVMValueRef slot)
{
    if (LLVMIsALoadInst(inst) && LLVMGetOperand(inst, 0) == slot)
        return ACCESS_LOAD;
    /* A gcroot call (while there is one) starts the root as null. */
    if ((LLVMIsAStoreInst(inst) || is_call_named(inst, "llvm.gcroot")) &&
        LLVMGetOperand(inst, LLVMIsAStoreInst(inst) ? 1 : 0) == slot)
        return ACCESS_STORE;
    return ACCESS_NONE;
}

/* The first access to the slot from inst on, in its block. */
static slot_access first_access_from(LLVMValueRef inst, LLVMValueRef slot)
{
    for (; inst; inst = LLVMGetNextInstruction(inst)) {
        slot_access access = access_of(inst, slot);
        if (access != ACCESS_NONE)
            return access;
    }
    return ACCESS_NONE;
}

static void slot_liveness_build(slot_liveness *live, LLVMValueRef function, LLVMValueRef slot)
{
    cfg_build(&live->graph, function);
    live->slot = slot;
    size_t count = live->graph.block_count;
    slot_access *first = xcalloc(count ? count : 1, sizeof *first);
    unsigned char *live_in = xcalloc(count ? count : 1, 1);
    live->live_out = xcalloc(count ? count : 1, 1);
    for (size_t b = 0; b < count; b++) {
        first[b] = first_access_from(LLVMGetFirstInstruction(live->graph.blocks[b]), slot);
        live_in[b] = first[b] == ACCESS_LOAD;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t b = count; b-- > 0;) {
            unsigned char out = 0;
            for (size_t i = 0; i < live->graph.successors[b].count; i++)
                out |= live_in[live->graph.successors[b].items[i]];
            unsigned char in = first[b] == ACCESS_LOAD || (first[b] == ACCESS_NONE && out);
            changed |= out != live->live_out[b] || in != live_in[b];
            live->live_out[b] = out;
            live_in[b] = in;
        }
    }
    free(first);
    free(live_in);
}

static int slot_live_after(const slot_liveness *live, LLVMValueRef safepoint)
{
    slot_access next = first_access_from(LLVMGetNextInstruction(safepoint), live->slot);
    if (next != ACCESS_NONE)
        return next == ACCESS_LOAD;
    return live->live_out[cfg_block_index(&live->graph, LLVMGetInstructionParent(safepoint))];
}

static void slot_liveness_free(slot_liveness *live)
{
    free(live->live_out);
    cfg_free(&live->graph);
}

/* The root in slot as a reference for the safepoint, stored back after it. */
static void thread_root_through(polls_pass *pass, LLVMValueRef slot, LLVMValueRef safepoint)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMTypeRef reference = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    const char *name = value_name(slot);
    LLVMPositionBuilderBefore(pass->builder, safepoint);
    LLVMValueRef root = LLVMBuildLoad2(pass->builder, ptr, slot, name);
    LLVMValueRef address = LLVMBuildPtrToInt(pass->builder, root, i64, "");
    LLVMValueRef before = LLVMBuildIntToPtr(pass->builder, address, reference, name);
    LLVMPositionBuilderBefore(pass->builder, LLVMGetNextInstruction(safepoint));
    LLVMValueRef moved = LLVMBuildPtrToInt(pass->builder, before, i64, "");
    LLVMBuildStore(pass->builder, LLVMBuildIntToPtr(pass->builder, moved, ptr, name), slot);
}

/* RS4GC gives each statepoint in function the gcroot id (corral/abi.h). */
static void mark_statepoint_ids(LLVMValueRef function)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (is_call_site(inst) && !call_has_string_attribute(inst, "gc-leaf-function"))
                add_call_string_attribute(inst, "statepoint-id",
                                          CORRAL_ABI_GCROOT_STATEPOINT_ID_TEXT);
}

/* Can every root of function live in registers? Not when a slot is not
 * promotable, nor when a root is live across a safepoint that is no call:
 * RS4GC would relocate it on an invoke's unwind edge with a gc.relocate of
 * the landing pad, which LLVM 19 types as a token, so a landingpad
 * { ptr, i32 } (any that catches or resumes) makes invalid IR; a callbr
 * would need it on every indirect edge. */
static int roots_promotable(polls_pass *pass, LLVMValueRef function, const value_list *slots,
                            const value_list *safepoints)
{
    int promotable = 1;
    for (size_t s = 0; s < slots->count && promotable; s++) {
        if (!slot_promotable(pass, function, slots->items[s]))
            return 0;
        slot_liveness live;
        slot_liveness_build(&live, function, slots->items[s]);
        for (size_t p = 0; p < safepoints->count && promotable; p++)
            promotable = LLVMIsACallInst(safepoints->items[p]) ||
                         !slot_live_after(&live, safepoints->items[p]);
        slot_liveness_free(&live);
    }
    return promotable;
}

static void promote_function(polls_pass *pass, LLVMValueRef function)
{
    value_list slots = {0}, safepoints = {0};
    gcroot_slots(function, &slots);
    check_reloads(pass, function, &slots);
    collect_safepoints(pass, function, &safepoints);
    /* Otherwise the function keeps its roots in a shadow-stack frame, as in
     * shadow-stack mode: memory the collector updates, which the function
     * reads again after each safepoint (a landing pad too). */
    if (!roots_promotable(pass, function, &slots, &safepoints)) {
        lower_gcroot_slots_to_frame(pass, function);
        free(slots.items);
        free(safepoints.items);
        return;
    }
    take_slots(pass, function, &slots);
    for (size_t s = 0; s < slots.count; s++) {
        /* Decided for every safepoint first: threading adds loads. */
        slot_liveness live;
        slot_liveness_build(&live, function, slots.items[s]);
        value_list needed = {0};
        for (size_t p = 0; p < safepoints.count; p++)
            if (slot_live_after(&live, safepoints.items[p]))
                VEC_PUSH(needed, safepoints.items[p]);
        slot_liveness_free(&live);
        for (size_t p = 0; p < needed.count; p++)
            thread_root_through(pass, slots.items[s], needed.items[p]);
        free(needed.items);
    }
    ptr_table_put(&pass->gcroot_promoted_functions, function, 1);
    free(slots.items);
    free(safepoints.items);
}

void promote_gcroot_slots(polls_pass *pass)
{
    LLVMValueRef gcroot = LLVMGetNamedFunction(pass->module, "llvm.gcroot");
    if (!gcroot)
        return;
    /* Every function holding gcroot calls now, including code inlined from a
     * gcroot function into another. */
    value_list functions = {0};
    ptr_table seen;
    ptr_table_init(&seen);
    for (LLVMUseRef use = LLVMGetFirstUse(gcroot); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef function = LLVMGetBasicBlockParent(LLVMGetInstructionParent(LLVMGetUser(use)));
        if (!ptr_table_contains(&seen, function)) {
            ptr_table_put(&seen, function, 1);
            VEC_PUSH(functions, function);
        }
    }
    ptr_table_free(&seen);
    for (size_t i = 0; i < functions.count; i++)
        promote_function(pass, functions.items[i]);
    free(functions.items);
    if (pass->error_count)
        return;
    LLVMDeleteFunction(gcroot);
    run_pipeline(pass, "function(mem2reg,dce)");
}

void mark_gcroot_statepoints(polls_pass *pass)
{
    for (size_t i = 0; i < pass->managed_functions.count; i++)
        if (ptr_table_contains(&pass->gcroot_promoted_functions, pass->managed_functions.items[i]))
            mark_statepoint_ids(pass->managed_functions.items[i]);
}
