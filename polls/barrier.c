/* barrier.c — the write barrier after every reference store into the heap
 * (option write_barrier), and the deletion barrier before every overwrite of
 * the heap that may hit a reference (option satb_barrier); corral/abi.h has
 * both protocols, corral/barrier.h the runtime's side.
 *
 * Stores that get one: `store` of a reference (or a vector or aggregate
 * holding one) into address space 1, or through a raw pointer made from a
 * reference; `atomicrmw xchg` and `cmpxchg` of a reference (normalize.c has
 * turned xchg into i64 of a ptrtoint); `llvm.memcpy`/`llvm.memmove` into
 * address space 1, which may copy references (loop idioms turn copy loops
 * into them), through a range barrier, and so do libc's memcpy, memmove,
 * mempcpy, memccpy and bcopy, which corralc's -fno-builtin leaves as calls
 * (`memcpy((void *)o->items, ...)`). memset writes no reference but null.
 *
 * Elided, and counted: stores of a constant that is no heap object (null,
 * undef, a global's address; not an inttoptr, which a JIT may use for a pinned object),
 * and stores into an object allocated since the last safepoint — the result
 * of corral_alloc_slow or of the inlined TLAB bump (the cursor load cast to a
 * reference), or a phi of those, with no statepoint or poll on any path
 * from the allocation to the store. A young object needs no remembering;
 * the runtime dirties a large object's cards when it is born (los.c).
 *
 * The deletion barrier, for snapshot-at-the-beginning marking, goes before
 * the same instructions and before llvm.memset into the heap (its zeros
 * overwrite references): while the collector marks (the table's satb_active
 * word) the runtime logs the references about to be overwritten. It is
 * elided only for stores into an object allocated since the last safepoint,
 * which holds nothing from the snapshot; a constant store is not elided,
 * since what it overwrites matters, not what it writes.
 *
 * Runs after poll placement, before polls are inlined and RS4GC: no poll can
 * come between a store and its barrier, and the slow path is gc-leaf, so the
 * store and the card mark are one step for the collector; so are the
 * deletion log and the store.
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
    LLVMValueRef satb_log;     /* the gc-leaf deletion barrier's slow path */
    LLVMTypeRef i64, i8, ptr, ref;
    LLVMTargetDataRef layout;
} barrier_state;

/* ---- declarations */

static LLVMValueRef table_declaration(barrier_state *state)
{
    polls_pass *pass = state->pass;
    LLVMValueRef table = LLVMGetNamedGlobal(pass->module, CORRAL_ABI_BARRIER_TABLE);
    if (!table)
        table = LLVMAddGlobal(pass->module, LLVMArrayType2(state->i64, 5), CORRAL_ABI_BARRIER_TABLE);
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
static LLVMBasicBlockRef split_after(barrier_state *state, LLVMValueRef after, const char *name)
{
    polls_pass *pass = state->pass;
    LLVMBasicBlockRef block = LLVMGetInstructionParent(after);
    LLVMBasicBlockRef rest = new_block_after(state, block, name);
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

/* The runtime's barrier calls take the field as a reference. */
static LLVMValueRef as_heap_pointer(barrier_state *state, LLVMValueRef pointer)
{
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)) == GC_ADDRESS_SPACE)
        return pointer;
    return LLVMBuildAddrSpaceCast(state->pass->builder, pointer, state->ref, "");
}

/* A bulk write's length as the i64 the runtime takes. */
static LLVMValueRef length_as_i64(barrier_state *state, LLVMValueRef length)
{
    if (LLVMTypeOf(length) == state->i64)
        return length;
    return LLVMBuildZExt(state->pass->builder, length, state->i64, "");
}

/* STORE_FILL: memset and bzero, which overwrite references (with zeros)
 * but write none; only classify_overwrite returns it. */
typedef enum store_kind { NOT_A_REFERENCE_STORE, STORE_FIELD, STORE_RANGE, STORE_FILL } store_kind;
static store_kind classify_store(LLVMValueRef inst, LLVMValueRef *field, LLVMValueRef *value);
static store_kind classify_overwrite(LLVMValueRef inst, LLVMValueRef *field, LLVMValueRef *value);

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
    LLVMBasicBlockRef done = split_after(state, after, "corral.barrier.done");
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
    LLVMValueRef arguments[2] = {object ? object : LLVMConstNull(state->ref),
                                 as_heap_pointer(state, field)};
    LLVMValueRef call = LLVMBuildCall2(builder, LLVMGlobalGetValueType(state->outside_heap),
                                       state->outside_heap, arguments, 2, "");
    add_call_string_attribute(call, "gc-leaf-function", "");
    LLVMBuildBr(builder, done);
    LLVMSetCurrentDebugLocation2(builder, NULL);
    return done;
}

/* A copy into the heap: every card of the destination range. */
static void emit_range_barrier(barrier_state *state, LLVMValueRef call)
{
    LLVMBuilderRef builder = state->pass->builder;
    LLVMValueRef next = LLVMGetNextInstruction(call);
    LLVMPositionBuilderBefore(builder, next);
    LLVMSetCurrentDebugLocation2(builder, LLVMInstructionGetDebugLoc(call));
    LLVMValueRef destination, bytes;
    bulk_memory_write(call, &destination, &bytes);
    LLVMValueRef object = object_of_address(destination);
    LLVMValueRef length = length_as_i64(state, bytes);
    LLVMValueRef arguments[3] = {object ? object : LLVMConstNull(state->ref),
                                 as_heap_pointer(state, destination), length};
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

/* An address in address space 1, or a raw one that may be made from a
 * reference (a cast of one, possibly offset, or a phi or select that may
 * choose one): stores through it may write into the heap; the barrier's
 * run-time test finds the rest outside it. */
static int is_heap_address(LLVMValueRef pointer)
{
    return LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)) == GC_ADDRESS_SPACE ||
           may_be_raw_from_reference(pointer);
}

/* What inst writes: *field = *value when it is a reference store. */
static store_kind classify_store(LLVMValueRef inst, LLVMValueRef *field, LLVMValueRef *value)
{
    if (LLVMIsAStoreInst(inst)) {
        *value = LLVMGetOperand(inst, 0);
        *field = LLVMGetOperand(inst, 1);
    } else if (is_atomic_exchange(inst)) {
        *field = LLVMGetOperand(inst, 0);
        *value = LLVMGetOperand(inst, 1);
    } else if (LLVMIsAAtomicCmpXchgInst(inst)) {
        *field = LLVMGetOperand(inst, 0);
        *value = LLVMGetOperand(inst, 2);
    } else if (LLVMIsACallInst(inst)) {
        LLVMValueRef destination, length;
        if (bulk_memory_write(inst, &destination, &length) == BULK_COPY &&
            is_heap_address(destination)) {
            *field = destination;
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

/* An atomic exchange of a pointer-sized integer into the heap: clang's form
 * of __atomic_compare_exchange_n and __atomic_exchange_n on a reference
 * field, whose new value is a plain integer when it is null. */
static int is_word_exchange_into_heap(LLVMValueRef inst, LLVMValueRef *field, LLVMValueRef *value)
{
    if (!LLVMIsAAtomicCmpXchgInst(inst) && !is_atomic_exchange(inst))
        return 0;
    *field = LLVMGetOperand(inst, 0);
    *value = LLVMGetOperand(inst, LLVMIsAAtomicCmpXchgInst(inst) ? 2 : 1);
    return type_is_word(LLVMTypeOf(*value)) && is_heap_address(*field);
}

/* What inst overwrites, for the deletion barrier: what classify_store
 * finds, an atomic exchange of a 64-bit word into the heap (the card
 * barrier needs it only when the new word is a reference; the old one may
 * be one whatever the new), and a fill of the heap (memset, bzero; *field
 * its destination). */
static store_kind classify_overwrite(LLVMValueRef inst, LLVMValueRef *field, LLVMValueRef *value)
{
    store_kind kind = classify_store(inst, field, value);
    if (kind == NOT_A_REFERENCE_STORE && is_word_exchange_into_heap(inst, field, value))
        return STORE_FIELD;
    if (kind != NOT_A_REFERENCE_STORE || !LLVMIsACallInst(inst))
        return kind;
    LLVMValueRef destination, length;
    if (bulk_memory_write(inst, &destination, &length) != BULK_FILL ||
        !is_heap_address(destination))
        return NOT_A_REFERENCE_STORE;
    *field = destination;
    *value = NULL;
    return STORE_FILL;
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

/* The deletion barrier right before inst, which classify_overwrite finds:
 *     block:  %satb.active = load table.satb_active; br (!= 0), log, done
 *     log:    call corral_satb_log_range(object or null, field, bytes); br done
 *     done:   inst ...
 * The load goes in first and the block is split after it, so inst may be
 * its block's first instruction. */
static void emit_deletion_barrier(barrier_state *state, LLVMValueRef inst)
{
    polls_pass *pass = state->pass;
    LLVMBuilderRef builder = pass->builder;
    LLVMMetadataRef location = LLVMInstructionGetDebugLoc(inst);
    LLVMBasicBlockRef block = LLVMGetInstructionParent(inst);
    LLVMPositionBuilderBefore(builder, inst);
    LLVMSetCurrentDebugLocation2(builder, location);
    LLVMValueRef active = table_word(state, CORRAL_ABI_BARRIER_SATB_ACTIVE, state->i64,
                                     "satb.active");
    LLVMBasicBlockRef done = split_after(state, active, "corral.satb.done");
    LLVMBasicBlockRef log = new_block_after(state, block, "corral.satb.log");

    LLVMPositionBuilderAtEnd(builder, block);
    LLVMSetCurrentDebugLocation2(builder, location);
    LLVMValueRef on = LLVMBuildICmp(builder, LLVMIntNE, active, LLVMConstInt(state->i64, 0, 0), "");
    LLVMValueRef branch = LLVMBuildCondBr(builder, on, log, done);
    LLVMSetMetadata(branch, LLVMGetMDKindIDInContext(pass->context, "prof", 4),
                    branch_weights(pass, 1, 2000));

    /* Read after the split, which may have rebuilt a phi the field uses. */
    LLVMValueRef field, value;
    store_kind kind = classify_overwrite(inst, &field, &value);
    LLVMPositionBuilderAtEnd(builder, log);
    LLVMValueRef object = object_of_address(field);
    LLVMValueRef bytes, destination, length;
    if (kind == STORE_FIELD) {
        bytes = LLVMConstInt(state->i64, stored_bytes(state, value), 0);
    } else {
        bulk_memory_write(inst, &destination, &length);
        bytes = length_as_i64(state, length);
    }
    LLVMValueRef arguments[3] = {object ? object : LLVMConstNull(state->ref),
                                 as_heap_pointer(state, field), bytes};
    LLVMValueRef call = LLVMBuildCall2(builder, LLVMGlobalGetValueType(state->satb_log),
                                       state->satb_log, arguments, 3, "");
    add_call_string_attribute(call, "gc-leaf-function", "");
    LLVMBuildBr(builder, done);
    LLVMSetCurrentDebugLocation2(builder, NULL);
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

/* The store's object was allocated since the last safepoint. A phi of
 * allocations is an object start too (fresh_at checks). */
static int stores_into_fresh_object(const polls_pass *pass, const cfg *graph, LLVMValueRef field,
                                    LLVMBasicBlockRef block, LLVMValueRef inst)
{
    LLVMValueRef base = strip_address(field);
    return type_is_gc_pointer(LLVMTypeOf(base)) && fresh_at(pass, graph, base, block, inst, 0);
}

/* What needs which barrier; found before any is emitted (emitting splits blocks). */
typedef struct barrier_plan {
    value_list card_stores;     /* a card (or range) barrier after */
    value_list deletion_stores; /* a deletion barrier before */
} barrier_plan;

/* Decides the barriers of one overwrite of the heap; counts the elided. */
static void plan_barriers(polls_pass *pass, const cfg *graph, LLVMBasicBlockRef block,
                          LLVMValueRef inst, barrier_plan *plan,
                          corral_polls_function_report *report)
{
    LLVMValueRef field, value;
    store_kind kind = classify_overwrite(inst, &field, &value);
    if (kind == NOT_A_REFERENCE_STORE)
        return;
    int fresh = stores_into_fresh_object(pass, graph, field, block, inst);
    if (pass->options.satb_barrier) {
        if (fresh)
            report->deletion_barriers_elided++;
        else
            VEC_PUSH(plan->deletion_stores, inst);
    }
    /* memset, and an exchange of a word that is no reference, write none
     * but null: nothing to remember. */
    kind = classify_store(inst, &field, &value);
    if (!pass->options.write_barrier || kind == NOT_A_REFERENCE_STORE)
        return;
    if (fresh || (kind == STORE_FIELD && value_is_constant_reference(value)))
        report->barriers_elided++;
    else
        VEC_PUSH(plan->card_stores, inst);
}

static void emit_deletion_barriers(barrier_state *state, const value_list *stores,
                                   corral_polls_function_report *report)
{
    if (!stores->count)
        return;
    LLVMTypeRef parameters[3] = {state->ref, state->ref, state->i64};
    if (!state->table)
        state->table = table_declaration(state);
    state->satb_log = declare_leaf_function(
        state->pass, CORRAL_ABI_SATB_LOG_RANGE,
        LLVMFunctionType(LLVMVoidTypeInContext(state->pass->context), parameters, 3, 0));
    for (size_t i = 0; i < stores->count; i++) {
        emit_deletion_barrier(state, stores->items[i]);
        report->deletion_barriers_inserted++;
    }
}

static void emit_card_barriers(barrier_state *state, const value_list *stores,
                               corral_polls_function_report *report)
{
    polls_pass *pass = state->pass;
    LLVMContextRef context = pass->context;
    for (size_t i = 0; i < stores->count; i++) {
        LLVMValueRef inst = stores->items[i], field, value;
        if (classify_store(inst, &field, &value) == STORE_RANGE) {
            if (!state->range) {
                LLVMTypeRef parameters[3] = {state->ref, state->ref, state->i64};
                state->range = declare_leaf_function(
                    pass, CORRAL_ABI_BARRIER_RANGE,
                    LLVMFunctionType(LLVMVoidTypeInContext(context), parameters, 3, 0));
            }
            emit_range_barrier(state, inst);
        } else {
            if (!state->outside_heap) {
                LLVMTypeRef parameters[2] = {state->ref, state->ref};
                if (!state->table)
                    state->table = table_declaration(state);
                state->outside_heap = declare_leaf_function(
                    pass, CORRAL_ABI_BARRIER_OUTSIDE_HEAP,
                    LLVMFunctionType(LLVMVoidTypeInContext(context), parameters, 2, 0));
            }
            barrier_for_store(state, inst);
        }
        report->barriers_inserted++;
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
    barrier_plan plan = {0};
    cfg graph;
    cfg_build(&graph, function);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            plan_barriers(pass, &graph, block, inst, &plan, report);
    cfg_free(&graph);
    /* Each barrier finds its store wherever an earlier one's split moved it. */
    emit_deletion_barriers(&state, &plan.deletion_stores, report);
    emit_card_barriers(&state, &plan.card_stores, report);
    free(plan.deletion_stores.items);
    free(plan.card_stores.items);
}
