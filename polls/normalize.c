/* normalize.c — rewrites IR that RS4GC would mishandle into equivalent IR
 * it handles.
 *
 * 1. `addrspacecast ptr %raw to ptr addrspace(1)` (how corral_alloc's fast
 *    path turns TLAB memory into a reference): RS4GC looks through the cast
 *    and takes the raw pointer as the base, which is not a GC pointer. As
 *    ptrtoint + inttoptr the result is a base of its own, which it is.
 * 2. `atomicrmw xchg` of a reference: RS4GC has no base rule for it. Done
 *    on i64 with an inttoptr result it is again a base of its own.
 * 3. A reference tagged by a pointer offset (ir_util.c's tag_offset, with
 *    --ref-tags: `getelementptr i8, ptr addrspace(1) %r, i64 1` under V8's
 *    scheme): RS4GC would keep %r live as its base, and where tag 0 marks
 *    immediates the walker reads an untagged base as one. As ptrtoint +
 *    add + inttoptr the tagged word is a base of its own. Done before
 *    optimisation (normalize_tag_offsets), which would otherwise fold a
 *    later constant untagging offset back into %r.
 * 4. Aggregates (small structs returned by value) holding references live
 *    across a safepoint: RS4GC cannot relocate inside them, so they are
 *    split into fields after the definition and rebuilt at each use.
 * 5. A conditional branch on an icmp with no other use: RS4GC first moves
 *    the icmp to just before the branch, from wherever it was, even another
 *    block, which makes its operands live to there. Moved here first
 *    (sink_branch_compares), the checks and the setjmp root slots see the
 *    live ranges RS4GC will: otherwise a reference compared before a setjmp
 *    call and branched on after it was live across the call only after RS4GC
 *    (tests/diff/findings/setjmp_kept_relocated.c).
 */
#include "liveness.h"
#include "pass.h"

#include <stdlib.h>
#include <string.h>

static void normalize_reference_cast(polls_pass *pass, LLVMValueRef cast)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMPositionBuilderBefore(pass->builder, cast);
    LLVMValueRef address = LLVMBuildPtrToInt(pass->builder, LLVMGetOperand(cast, 0), i64, "");
    LLVMValueRef reference = LLVMBuildIntToPtr(pass->builder, address, LLVMTypeOf(cast), "");
    replace_instruction(cast, reference);
}

static void normalize_reference_exchange(polls_pass *pass, LLVMValueRef exchange)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMPositionBuilderBefore(pass->builder, exchange);
    LLVMValueRef incoming = LLVMBuildPtrToInt(pass->builder, LLVMGetOperand(exchange, 1), i64, "");
    LLVMValueRef swapped = build_exchange_like(pass, exchange, incoming);
    LLVMValueRef reference = LLVMBuildIntToPtr(pass->builder, swapped, LLVMTypeOf(exchange), "");
    replace_instruction(exchange, reference);
}

static void normalize_tag_offset(polls_pass *pass, LLVMValueRef gep, unsigned tag)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMPositionBuilderBefore(pass->builder, gep);
    LLVMValueRef address = LLVMBuildPtrToInt(pass->builder, LLVMGetOperand(gep, 0), i64, "");
    LLVMValueRef tagged = LLVMBuildAdd(pass->builder, address, LLVMConstInt(i64, tag, 0), "");
    LLVMValueRef reference = LLVMBuildIntToPtr(pass->builder, tagged, LLVMTypeOf(gep), "");
    replace_instruction(gep, reference);
}

static int is_reference_from_raw_pointer(LLVMValueRef inst)
{
    return LLVMGetInstructionOpcode(inst) == LLVMAddrSpaceCast &&
           type_is_gc_pointer(LLVMTypeOf(inst)) &&
           !type_contains_gc_pointer(LLVMTypeOf(LLVMGetOperand(inst, 0)));
}

static int is_reference_exchange(LLVMValueRef inst)
{
    return is_atomic_exchange(inst) &&
           type_is_gc_pointer(LLVMTypeOf(inst));
}

void normalize_tag_offsets(polls_pass *pass)
{
    for (LLVMValueRef function = LLVMGetFirstFunction(pass->module); function;
         function = LLVMGetNextFunction(function))
        for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
             block = LLVMGetNextBasicBlock(block)) {
            LLVMValueRef inst = LLVMGetFirstInstruction(block);
            while (inst) {
                LLVMValueRef next = LLVMGetNextInstruction(inst);
                unsigned tag = tag_offset(pass, inst);
                if (tag)
                    normalize_tag_offset(pass, inst, tag);
                inst = next;
            }
        }
}

/* An undefined reference (undef or poison: a variable read before any
 * store, as the incoming value of the paths that never set it) becomes
 * null, which refines it. Left undefined, it is whatever a register held:
 * harmless to RS4GC, which treats it as a constant, but not once the pass
 * stores it or a base built from it into a root slot the collector reads
 * (a phi of bases kept across setjmp, over the one dispatch block clang
 * gives every computed goto of a function: tests/diff/findings/
 * computed_goto_setjmp_base.c). */
static void define_undefined_references(LLVMValueRef inst)
{
    int operands = LLVMGetNumOperands(inst);
    for (int i = 0; i < operands; i++) {
        LLVMValueRef operand = LLVMGetOperand(inst, i);
        if (LLVMIsUndef(operand) && type_is_gc_pointer(LLVMTypeOf(operand)))
            LLVMSetOperand(inst, (unsigned)i, LLVMConstNull(LLVMTypeOf(operand)));
    }
}

void normalize_function(polls_pass *pass, LLVMValueRef function)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef inst = LLVMGetFirstInstruction(block);
        while (inst) {
            LLVMValueRef next = LLVMGetNextInstruction(inst);
            define_undefined_references(inst);
            if (is_reference_from_raw_pointer(inst))
                normalize_reference_cast(pass, inst);
            else if (is_reference_exchange(inst))
                normalize_reference_exchange(pass, inst);

            inst = next;
        }
    }
}

/* ---- splitting aggregates */

/* Aggregates bigger than this are left alone (and rejected by the checks). */
#define MAX_SPLIT_FIELDS 64

static unsigned aggregate_field_count(LLVMTypeRef type)
{
    if (LLVMGetTypeKind(type) == LLVMStructTypeKind)
        return LLVMCountStructElementTypes(type);
    return LLVMGetArrayLength2(type) > MAX_SPLIT_FIELDS ? MAX_SPLIT_FIELDS + 1
                                                        : (unsigned)LLVMGetArrayLength2(type);
}

static LLVMTypeRef aggregate_field_type(LLVMTypeRef type, unsigned index)
{
    if (LLVMGetTypeKind(type) == LLVMStructTypeKind)
        return LLVMStructGetTypeAtIndex(type, index);
    return LLVMGetElementType(type);
}

static int is_aggregate(LLVMTypeRef type)
{
    LLVMTypeKind kind = LLVMGetTypeKind(type);
    return kind == LLVMStructTypeKind || kind == LLVMArrayTypeKind;
}

static unsigned leaf_count(LLVMTypeRef type)
{
    if (!is_aggregate(type))
        return 1;
    unsigned fields = aggregate_field_count(type), total = 0;
    for (unsigned i = 0; i < fields && total <= MAX_SPLIT_FIELDS; i++)
        total += leaf_count(aggregate_field_type(type, i));
    return total;
}

/* Extracts every scalar leaf of value, depth first, into leaves. */
static void extract_leaves(polls_pass *pass, LLVMValueRef value, value_list *leaves)
{
    LLVMTypeRef type = LLVMTypeOf(value);
    if (!is_aggregate(type)) {
        VEC_PUSH(*leaves, value);
        return;
    }
    unsigned fields = aggregate_field_count(type);
    for (unsigned i = 0; i < fields; i++)
        extract_leaves(pass, LLVMBuildExtractValue(pass->builder, value, i, ""), leaves);
}

/* Rebuilds a value of type from leaves[*next...], the inverse of extract_leaves. */
static LLVMValueRef rebuild_aggregate(polls_pass *pass, LLVMTypeRef type, LLVMValueRef *leaves,
                                      size_t *next)
{
    if (!is_aggregate(type))
        return leaves[(*next)++];
    LLVMValueRef aggregate = LLVMGetPoison(type);
    unsigned fields = aggregate_field_count(type);
    for (unsigned i = 0; i < fields; i++) {
        LLVMValueRef field = rebuild_aggregate(pass, aggregate_field_type(type, i), leaves, next);
        aggregate = LLVMBuildInsertValue(pass->builder, aggregate, field, i, "");
    }
    return aggregate;
}

/* What replace_uses_with_copies needs to rebuild the aggregate. */
typedef struct aggregate_copy {
    LLVMTypeRef type;
    const value_list *leaves;
} aggregate_copy;

/* A copy rebuilt right before its use from fields RS4GC relocates one by
 * one (a copy_builder). */
static LLVMValueRef rebuild_before(polls_pass *pass, LLVMValueRef before, const void *context)
{
    const aggregate_copy *copy = context;
    size_t next = 0;
    LLVMPositionBuilderBefore(pass->builder, before);
    return rebuild_aggregate(pass, copy->type, copy->leaves->items, &next);
}

static void split_aggregate(polls_pass *pass, LLVMValueRef value)
{
    value_list users = {0}, leaves = {0};
    collect_instruction_users(value, NULL, &users);
    LLVMValueRef after = insertion_point_after(value);
    if (after)
        LLVMPositionBuilderBefore(pass->builder, after);
    else /* a callbr's result */
        LLVMPositionBuilderAtEnd(pass->builder, LLVMGetInstructionParent(value));
    extract_leaves(pass, value, &leaves);
    aggregate_copy copy = {LLVMTypeOf(value), &leaves};
    replace_uses_with_copies(pass, value, &users, rebuild_before, &copy);
    free(users.items);
    free(leaves.items);
}

static int splittable(LLVMValueRef value)
{
    /* An invoke's result is only available in its normal destination. */
    return type_is_gc_aggregate(LLVMTypeOf(value)) && !LLVMIsAInvokeInst(value) &&
           leaf_count(LLVMTypeOf(value)) <= MAX_SPLIT_FIELDS;
}

void split_live_aggregates(polls_pass *pass, LLVMValueRef function)
{
    value_list candidates = {0};
    collect_values(function, splittable, &candidates);
    if (candidates.count == 0) {
        free(candidates.items);
        return;
    }
    safepoint_map map;
    safepoint_map_build(&map, pass, function);
    value_list live = {0};
    for (size_t i = 0; i < candidates.count; i++)
        if (live_across_safepoint(&map, candidates.items[i]))
            VEC_PUSH(live, candidates.items[i]);
    safepoint_map_free(&map);
    for (size_t i = 0; i < live.count; i++)
        split_aggregate(pass, live.items[i]);
    free(candidates.items);
    free(live.items);
}

/* RS4GC's own prepass (RewriteStatepointsForGC.cpp, "make sure the comparison
 * feeding a branch is after any safepoints"), the same test, done earlier. */
void sink_branch_compares(polls_pass *pass, LLVMValueRef function)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef branch = LLVMGetBasicBlockTerminator(block);
        if (!branch || !LLVMIsABranchInst(branch) || !LLVMIsConditional(branch))
            continue;
        LLVMValueRef compare = LLVMGetCondition(branch);
        if (!LLVMIsAICmpInst(compare) || !LLVMGetFirstUse(compare) ||
            LLVMGetNextUse(LLVMGetFirstUse(compare)) || LLVMGetPreviousInstruction(branch) == compare)
            continue;
        char *name = xstrdup(value_name(compare)); /* insertion renames it */
        LLVMInstructionRemoveFromParent(compare);
        LLVMPositionBuilderBefore(pass->builder, branch);
        LLVMInsertIntoBuilderWithName(pass->builder, compare, name);
        free(name);
    }
}
