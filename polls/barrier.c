/* barrier.c — the write barrier after every reference store into the heap
 * (option write_barrier; corral/abi.h has the protocol, corral/barrier.h the
 * runtime's side).
 *
 * Stores that get one: `store` of a reference (or a vector or aggregate
 * holding one) into address space 1, or through a raw pointer made from a
 * reference; `atomicrmw xchg` and `cmpxchg` of a reference (normalize.c has
 * turned xchg into i64 of a ptrtoint); `llvm.memcpy`/`llvm.memmove` into
 * address space 1, which may copy references (loop idioms turn copy loops
 * into them), through a range barrier. memset writes no reference but null.
 *
 * Elided, and counted: stores of a constant that is no heap object (null,
 * undef, a global's address; not an inttoptr, which a JIT may use for a pinned object),
 * and stores into an object allocated since the last safepoint — the result
 * of corral_alloc_slow or of the inlined TLAB bump (the cursor load cast to a
 * reference), or a phi of those, with no statepoint or poll on any path
 * from the allocation to the store. A young object needs no remembering;
 * the runtime dirties a large object's cards when it is born (los.c).
 *
 * Runs after poll placement, before polls are inlined and RS4GC: no poll can
 * come between a store and its barrier, and the slow path is gc-leaf, so the
 * store and the card mark are one step for the collector.
 */
#include "cfg.h"
#include "pass.h"

#include "corral/abi.h"

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include <stdlib.h>
#include <string.h>

#define ALLOC_SLOW_NAME "corral_alloc_slow"
#define TLAB_NAME "corral_thread_tlab"
/* Blocks walked back from a store looking for its allocation. */
#define FRESH_SEARCH_BLOCKS 32

typedef struct barrier_state {
    polls_pass *pass;
    LLVMValueRef function;
    LLVMValueRef table;        /* @corral_barrier */
    LLVMValueRef outside_heap; /* the gc-leaf slow path */
    LLVMValueRef range;        /* the gc-leaf range barrier */
    LLVMTypeRef i64, i8, ptr, ref;
    LLVMTargetDataRef layout;
} barrier_state;

/* ---- declarations */

static LLVMValueRef table_declaration(barrier_state *state)
{
    polls_pass *pass = state->pass;
    LLVMValueRef table = LLVMGetNamedGlobal(pass->module, CORRAL_ABI_BARRIER_TABLE);
    if (!table)
        table = LLVMAddGlobal(pass->module, LLVMArrayType2(state->i64, 4), CORRAL_ABI_BARRIER_TABLE);
    /* Like the poll page: hidden means one PC-relative load. */
    if (LLVMIsDeclaration(table))
        LLVMSetVisibility(table, pass->options.poll_page_access == CORRAL_POLL_PAGE_DIRECT
                                     ? LLVMHiddenVisibility
                                     : LLVMDefaultVisibility);
    return table;
}

/* ---- what a store writes, and where */

static int is_safepoint(const polls_pass *pass, LLVMValueRef inst)
{
    if (!is_call_site(inst))
        return 0;
    return call_is_statepoint(pass, inst) || classify_call(pass, inst) == CALL_POLL;
}

/* A raw (address space 0) address made from a reference: an addrspacecast
 * of one, possibly offset. Stores through it write into the heap. */
static int raw_address_into_heap(LLVMValueRef pointer)
{
    return is_raw_cast(strip_address(pointer));
}

/* A constant that cannot be a heap object: null (also all-null vectors and
 * aggregates), undef, poison, a global's address. Not an inttoptr constant:
 * a JIT may embed a pinned object's address. */
static int value_is_constant(LLVMValueRef value)
{
    return LLVMIsNull(value) || LLVMIsUndef(value) || LLVMIsPoison(value) ||
           LLVMIsAGlobalValue(value);
}

/* ---- elision: is the object fresh at the store? */

/* No safepoint in [from, to) of one block (from NULL: the block's start,
 * to NULL: its end). */
static int range_has_no_safepoint(const polls_pass *pass, LLVMBasicBlockRef block,
                                  LLVMValueRef from, LLVMValueRef to)
{
    for (LLVMValueRef inst = from ? from : LLVMGetFirstInstruction(block); inst && inst != to;
         inst = LLVMGetNextInstruction(inst))
        if (is_safepoint(pass, inst))
            return 0;
    return 1;
}

static LLVMBasicBlockRef unique_predecessor(const cfg *graph, LLVMBasicBlockRef block)
{
    const index_list *predecessors = &graph->predecessors[cfg_block_index(graph, block)];
    return predecessors->count == 1 ? graph->blocks[predecessors->items[0]] : NULL;
}

/* Every path from definition to `at` (in at_block; NULL: its end) is free
 * of safepoints, following unique predecessors back from at_block. */
static int no_safepoint_between(const polls_pass *pass, const cfg *graph,
                                LLVMValueRef definition, LLVMBasicBlockRef at_block,
                                LLVMValueRef at)
{
    LLVMBasicBlockRef def_block = LLVMGetInstructionParent(definition);
    LLVMValueRef to = at;
    for (int steps = 0; steps < FRESH_SEARCH_BLOCKS; steps++) {
        if (at_block == def_block) {
            /* A definition after `at` in the same block came round a loop. */
            for (LLVMValueRef inst = LLVMGetNextInstruction(definition); inst != to;
                 inst = LLVMGetNextInstruction(inst)) {
                if (!inst)
                    return 0;
                if (is_safepoint(pass, inst))
                    return 0;
            }
            return 1;
        }
        if (!range_has_no_safepoint(pass, at_block, NULL, to))
            return 0;
        at_block = unique_predecessor(graph, at_block);
        if (!at_block)
            return 0;
        to = NULL;
    }
    return 0;
}

/* The inlined fast path's object: a reference made (normalize.c: ptrtoint +
 * inttoptr) from a load of a cursor in corral_thread_tlab: the TLAB's, its
 * first word, or a headerless type's (corral_tlab.typed[i].cursor, an
 * address computed from corral_thread_tlab). Its other words are limits and
 * types, never made into references. */
static int is_tlab_bump(LLVMValueRef value)
{
    if (!LLVMIsAIntToPtrInst(value))
        return 0;
    LLVMValueRef address = LLVMGetOperand(value, 0);
    if (!LLVMIsAPtrToIntInst(address))
        return 0;
    LLVMValueRef cursor = LLVMGetOperand(address, 0);
    if (!LLVMIsALoadInst(cursor))
        return 0;
    LLVMValueRef tlab = LLVMGetOperand(cursor, 0);
    while (LLVMIsAGetElementPtrInst(tlab) ||
           (LLVMIsAConstantExpr(tlab) && LLVMGetConstOpcode(tlab) == LLVMGetElementPtr))
        tlab = LLVMGetOperand(tlab, 0);
    if (LLVMIsACallInst(tlab)) { /* llvm.threadlocal.address(@corral_thread_tlab) */
        LLVMValueRef callee = called_function(tlab);
        if (!callee || strncmp(value_name(callee), "llvm.threadlocal.address", 24) != 0)
            return 0;
        tlab = LLVMGetOperand(tlab, 0);
    }
    return LLVMIsAGlobalVariable(tlab) && strcmp(value_name(tlab), TLAB_NAME) == 0;
}

static int is_allocation_call(LLVMValueRef value)
{
    if (!LLVMIsACallInst(value))
        return 0;
    LLVMValueRef callee = called_function(value);
    return callee && strcmp(value_name(callee), ALLOC_SLOW_NAME) == 0;
}

/* object is an allocation with no safepoint between it and `at` (in
 * at_block; NULL: the block's end). Phis recurse into their incoming blocks. */
static int fresh_at(const polls_pass *pass, const cfg *graph, LLVMValueRef object,
                    LLVMBasicBlockRef at_block, LLVMValueRef at, int depth)
{
    if (!LLVMIsAInstruction(object) || depth > 4)
        return 0;
    if (LLVMIsAPHINode(object)) {
        unsigned count = LLVMCountIncoming(object);
        for (unsigned i = 0; i < count; i++)
            if (!fresh_at(pass, graph, LLVMGetIncomingValue(object, i),
                          LLVMGetIncomingBlock(object, i), NULL, depth + 1))
                return 0;
    } else if (!is_allocation_call(object) && !is_tlab_bump(object)) {
        return 0;
    }
    return no_safepoint_between(pass, graph, object, at_block, at);
}

/* ---- emitting the barrier */

/* Appended, then moved: a block made by LLVMInsertBasicBlock keeps the
 * context's debug-info format, not the function's, and fails verification. */
static LLVMBasicBlockRef new_block_after(barrier_state *state, LLVMBasicBlockRef after,
                                         const char *name)
{
    LLVMBasicBlockRef block = LLVMAppendBasicBlockInContext(state->pass->context, state->function,
                                                            name);
    LLVMMoveBasicBlockAfter(block, after);
    return block;
}

/* Moves everything after `after` into a new block; successors' phis follow. */
static LLVMBasicBlockRef split_after(barrier_state *state, LLVMValueRef after)
{
    polls_pass *pass = state->pass;
    LLVMBasicBlockRef block = LLVMGetInstructionParent(after);
    LLVMBasicBlockRef rest = new_block_after(state, block, "corral.barrier.done");
    LLVMPositionBuilderAtEnd(pass->builder, rest);
    /* The builder would give moved instructions and rebuilt phis its own
     * location (perhaps another function's): none, and keep each one's. */
    LLVMSetCurrentDebugLocation2(pass->builder, NULL);
    for (LLVMValueRef inst = LLVMGetNextInstruction(after); inst;) {
        LLVMValueRef next = LLVMGetNextInstruction(inst);
        char *name = xstrdup(value_name(inst));
        LLVMMetadataRef location = LLVMInstructionGetDebugLoc(inst);
        LLVMInstructionRemoveFromParent(inst);
        LLVMInsertIntoBuilderWithName(pass->builder, inst, name);
        LLVMInstructionSetDebugLoc(inst, location);
        free(name);
        inst = next;
    }
    LLVMValueRef terminator = LLVMGetBasicBlockTerminator(rest);
    unsigned count = terminator ? LLVMGetNumSuccessors(terminator) : 0;
    for (unsigned i = 0; i < count; i++) {
        LLVMBasicBlockRef successor = LLVMGetSuccessor(terminator, i);
        for (LLVMValueRef phi = LLVMGetFirstInstruction(successor); phi && LLVMIsAPHINode(phi);) {
            LLVMValueRef next = LLVMGetNextInstruction(phi);
            unsigned incoming = LLVMCountIncoming(phi);
            for (unsigned k = 0; k < incoming; k++)
                if (LLVMGetIncomingBlock(phi, k) == block) {
                    phi_replace_incoming_block(pass, phi, block, rest);
                    break;
                }
            phi = next;
        }
    }
    return rest;
}

static LLVMValueRef table_word(barrier_state *state, unsigned offset, LLVMTypeRef type,
                               const char *name)
{
    LLVMBuilderRef builder = state->pass->builder;
    LLVMValueRef index = LLVMConstInt(state->i64, offset, 0);
    LLVMValueRef address = offset ? LLVMBuildGEP2(builder, state->i8, state->table, &index, 1, "")
                                  : state->table;
    return LLVMBuildLoad2(builder, type, address, name);
}

typedef enum store_kind { NOT_A_REFERENCE_STORE, STORE_FIELD, STORE_RANGE } store_kind;
static store_kind classify_store(LLVMValueRef inst, LLVMValueRef *field, LLVMValueRef *value);

/* The card barrier right after `after`: a reference store, or (when
 * after_is_field) an address computed from a store's field. The split
 * rebuilds phis, so the field is read from `after` once it is done.
 * Returns the block holding what followed `after`. */
static LLVMBasicBlockRef emit_card_barrier(barrier_state *state, LLVMValueRef after,
                                           int after_is_field)
{
    polls_pass *pass = state->pass;
    LLVMBuilderRef builder = pass->builder;
    LLVMContextRef context = pass->context;
    LLVMBasicBlockRef block = LLVMGetInstructionParent(after);
    LLVMMetadataRef location = LLVMInstructionGetDebugLoc(after);
    LLVMBasicBlockRef done = split_after(state, after);
    LLVMValueRef field = after, value;
    if (!after_is_field)
        classify_store(after, &field, &value);
    LLVMValueRef object = object_of_address(field);
    LLVMBasicBlockRef card = new_block_after(state, block, "corral.barrier.card");
    LLVMBasicBlockRef outside = new_block_after(state, card, "corral.barrier.outside");
    LLVMBasicBlockRef slow = new_block_after(state, outside, "corral.barrier.slow");

    LLVMPositionBuilderAtEnd(builder, block);
    LLVMSetCurrentDebugLocation2(builder, location);
    LLVMValueRef base = table_word(state, CORRAL_ABI_BARRIER_HEAP_BASE, state->i64, "barrier.base");
    LLVMValueRef address = LLVMBuildPtrToInt(builder, field, state->i64, "barrier.field");
    LLVMValueRef offset = LLVMBuildSub(builder, address, base, "barrier.offset");
    LLVMValueRef size = table_word(state, CORRAL_ABI_BARRIER_HEAP_SIZE, state->i64, "barrier.size");
    LLVMValueRef in_heap = LLVMBuildICmp(builder, LLVMIntULT, offset, size, "barrier.in_heap");
    LLVMValueRef branch = LLVMBuildCondBr(builder, in_heap, card, outside);
    LLVMSetMetadata(branch, LLVMGetMDKindIDInContext(context, "prof", 4), branch_weights(pass, 2000, 1));

    LLVMPositionBuilderAtEnd(builder, card);
    LLVMValueRef cards = table_word(state, CORRAL_ABI_BARRIER_CARDS, state->ptr, "barrier.cards");
    LLVMValueRef index = LLVMBuildLShr(builder, offset,
                                       LLVMConstInt(state->i64, CORRAL_ABI_BARRIER_CARD_SHIFT, 0),
                                       "barrier.card");
    LLVMValueRef slot = LLVMBuildGEP2(builder, state->i8, cards, &index, 1, "");
    /* Racing writers store the same byte: unordered atomic, a plain mov. */
    LLVMValueRef mark = LLVMBuildStore(builder, LLVMConstInt(state->i8, 1, 0), slot);
    LLVMSetOrdering(mark, LLVMAtomicOrderingUnordered);
    LLVMSetAlignment(mark, 1);
    LLVMBuildBr(builder, done);

    LLVMPositionBuilderAtEnd(builder, outside);
    LLVMValueRef flag = table_word(state, CORRAL_ABI_BARRIER_OUTSIDE_HEAP_FLAG, state->i64,
                                   "barrier.outside_on");
    LLVMValueRef on = LLVMBuildICmp(builder, LLVMIntNE, flag, LLVMConstInt(state->i64, 0, 0), "");
    branch = LLVMBuildCondBr(builder, on, slow, done);
    LLVMSetMetadata(branch, LLVMGetMDKindIDInContext(context, "prof", 4), branch_weights(pass, 1, 2000));

    LLVMPositionBuilderAtEnd(builder, slow);
    LLVMValueRef arguments[2] = {
        object ? object : LLVMConstNull(state->ref),
        LLVMGetPointerAddressSpace(LLVMTypeOf(field)) == GC_ADDRESS_SPACE
            ? field
            : LLVMBuildAddrSpaceCast(builder, field, state->ref, ""),
    };
    LLVMValueRef call = LLVMBuildCall2(builder, LLVMGlobalGetValueType(state->outside_heap),
                                       state->outside_heap, arguments, 2, "");
    add_call_string_attribute(call, "gc-leaf-function", "");
    LLVMBuildBr(builder, done);
    LLVMSetCurrentDebugLocation2(builder, NULL);
    return done;
}

/* memcpy/memmove into the heap: every card of the destination range. */
static void emit_range_barrier(barrier_state *state, LLVMValueRef call)
{
    LLVMBuilderRef builder = state->pass->builder;
    LLVMValueRef next = LLVMGetNextInstruction(call);
    LLVMPositionBuilderBefore(builder, next);
    LLVMSetCurrentDebugLocation2(builder, LLVMInstructionGetDebugLoc(call));
    LLVMValueRef destination = LLVMGetOperand(call, 0);
    LLVMValueRef object = object_of_address(destination);
    LLVMValueRef length = LLVMGetOperand(call, 2);
    if (LLVMTypeOf(length) != state->i64)
        length = LLVMBuildZExt(builder, length, state->i64, "");
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(destination)) != GC_ADDRESS_SPACE)
        destination = LLVMBuildAddrSpaceCast(builder, destination, state->ref, "");
    LLVMValueRef arguments[3] = {object ? object : LLVMConstNull(state->ref), destination, length};
    LLVMValueRef barrier = LLVMBuildCall2(builder, LLVMGlobalGetValueType(state->range),
                                          state->range, arguments, 3, "");
    add_call_string_attribute(barrier, "gc-leaf-function", "");
    LLVMSetCurrentDebugLocation2(builder, NULL);
}

/* ---- which instructions store references into the heap */


static int is_reference_value(LLVMValueRef value)
{
    if (type_contains_gc_pointer(LLVMTypeOf(value)))
        return 1;
    /* normalize.c's xchg: the reference is exchanged as its ptrtoint. */
    return LLVMIsAPtrToIntInst(value) && type_is_gc_pointer(LLVMTypeOf(LLVMGetOperand(value, 0)));
}

static int is_heap_address(LLVMValueRef pointer)
{
    return LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)) == GC_ADDRESS_SPACE ||
           raw_address_into_heap(pointer);
}

/* What inst writes: *field = *value when it is a reference store. */
static store_kind classify_store(LLVMValueRef inst, LLVMValueRef *field, LLVMValueRef *value)
{
    if (LLVMIsAStoreInst(inst)) {
        *value = LLVMGetOperand(inst, 0);
        *field = LLVMGetOperand(inst, 1);
    } else if (LLVMIsAAtomicRMWInst(inst) && LLVMGetAtomicRMWBinOp(inst) == LLVMAtomicRMWBinOpXchg) {
        *field = LLVMGetOperand(inst, 0);
        *value = LLVMGetOperand(inst, 1);
    } else if (LLVMIsAAtomicCmpXchgInst(inst)) {
        *field = LLVMGetOperand(inst, 0);
        *value = LLVMGetOperand(inst, 2);
    } else if (LLVMIsACallInst(inst)) {
        LLVMValueRef callee = called_function(inst);
        const char *name = callee ? value_name(callee) : "";
        if ((strncmp(name, "llvm.memcpy.", 12) == 0 || strncmp(name, "llvm.memmove.", 13) == 0) &&
            is_heap_address(LLVMGetOperand(inst, 0))) {
            *field = LLVMGetOperand(inst, 0);
            *value = NULL;
            return STORE_RANGE;
        }
        return NOT_A_REFERENCE_STORE;
    } else {
        return NOT_A_REFERENCE_STORE;
    }
    return is_reference_value(*value) && is_heap_address(*field) ? STORE_FIELD
                                                                  : NOT_A_REFERENCE_STORE;
}

static int value_is_constant_reference(LLVMValueRef value)
{
    if (LLVMIsAPtrToIntInst(value))
        value = LLVMGetOperand(value, 0);
    return value_is_constant(value);
}

/* Bytes a store writes, so a wide one marks the card of its last word too. */
static uint64_t stored_bytes(barrier_state *state, LLVMValueRef value)
{
    return LLVMABISizeOfType(state->layout, LLVMTypeOf(value));
}

static void barrier_for_store(barrier_state *state, LLVMValueRef inst)
{
    LLVMValueRef field, value;
    classify_store(inst, &field, &value);
    uint64_t bytes = stored_bytes(state, value);
    LLVMBasicBlockRef done = emit_card_barrier(state, inst, 0);
    if (bytes > 8) {
        /* The last word may lie on the next card. */
        classify_store(inst, &field, &value);
        LLVMPositionBuilderBefore(state->pass->builder, LLVMGetFirstInstruction(done));
        LLVMValueRef offset = LLVMConstInt(state->i64, bytes - 8, 0);
        LLVMValueRef last = LLVMBuildGEP2(state->pass->builder, state->i8, field, &offset, 1,
                                          "barrier.last");
        /* A constant field address (inlined from a null object) folds to a
         * constant: no heap field, and no instruction to put a barrier after. */
        if (LLVMIsAInstruction(last))
            emit_card_barrier(state, last, 1);
    }
}

void insert_write_barriers(polls_pass *pass, LLVMValueRef function,
                           corral_polls_function_report *report)
{
    LLVMContextRef context = pass->context;
    if (function_flags(pass, function) & FUNCTION_NO_BARRIER)
        return;
    barrier_state state = {
        .pass = pass,
        .function = function,
        .i64 = LLVMInt64TypeInContext(context),
        .i8 = LLVMInt8TypeInContext(context),
        .ptr = LLVMPointerTypeInContext(context, 0),
        .ref = LLVMPointerTypeInContext(context, GC_ADDRESS_SPACE),
        .layout = LLVMGetModuleDataLayout(pass->module),
    };
    /* First find the stores (emitting splits blocks), then emit. */
    value_list stores = {0};
    cfg graph;
    cfg_build(&graph, function);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            LLVMValueRef field, value;
            store_kind kind = classify_store(inst, &field, &value);
            if (kind == NOT_A_REFERENCE_STORE)
                continue;
            if (kind == STORE_FIELD && value_is_constant_reference(value)) {
                report->barriers_elided++;
                continue;
            }
            /* A phi of allocations is an object start too (fresh_at checks). */
            LLVMValueRef base = strip_address(field);
            if (type_is_gc_pointer(LLVMTypeOf(base)) &&
                fresh_at(pass, &graph, base, block, inst, 0)) {
                report->barriers_elided++;
                continue;
            }
            VEC_PUSH(stores, inst);
        }
    cfg_free(&graph);
    for (size_t i = 0; i < stores.count; i++) {
        LLVMValueRef inst = stores.items[i], field, value;
        if (classify_store(inst, &field, &value) == STORE_RANGE) {
            if (!state.range) {
                LLVMTypeRef parameters[3] = {state.ref, state.ref, state.i64};
                state.range = declare_leaf_function(
                    pass, CORRAL_ABI_BARRIER_RANGE,
                    LLVMFunctionType(LLVMVoidTypeInContext(context), parameters, 3, 0));
            }
            emit_range_barrier(&state, inst);
        } else {
            if (!state.table) {
                LLVMTypeRef parameters[2] = {state.ref, state.ref};
                state.table = table_declaration(&state);
                state.outside_heap = declare_leaf_function(
                    pass, CORRAL_ABI_BARRIER_OUTSIDE_HEAP,
                    LLVMFunctionType(LLVMVoidTypeInContext(context), parameters, 2, 0));
            }
            barrier_for_store(&state, inst);
        }
        report->barriers_inserted++;
    }
    free(stores.items);
}
