/* strip_mine.c — counted loops poll every K iterations instead of every one.
 *
 * PlaceSafepoints drops the poll of a counted loop whose trip count fits in
 * 32 bits, and such a loop can run for seconds. Polling every iteration is
 * safe but costs a load and a branch in the hottest code. Like HotSpot, we
 * cut the loop into chunks of K iterations: the loop's own exit test
 * compares against a chunk limit instead of the bound, so the inner loop
 * keeps exactly its instructions, and the poll runs once per chunk.
 *
 * The shape handled is the one loop rotation and the vectorizer produce
 * (a single latch that tests the incremented induction variable):
 *
 *   P:  ...                                 P:  %lim0 = min(%n, sat(%start + K*S))
 *   H:  %iv = phi [%start, P], [%iv.next, L]   H:  %iv = phi [..., P], [.., L], [%iv.next, POLL]
 *                                              %lim = phi [%lim0, P], [%lim, L], [%lim1, POLL]
 *   L:  %iv.next = add nuw %iv, S           L:  %c' = icmp ne %iv.next, %lim
 *       %c = icmp ne %iv.next, %n              br %c', H, CE                 (strip-mined)
 *       br %c, H, X                         CE: br %c, POLL, X     ; the original test
 *                                           POLL: poll; %lim1 = min(%n, sat(%iv.next + K*S)); br H
 *
 * The test continues while iv.next < n (ult with nuw, slt with nsw) or while
 * iv.next != n (ne with nuw or nsw: the induction variable moves toward n
 * without wrapping, so n and every chunk limit lie on its path). min and
 * the saturating add are unsigned for nuw, signed for nsw. Anything else
 * keeps a poll on every iteration.
 */
#include "cfg.h"
#include "pass.h"

#include <llvm-c/DebugInfo.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct counted_loop {
    LLVMBasicBlockRef preheader, header, latch, exit;
    LLVMValueRef branch;       /* the latch's conditional branch */
    LLVMValueRef compare;      /* its condition */
    LLVMValueRef induction;    /* %iv, a phi in the header */
    LLVMValueRef next;         /* %iv.next = add %iv, step */
    LLVMValueRef bound;        /* %n, loop-invariant */
    int next_is_left;          /* compare operand 0 is %iv.next */
    int is_signed;             /* min and saturation are signed */
    long long step;
} counted_loop;

static int defined_inside(const cfg *graph, const unsigned char *in_loop, LLVMValueRef value)
{
    if (!LLVMIsAInstruction(value))
        return 0;
    LLVMBasicBlockRef block = LLVMGetInstructionParent(value);
    uintptr_t index = 0;
    return ptr_table_get(&graph->index, block, &index) && in_loop[index];
}

/* The predicate under which the loop goes on, with %iv.next on the left. */
static LLVMIntPredicate continue_predicate(const counted_loop *loop)
{
    LLVMIntPredicate predicate = LLVMGetICmpPredicate(loop->compare);
    if (!loop->next_is_left) {
        static const LLVMIntPredicate swapped[] = {
            [LLVMIntEQ] = LLVMIntEQ,   [LLVMIntNE] = LLVMIntNE,   [LLVMIntUGT] = LLVMIntULT,
            [LLVMIntUGE] = LLVMIntULE, [LLVMIntULT] = LLVMIntUGT, [LLVMIntULE] = LLVMIntUGE,
            [LLVMIntSGT] = LLVMIntSLT, [LLVMIntSGE] = LLVMIntSLE, [LLVMIntSLT] = LLVMIntSGT,
            [LLVMIntSLE] = LLVMIntSGE,
        };
        predicate = swapped[predicate];
    }
    if (LLVMGetSuccessor(loop->branch, 0) != loop->header) {
        static const LLVMIntPredicate inverse[] = {
            [LLVMIntEQ] = LLVMIntNE,   [LLVMIntNE] = LLVMIntEQ,   [LLVMIntUGT] = LLVMIntULE,
            [LLVMIntUGE] = LLVMIntULT, [LLVMIntULT] = LLVMIntUGE, [LLVMIntULE] = LLVMIntUGT,
            [LLVMIntSGT] = LLVMIntSLE, [LLVMIntSGE] = LLVMIntSLT, [LLVMIntSLT] = LLVMIntSGE,
            [LLVMIntSLE] = LLVMIntSGT,
        };
        predicate = inverse[predicate];
    }
    return predicate;
}

/* %iv.next = add %iv, S (either order) with S a positive constant. */
static int match_increment(counted_loop *loop, LLVMValueRef next)
{
    if (!LLVMIsAInstruction(next) || LLVMGetInstructionOpcode(next) != LLVMAdd)
        return 0;
    for (unsigned side = 0; side < 2; side++) {
        LLVMValueRef phi = LLVMGetOperand(next, side);
        LLVMValueRef step = LLVMGetOperand(next, 1 - side);
        if (!LLVMIsAPHINode(phi) || LLVMGetInstructionParent(phi) != loop->header ||
            !LLVMIsAConstantInt(step))
            continue;
        long long value = LLVMConstIntGetSExtValue(step);
        if (value <= 0)
            continue;
        loop->induction = phi;
        loop->next = next;
        loop->step = value;
        return 1;
    }
    return 0;
}

/* The phi must take %iv.next from the latch. */
static int induction_closes_loop(const counted_loop *loop)
{
    unsigned count = LLVMCountIncoming(loop->induction);
    for (unsigned i = 0; i < count; i++)
        if (LLVMGetIncomingBlock(loop->induction, i) == loop->latch)
            return LLVMGetIncomingValue(loop->induction, i) == loop->next;
    return 0;
}

static int match_compare(counted_loop *loop, const cfg *graph, const unsigned char *in_loop)
{
    LLVMValueRef compare = LLVMGetCondition(loop->branch);
    if (!LLVMIsAICmpInst(compare))
        return 0;
    loop->compare = compare;
    for (unsigned side = 0; side < 2; side++) {
        if (!match_increment(loop, LLVMGetOperand(compare, side)))
            continue;
        loop->bound = LLVMGetOperand(compare, 1 - side);
        loop->next_is_left = side == 0;
        if (!defined_inside(graph, in_loop, loop->bound) && induction_closes_loop(loop))
            return 1;
    }
    return 0;
}

/* Picks unsigned or signed arithmetic from the predicate and wrap flags. */
static int choose_signedness(counted_loop *loop)
{
    LLVMIntPredicate predicate = continue_predicate(loop);
    int nuw = LLVMGetNUW(loop->next), nsw = LLVMGetNSW(loop->next);
    if (predicate == LLVMIntULT && nuw)
        loop->is_signed = 0;
    else if (predicate == LLVMIntSLT && nsw)
        loop->is_signed = 1;
    else if (predicate == LLVMIntNE && (nuw || nsw))
        loop->is_signed = !nuw;
    else
        return 0;
    return 1;
}

static int chunk_fits(const counted_loop *loop, unsigned interval)
{
    unsigned width = LLVMGetIntTypeWidth(LLVMTypeOf(loop->next));
    if (width < 8 || width > 64)
        return 0;
    unsigned long long limit = width == 64 ? (1ull << 62) : (1ull << (width - 1)) - 1;
    return (unsigned long long)loop->step <= limit / interval;
}

static int match_counted_loop(counted_loop *loop, const cfg *graph, size_t latch, size_t header,
                              unsigned interval)
{
    memset(loop, 0, sizeof *loop);
    loop->latch = graph->blocks[latch];
    loop->header = graph->blocks[header];
    loop->branch = LLVMGetBasicBlockTerminator(loop->latch);
    if (!loop->branch || !LLVMIsABranchInst(loop->branch) || !LLVMIsConditional(loop->branch))
        return 0;
    const index_list *preds = &graph->predecessors[header];
    if (preds->count != 2)
        return 0;
    size_t preheader = preds->items[0] == latch ? preds->items[1] : preds->items[0];
    unsigned char *in_loop = xcalloc(graph->block_count, 1);
    cfg_loop_body(graph, latch, header, in_loop);
    int ok = 0;
    LLVMBasicBlockRef exit = LLVMGetSuccessor(loop->branch, 0) == loop->header
                                 ? LLVMGetSuccessor(loop->branch, 1)
                                 : LLVMGetSuccessor(loop->branch, 0);
    if (!in_loop[preheader] && exit != loop->header &&
        !in_loop[cfg_block_index(graph, exit)]) {
        loop->preheader = graph->blocks[preheader];
        loop->exit = exit;
        ok = match_compare(loop, graph, in_loop) && choose_signedness(loop) &&
             chunk_fits(loop, interval);
    }
    free(in_loop);
    return ok;
}

/* min(bound, from + K*S) without overflow. */
static LLVMValueRef chunk_limit(polls_pass *pass, const counted_loop *loop, LLVMValueRef from,
                                unsigned interval)
{
    LLVMTypeRef type = LLVMTypeOf(loop->next);
    LLVMValueRef chunk = LLVMConstInt(type, (unsigned long long)loop->step * interval, 0);
    const char *add_name = loop->is_signed ? "llvm.sadd.sat" : "llvm.uadd.sat";
    const char *min_name = loop->is_signed ? "llvm.smin" : "llvm.umin";
    unsigned add_id = LLVMLookupIntrinsicID(add_name, strlen(add_name));
    unsigned min_id = LLVMLookupIntrinsicID(min_name, strlen(min_name));
    LLVMValueRef add_args[2] = {from, chunk};
    LLVMValueRef end = LLVMBuildCall2(pass->builder, LLVMIntrinsicGetType(pass->context, add_id, &type, 1),
                                      LLVMGetIntrinsicDeclaration(pass->module, add_id, &type, 1),
                                      add_args, 2, "corral.chunk.end");
    LLVMValueRef min_args[2] = {loop->bound, end};
    return LLVMBuildCall2(pass->builder, LLVMIntrinsicGetType(pass->context, min_id, &type, 1),
                          LLVMGetIntrinsicDeclaration(pass->module, min_id, &type, 1), min_args, 2,
                          "corral.chunk.limit");
}

static void mark_strip_mined(polls_pass *pass, LLVMValueRef branch, unsigned long long interval);

static LLVMValueRef incoming_from(LLVMValueRef phi, LLVMBasicBlockRef block)
{
    unsigned count = LLVMCountIncoming(phi);
    for (unsigned i = 0; i < count; i++)
        if (LLVMGetIncomingBlock(phi, i) == block)
            return LLVMGetIncomingValue(phi, i);
    return NULL;
}

static void rewrite_strip_mined(polls_pass *pass, LLVMValueRef function, counted_loop *loop,
                                unsigned interval)
{
    LLVMContextRef context = pass->context;
    LLVMBuilderRef builder = pass->builder;
    LLVMBasicBlockRef chunk_exit = LLVMAppendBasicBlockInContext(context, function, "corral.chunk.exit");
    LLVMBasicBlockRef poll_block = LLVMAppendBasicBlockInContext(context, function, "corral.chunk.poll");
    LLVMMoveBasicBlockAfter(chunk_exit, loop->latch);
    LLVMMoveBasicBlockAfter(poll_block, chunk_exit);

    /* The first chunk's limit, computed where the loop is entered. */
    LLVMPositionBuilderBefore(builder, LLVMGetBasicBlockTerminator(loop->preheader));
    LLVMValueRef first_limit = chunk_limit(pass, loop, incoming_from(loop->induction, loop->preheader), interval);

    /* Every header phi gets, from the poll block, what it gets from the latch. */
    LLVMPositionBuilder(builder, loop->header, LLVMGetFirstInstruction(loop->header));
    LLVMValueRef limit = LLVMBuildPhi(builder, LLVMTypeOf(loop->next), "corral.limit");
    for (LLVMValueRef phi = LLVMGetFirstInstruction(loop->header); phi && LLVMIsAPHINode(phi);
         phi = LLVMGetNextInstruction(phi)) {
        if (phi == limit)
            continue;
        LLVMValueRef value = incoming_from(phi, loop->latch);
        LLVMAddIncoming(phi, &value, &poll_block, 1);
    }

    /* The latch now tests against the chunk limit and leaves to chunk_exit. */
    LLVMPositionBuilderBefore(builder, loop->branch);
    LLVMValueRef chunk_test = loop->next_is_left
        ? LLVMBuildICmp(builder, LLVMGetICmpPredicate(loop->compare), loop->next, limit, "corral.chunk.test")
        : LLVMBuildICmp(builder, LLVMGetICmpPredicate(loop->compare), limit, loop->next, "corral.chunk.test");
    int header_on_true = LLVMGetSuccessor(loop->branch, 0) == loop->header;
    LLVMSetCondition(loop->branch, chunk_test);
    LLVMSetSuccessor(loop->branch, header_on_true ? 1 : 0, chunk_exit);
    mark_strip_mined(pass, loop->branch, interval);

    /* chunk_exit: the original test decides between the next chunk and the
     * exit; moved there so the inner loop does not compute it. */
    LLVMPositionBuilderAtEnd(builder, chunk_exit);
    if (!LLVMGetFirstUse(loop->compare)) {
        char *name = xstrdup(value_name(loop->compare));
        LLVMInstructionRemoveFromParent(loop->compare);
        LLVMInsertIntoBuilderWithName(builder, loop->compare, name);
        free(name);
    }
    if (header_on_true)
        LLVMBuildCondBr(builder, loop->compare, poll_block, loop->exit);
    else
        LLVMBuildCondBr(builder, loop->compare, loop->exit, poll_block);
    for (LLVMValueRef phi = LLVMGetFirstInstruction(loop->exit); phi && LLVMIsAPHINode(phi);) {
        LLVMValueRef next = LLVMGetNextInstruction(phi);
        if (incoming_from(phi, loop->latch))
            phi_replace_incoming_block(pass, phi, loop->latch, chunk_exit);
        phi = next;
    }

    /* poll_block: poll, next limit, back to the header. */
    LLVMPositionBuilderAtEnd(builder, poll_block);
    LLVMTypeRef poll_type = LLVMGlobalGetValueType(pass->poll_function);
    LLVMValueRef poll = LLVMBuildCall2(builder, poll_type, pass->poll_function, NULL, 0, "");
    LLVMMetadataRef location = LLVMInstructionGetDebugLoc(loop->branch);
    if (location)
        LLVMInstructionSetDebugLoc(poll, location);
    LLVMValueRef next_limit = chunk_limit(pass, loop, loop->next, interval);
    LLVMBuildBr(builder, loop->header);

    LLVMValueRef values[3] = {first_limit, limit, next_limit};
    LLVMBasicBlockRef blocks[3] = {loop->preheader, loop->latch, poll_block};
    LLVMAddIncoming(limit, values, blocks, 3);
}

/* Iterations of a loop whose start and bound are constants (the first
 * iteration always runs in a rotated loop); 0 when not constant. */
static unsigned long long constant_trip_count(const counted_loop *loop)
{
    LLVMValueRef start = incoming_from(loop->induction, loop->preheader);
    if (!start || !LLVMIsAConstantInt(start) || !LLVMIsAConstantInt(loop->bound))
        return 0;
    __int128 first, bound;
    if (loop->is_signed) {
        first = LLVMConstIntGetSExtValue(start);
        bound = LLVMConstIntGetSExtValue(loop->bound);
    } else {
        first = LLVMConstIntGetZExtValue(start);
        bound = LLVMConstIntGetZExtValue(loop->bound);
    }
    __int128 span = bound - first;
    if (span <= loop->step)
        return 1;
    return (unsigned long long)((span + loop->step - 1) / loop->step);
}

/* The verifier and the distance report read the interval from here. */
static void mark_strip_mined(polls_pass *pass, LLVMValueRef branch, unsigned long long interval)
{
    char text[32];
    int length = snprintf(text, sizeof text, "%llu", interval);
    LLVMMetadataRef note = LLVMMDStringInContext2(pass->context, text, (size_t)length);
    LLVMSetMetadata(branch, pass->strip_mined_kind,
                    LLVMMetadataAsValue(pass->context, LLVMMDNodeInContext2(pass->context, &note, 1)));
}

int strip_mine_loop(polls_pass *pass, LLVMValueRef function, LLVMBasicBlockRef latch,
                    LLVMBasicBlockRef header)
{
    unsigned interval = pass->options.loop_poll_interval;
    cfg graph;
    cfg_build(&graph, function);
    counted_loop loop;
    int matched = match_counted_loop(&loop, &graph, cfg_block_index(&graph, latch),
                                     cfg_block_index(&graph, header), interval);
    cfg_free(&graph);
    if (!matched)
        return 0;
    /* A loop of at most K iterations is one chunk: it needs no poll. */
    unsigned long long trips = constant_trip_count(&loop);
    if (trips > 0 && trips <= interval) {
        mark_strip_mined(pass, loop.branch, trips);
        return 1;
    }
    rewrite_strip_mined(pass, function, &loop, interval);
    return 1;
}
