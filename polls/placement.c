/* placement.c — the poll function and where calls to it go.
 *
 * A poll is first a call of gc.safepoint_poll (so the distance analysis and
 * the checks can see it as one instruction) and is inlined at the end:
 *
 *   %word = load volatile i64, ptr @corral_poll_page
 *   %armed = icmp ne i64 %word, 0
 *   br i1 %armed, label %slow, label %done, !prof {1, 2000}
 * slow:
 *   call void @corral_poll_slow() cold      ; a statepoint after RS4GC
 *
 * Kinds: Entry (first instruction), Loop (before the terminator of each
 * latch, or strip-mined), PreCall (before leaf calls and bulk-memory
 * intrinsics of unknown length), Return (before each ret). Two polls are
 * never placed back to back.
 */
#include "cfg.h"
#include "pass.h"

#include "corral/abi.h"

#include <llvm-c/DebugInfo.h>

#include <stdlib.h>
#include <string.h>

static LLVMValueRef poll_page_declaration(polls_pass *pass)
{
    LLVMValueRef page = LLVMGetNamedGlobal(pass->module, CORRAL_ABI_POLL_PAGE);
    if (!page) {
        LLVMTypeRef type = LLVMArrayType2(LLVMInt64TypeInContext(pass->context), 0);
        page = LLVMAddGlobal(pass->module, type, CORRAL_ABI_POLL_PAGE);
    }
    /* Hidden makes the declaration dso_local: one PC-relative compare. */
    if (LLVMIsDeclaration(page))
        LLVMSetVisibility(page, pass->options.poll_page_access == CORRAL_POLL_PAGE_DIRECT
                                    ? LLVMHiddenVisibility
                                    : LLVMDefaultVisibility);
    return page;
}

static LLVMValueRef poll_slow_declaration(polls_pass *pass)
{
    LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(pass->context), NULL, 0, 0);
    LLVMValueRef slow = LLVMGetNamedFunction(pass->module, CORRAL_ABI_POLL_SLOW);
    if (!slow)
        return LLVMAddFunction(pass->module, CORRAL_ABI_POLL_SLOW, type);
    if (LLVMGlobalGetValueType(slow) != type || !LLVMIsDeclaration(slow)) {
        pass_error(pass, slow, NULL,
                   "the runtime's poll slow path must be declared 'void %s(void)' and not "
                   "defined in managed code",
                   CORRAL_ABI_POLL_SLOW);
        return NULL;
    }
    return slow;
}

static void build_poll_body(polls_pass *pass, LLVMValueRef poll)
{
    LLVMContextRef context = pass->context;
    LLVMBuilderRef builder = pass->builder;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(context, poll, "entry");
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(context, poll, "slow");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(context, poll, "done");

    LLVMPositionBuilderAtEnd(builder, entry);
    LLVMValueRef word = LLVMBuildLoad2(builder, i64, pass->poll_page, "word");
    LLVMSetVolatile(word, 1);
    LLVMSetAlignment(word, 8);
    LLVMValueRef armed = LLVMBuildICmp(builder, LLVMIntNE, word, LLVMConstInt(i64, 0, 0), "armed");
    LLVMValueRef branch = LLVMBuildCondBr(builder, armed, slow, done);
    LLVMSetMetadata(branch, LLVMGetMDKindIDInContext(context, "prof", 4),
                    branch_weights(pass, 1, 2000));

    LLVMPositionBuilderAtEnd(builder, slow);
    LLVMTypeRef slow_type = LLVMFunctionType(LLVMVoidTypeInContext(context), NULL, 0, 0);
    LLVMValueRef call = LLVMBuildCall2(builder, slow_type, pass->poll_slow, NULL, 0, "");
    unsigned cold = LLVMGetEnumAttributeKindForName("cold", 4);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(context, cold, 0));
    LLVMBuildBr(builder, done);

    LLVMPositionBuilderAtEnd(builder, done);
    LLVMBuildRetVoid(builder);
}

void create_poll_function(polls_pass *pass)
{
    pass->poll_page = poll_page_declaration(pass);
    pass->poll_slow = poll_slow_declaration(pass);
    if (!pass->poll_slow)
        return;
    LLVMValueRef existing = LLVMGetNamedFunction(pass->module, POLL_FUNCTION_NAME);
    /* A module may bring its own poll (LLVM's convention); it is used as is. */
    if (existing && !LLVMIsDeclaration(existing)) {
        pass->poll_function = existing;
        return;
    }
    LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(pass->context), NULL, 0, 0);
    LLVMValueRef poll = existing ? existing : LLVMAddFunction(pass->module, POLL_FUNCTION_NAME, type);
    LLVMSetLinkage(poll, LLVMInternalLinkage);
    add_function_string_attribute(poll, "frame-pointer", "all");
    build_poll_body(pass, poll);
    pass->poll_function = poll;
}

/* ---- placing polls */

static int is_poll(const polls_pass *pass, LLVMValueRef inst)
{
    return inst && LLVMIsACallInst(inst) && called_function(inst) == pass->poll_function;
}

static LLVMValueRef previous_counted(LLVMValueRef inst)
{
    LLVMValueRef previous = LLVMGetPreviousInstruction(inst);
    while (previous && !is_counted_instruction(previous))
        previous = LLVMGetPreviousInstruction(previous);
    return previous;
}

/* Inserts a poll before inst, unless one is already right there. */
static int insert_poll_before(polls_pass *pass, LLVMValueRef inst)
{
    if (is_poll(pass, previous_counted(inst)))
        return 0;
    LLVMTypeRef type = LLVMGlobalGetValueType(pass->poll_function);
    LLVMPositionBuilderBefore(pass->builder, inst);
    LLVMValueRef call = LLVMBuildCall2(pass->builder, type, pass->poll_function, NULL, 0, "");
    LLVMMetadataRef location = LLVMInstructionGetDebugLoc(inst);
    if (location)
        LLVMInstructionSetDebugLoc(call, location);
    return 1;
}

static unsigned place_entry_poll(polls_pass *pass, LLVMValueRef function)
{
    uintptr_t entry_code_end = 0;
    LLVMValueRef at = ptr_table_get(&pass->entry_code_ends, function, &entry_code_end)
                          ? LLVMGetNextInstruction((LLVMValueRef)entry_code_end)
                          : first_insertion_point(LLVMGetEntryBasicBlock(function));
    return at ? (unsigned)insert_poll_before(pass, at) : 0;
}

/* Before ret, or before the first ptrtoint of a reference after the block's
 * last safepoint: a value returned as integers made from references (the
 * AArch64 ABI returns a struct of two references as [2 x i64], built with
 * ptrtoint and insertvalue) must be made after the poll, where it is fresh. */
static LLVMValueRef return_poll_point(const polls_pass *pass, LLVMValueRef ret)
{
    /* Before a musttail call: a chain of tail calls never returns otherwise. */
    LLVMValueRef at = function_exit_point(ret);
    for (LLVMValueRef inst = LLVMGetPreviousInstruction(at); inst && !LLVMIsAPHINode(inst);
         inst = LLVMGetPreviousInstruction(inst)) {
        if (is_call_site(inst) && call_is_statepoint(pass, inst))
            break;
        if (LLVMIsAPtrToIntInst(inst) && type_is_gc_pointer(LLVMTypeOf(LLVMGetOperand(inst, 0))))
            at = inst;
    }
    return at;
}

static unsigned place_return_polls(polls_pass *pass, LLVMValueRef function)
{
    unsigned placed = 0;
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef terminator = LLVMGetBasicBlockTerminator(block);
        if (terminator && LLVMGetInstructionOpcode(terminator) == LLVMRet)
            placed += (unsigned)insert_poll_before(pass, return_poll_point(pass, terminator));
    }
    return placed;
}

static int wants_precall_poll(const polls_pass *pass, LLVMValueRef inst)
{
    if (!is_call_site(inst))
        return 0;
    call_kind kind = classify_call(pass, inst);
    return kind == CALL_LEAF || (kind == CALL_INTRINSIC && call_is_long_intrinsic(inst));
}

static unsigned place_precall_polls(polls_pass *pass, LLVMValueRef function)
{
    unsigned placed = 0;
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (wants_precall_poll(pass, inst))
                placed += (unsigned)insert_poll_before(pass, inst);
    return placed;
}

/* One poll per latch; counted loops are strip-mined when the interval > 1. */
static unsigned place_loop_polls(polls_pass *pass, LLVMValueRef function,
                                 corral_polls_function_report *report)
{
    cfg graph;
    cfg_build(&graph, function);
    unsigned placed = 0;
    unsigned char *latch_done = xcalloc(graph.block_count ? graph.block_count : 1, 1);
    for (size_t i = 0; i < graph.retreating.count; i++) {
        cfg_edge edge = graph.retreating.items[i];
        if (latch_done[edge.from])
            continue;
        latch_done[edge.from] = 1;
        LLVMBasicBlockRef latch = graph.blocks[edge.from];
        LLVMBasicBlockRef header = graph.blocks[edge.to];
        if (pass->options.loop_poll_interval > 1 &&
            strip_mine_loop(pass, function, latch, header)) {
            report->loops_strip_mined++;
            placed++;
            continue;
        }
        placed += (unsigned)insert_poll_before(pass, LLVMGetBasicBlockTerminator(latch));
    }
    free(latch_done);
    cfg_free(&graph);
    return placed;
}

void place_polls(polls_pass *pass, LLVMValueRef function, corral_polls_function_report *report)
{
    unsigned flags = function_flags(pass, function);
    if (flags & FUNCTION_NOPOLL) {
        report->nopoll = 1;
        return;
    }
    unsigned kinds = (flags & FUNCTION_POLL_ALL) ? CORRAL_POLL_ALL_KINDS : pass->options.poll_kinds;
    if (kinds & CORRAL_POLL_ENTRY)
        report->polls_inserted += place_entry_poll(pass, function);
    /* A shadow-stack function's loop polls are its fences (shadow_stack.c). */
    if ((kinds & CORRAL_POLL_LOOP) && !is_shadow_stack_function(function))
        report->polls_inserted += place_loop_polls(pass, function, report);
    if (kinds & CORRAL_POLL_PRECALL)
        report->polls_inserted += place_precall_polls(pass, function);
    if (kinds & CORRAL_POLL_RETURN)
        report->polls_inserted += place_return_polls(pass, function);
}

void inline_polls(polls_pass *pass)
{
    LLVMValueRef poll = pass->poll_function;
    if (!poll)
        return;
    unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", strlen("noinline"));
    unsigned alwaysinline = LLVMGetEnumAttributeKindForName("alwaysinline", strlen("alwaysinline"));
    LLVMRemoveEnumAttributeAtIndex(poll, LLVMAttributeFunctionIndex, noinline);
    LLVMAddAttributeAtIndex(poll, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(pass->context, alwaysinline, 0));
    int ours = LLVMGetLinkage(poll) == LLVMInternalLinkage;
    pass->poll_function = NULL;
    if (run_pipeline(pass, "always-inline") != 0)
        return;
    /* The always-inliner deletes an internal function it fully inlined. */
    poll = LLVMGetNamedFunction(pass->module, POLL_FUNCTION_NAME);
    if (poll && ours && !LLVMGetFirstUse(poll))
        LLVMDeleteFunction(poll);
}
