/* shadow_stack.c — functions written for @llvm.gcroot (gc "shadow-stack").
 *
 * LLVM's ShadowStackGCLowering pushes each such function's roots on one
 * global chain, llvm_gc_root_chain, so only one mutator thread can run. We
 * lower @llvm.gcroot here instead, to the same frame layout
 * (corral/shadow_stack.h) but pushed on a thread-local head that the runtime
 * walks per stopped thread. Why not run LLVM's pass and retarget its global:
 * in LLVM 19 "shadow-stack-gc-lowering" through LLVMRunPasses leaves the
 * module unchanged (its new-PM wrapper finds no strategy), and its pops are
 * plain stores that later optimisation may merge or delete; doing it here in
 * C takes a hundred lines and keeps every store we need volatile.
 *
 * Steps, each before the optimisation pipeline so it sees the pushes:
 *   1. per function: gcroot allocas -> slots of one frame alloca
 *      { next, map, roots[N] }, null-initialised, pushed at entry, popped
 *      before every ret and resume; llvm.gcread/gcwrite -> load/store.
 *   2. a fence (an opaque call) at every loop latch, so optimisation keeps
 *      no root value in a register across it; after optimisation each fence
 *      becomes the loop's poll (corral's own loop polls, placed after
 *      optimisation at the latch it finds then, could land where loop
 *      rotation left a root's value in a register).
 *   3. after placement: a pointer that may point into the heap held in a
 *      register across a poll (not across a call: the frontend reloads after
 *      calls, as LLVM's contract says) would not be updated when objects
 *      move. Such entry/return polls are dropped; a loop poll is an error.
 * The lowered function is then ordinary managed code: gc "coreclr", its calls
 * statepoints (with no roots of its own unless it also uses address space 1).
 */
#include "liveness.h"
#include <llvm-c/DebugInfo.h>
#include "pass.h"

#include "corral/abi.h"

#include <stdlib.h>
#include <string.h>

#define FENCE_NAME "corral.gcroot.fence"
/* Marks the functions lowered from gc "shadow-stack": an attribute, not a
 * table of functions, since optimisation may replace a function by a copy
 * (dead-argument elimination does), which keeps its attributes. */
#define SHADOW_STACK_ATTRIBUTE "corral-shadow-stack"

static LLVMValueRef chain_head(polls_pass *pass)
{
    return thread_local_pointer(pass, CORRAL_ABI_SHADOW_STACK_HEAD);
}

typedef struct gcroot {
    LLVMValueRef alloca;
    LLVMValueRef meta; /* a constant, null when none */
} gcroot;

typedef VEC(gcroot) gcroot_list;

void collect_gcroot_calls(LLVMValueRef function, value_list *calls)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (is_call_to(inst, "llvm.gcroot"))
                VEC_PUSH(*calls, inst);
}

/* The gcroot calls of function, checked; they are erased. */
static void collect_roots(polls_pass *pass, LLVMValueRef function, gcroot_list *roots)
{
    value_list calls = {0};
    collect_gcroot_calls(function, &calls);
    for (size_t i = 0; i < calls.count; i++) {
        LLVMValueRef call = calls.items[i];
        LLVMValueRef slot = LLVMGetOperand(call, 0);
        LLVMValueRef meta = LLVMGetOperand(call, 1);
        LLVMTypeRef type = LLVMGetAllocatedType(slot);
        /* A gcroot call starts the root's life as null. At entry the push does
         * that; elsewhere (a callee inlined into a loop) it happens here. */
        if (LLVMGetInstructionParent(call) != LLVMGetEntryBasicBlock(function)) {
            LLVMPositionBuilderBefore(pass->builder, call);
            LLVMSetVolatile(LLVMBuildStore(pass->builder, LLVMConstNull(type), slot), 1);
        }
        int seen = 0;
        for (size_t r = 0; r < roots->count; r++)
            seen |= roots->items[r].alloca == slot;
        if (!seen)
            VEC_PUSH(*roots, ((gcroot){slot, LLVMIsNull(meta) ? NULL : meta}));
    }
    for (size_t i = 0; i < calls.count; i++)
        LLVMInstructionEraseFromParent(calls.items[i]);
    free(calls.items);
}

/* llvm.gcread(obj, addr) -> load addr; llvm.gcwrite(value, obj, addr) ->
 * store value, addr: what LLVM's own lowering does for this strategy. */
static void lower_reads_and_writes(polls_pass *pass, LLVMValueRef function)
{
    value_list calls = {0};
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (is_call_to(inst, "llvm.gcread") || is_call_to(inst, "llvm.gcwrite"))
                VEC_PUSH(calls, inst);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    for (size_t i = 0; i < calls.count; i++) {
        LLVMValueRef call = calls.items[i];
        LLVMPositionBuilderBefore(pass->builder, call);
        if (is_call_to(call, "llvm.gcread")) {
            LLVMValueRef load = LLVMBuildLoad2(pass->builder, ptr, LLVMGetOperand(call, 1), "");
            LLVMReplaceAllUsesWith(call, load);
        } else {
            LLVMBuildStore(pass->builder, LLVMGetOperand(call, 0), LLVMGetOperand(call, 2));
        }
        LLVMInstructionEraseFromParent(call);
    }
    free(calls.items);
}

/* { i32 NumRoots, i32 NumMeta, [NumMeta x ptr] } named like LLVM's. */
static LLVMValueRef frame_map(polls_pass *pass, LLVMValueRef function, const gcroot_list *roots,
                              size_t meta_count)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMValueRef *meta = xcalloc(meta_count ? meta_count : 1, sizeof *meta);
    for (size_t i = 0; i < meta_count; i++)
        meta[i] = roots->items[i].meta;
    LLVMValueRef fields[] = {LLVMConstInt(i32, roots->count, 0), LLVMConstInt(i32, meta_count, 0),
                             LLVMConstArray2(ptr, meta, meta_count)};
    LLVMValueRef init = LLVMConstStructInContext(pass->context, fields, 3, 0);
    free(meta);
    char *name = xasprintf("__gc_%s", value_name(function));
    LLVMValueRef map = private_constant(pass, name, init);
    free(name);
    return map;
}

static LLVMValueRef volatile_store(polls_pass *pass, LLVMValueRef value, LLVMValueRef address)
{
    LLVMValueRef store = LLVMBuildStore(pass->builder, value, address);
    LLVMSetVolatile(store, 1);
    return store;
}

static void pop_before(polls_pass *pass, LLVMValueRef exit, LLVMTypeRef frame_type,
                       LLVMValueRef frame)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMPositionBuilderBefore(pass->builder, exit);
    LLVMValueRef next_field = LLVMBuildStructGEP2(pass->builder, frame_type, frame, 0, "gc_frame.next");
    LLVMValueRef next = LLVMBuildLoad2(pass->builder, ptr, next_field, "gc_savedhead");
    volatile_store(pass, next, chain_head(pass));
}

/* Both modes: musttail is refused and tail markers go, since "tail"
 * promises the callee never sees our allocas (the shadow stack shows them;
 * in promoted mode optimisation would reuse a root loaded before the call). */
static void clear_tail_calls(polls_pass *pass, LLVMValueRef function)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if (!LLVMIsACallInst(inst))
                continue;
            if (LLVMGetTailCallKind(inst) == LLVMTailCallKindMustTail)
                pass_error(pass, function, inst,
                           "musttail call in a gc \"shadow-stack\" function: its frame must "
                           "stay on the shadow stack until the call returns");
            LLVMSetTailCallKind(inst, LLVMTailCallKindNone);
        }
}

/* A slot's lifetime markers go: moved into the frame, the root lives as long
 * as the frame, and a lifetime.start there (the inliner puts one before an
 * inlined callee's gcroot calls) would make the null the push stored undef
 * to the optimiser, which then deletes the paths that read it. */
static void erase_lifetime_markers(LLVMValueRef slot)
{
    LLVMUseRef use = LLVMGetFirstUse(slot);
    while (use) {
        LLVMValueRef user = LLVMGetUser(use);
        use = LLVMGetNextUse(use);
        LLVMValueRef callee = LLVMIsACallInst(user) ? called_function(user) : NULL;
        if (callee && strncmp(value_name(callee), "llvm.lifetime.", 14) == 0)
            LLVMInstructionEraseFromParent(user);
    }
}

void lower_gcroot_slots_to_frame(polls_pass *pass, LLVMValueRef function)
{
    gcroot_list roots = {0};
    size_t errors = pass->error_count;
    collect_roots(pass, function, &roots);
    if (pass->error_count != errors || roots.count == 0) {
        free(roots.items);
        return;
    }
    /* Roots with metadata first, so NumMeta counts a prefix (LLVM's order). */
    gcroot_list sorted = {0};
    for (int with_meta = 1; with_meta >= 0; with_meta--)
        for (size_t i = 0; i < roots.count; i++)
            if ((roots.items[i].meta != NULL) == with_meta)
                VEC_PUSH(sorted, roots.items[i]);
    size_t meta_count = 0;
    while (meta_count < sorted.count && sorted.items[meta_count].meta)
        meta_count++;
    LLVMValueRef map = frame_map(pass, function, &sorted, meta_count);

    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    LLVMTypeRef fields[] = {ptr, ptr, LLVMArrayType2(ptr, sorted.count)};
    LLVMTypeRef frame_type = LLVMStructTypeInContext(pass->context, fields, 3, 0);
    /* First: one may be where the push goes. */
    for (size_t i = 0; i < sorted.count; i++)
        erase_lifetime_markers(sorted.items[i].alloca);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    LLVMPositionBuilder(pass->builder, entry, LLVMGetFirstInstruction(entry));
    LLVMValueRef frame = LLVMBuildAlloca(pass->builder, frame_type, "gc_frame");

    /* Push, after the allocas: nothing before it can reach a safepoint. */
    LLVMPositionBuilderBefore(pass->builder, first_insertion_point(entry));
    LLVMValueRef head = chain_head(pass);
    LLVMValueRef current = LLVMBuildLoad2(pass->builder, ptr, head, "gc_currhead");
    volatile_store(pass, map, LLVMBuildStructGEP2(pass->builder, frame_type, frame, 1, "gc_frame.map"));
    for (size_t i = 0; i < sorted.count; i++) {
        LLVMValueRef index[] = {LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, 2, 0),
                                LLVMConstInt(i32, i, 0)};
        LLVMValueRef slot = LLVMBuildInBoundsGEP2(pass->builder, frame_type, frame, index, 3, "");
        volatile_store(pass, LLVMConstNull(ptr), slot);
        LLVMValueRef old = sorted.items[i].alloca;
        LLVMSetValueName2(slot, value_name(old), strlen(value_name(old)));
        LLVMReplaceAllUsesWith(old, slot);
        LLVMInstructionEraseFromParent(old);
    }
    volatile_store(pass, current, LLVMBuildStructGEP2(pass->builder, frame_type, frame, 0, "gc_frame.next"));
    volatile_store(pass, frame, head);

    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef terminator = LLVMGetBasicBlockTerminator(block);
        LLVMOpcode opcode = terminator ? LLVMGetInstructionOpcode(terminator) : LLVMUnreachable;
        if (opcode == LLVMRet || opcode == LLVMResume)
            pop_before(pass, terminator, frame_type, frame);
    }
    free(roots.items);
    free(sorted.items);
}

static LLVMValueRef fence_function(polls_pass *pass)
{
    LLVMValueRef fence = LLVMGetNamedFunction(pass->module, FENCE_NAME);
    if (fence)
        return fence;
    LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(pass->context), NULL, 0, 0);
    fence = LLVMAddFunction(pass->module, FENCE_NAME, type);
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fence, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(pass->context, nounwind, 0));
    return fence;
}

/* At the top of each loop header: there the values a loop carries are its
 * phis, while a fence at the latch would see every value defined in the
 * body and used after the loop exit. */
static void fence_loops(polls_pass *pass, LLVMValueRef function)
{
    cfg graph;
    cfg_build(&graph, function);
    LLVMValueRef fence = fence_function(pass);
    LLVMTypeRef type = LLVMGlobalGetValueType(fence);
    unsigned char *done = xcalloc(graph.block_count ? graph.block_count : 1, 1);
    for (size_t i = 0; i < graph.retreating.count; i++) {
        size_t header = graph.retreating.items[i].to;
        if (done[header])
            continue;
        done[header] = 1;
        LLVMPositionBuilderBefore(pass->builder, first_insertion_point(graph.blocks[header]));
        LLVMBuildCall2(pass->builder, type, fence, NULL, 0, "");
    }
    free(done);
    cfg_free(&graph);
}

static void check_root_type(polls_pass *pass, LLVMValueRef function, LLVMValueRef call,
                            LLVMValueRef slot)
{
    LLVMTypeRef type = LLVMGetAllocatedType(slot);
    LLVMValueRef count = LLVMGetOperand(slot, 0);
    if (LLVMGetTypeKind(type) == LLVMPointerTypeKind && LLVMGetPointerAddressSpace(type) == 0 &&
        LLVMIsAConstantInt(count) && LLVMConstIntGetZExtValue(count) == 1)
        return;
    char *text = LLVMPrintTypeToString(type);
    pass_error(pass, function, call,
               "llvm.gcroot of alloca '%s' of type %s: corral's shadow stack holds "
               "one object pointer (ptr, address space 0) per root",
               value_name(slot), text);
    LLVMDisposeMessage(text);
}

/* Before the verifier, whose messages for these name no function: a gcroot
 * of a non-alloca, and gcroot outside a gc "shadow-stack" function. */
void check_gcroot_calls(polls_pass *pass)
{
    LLVMValueRef gcroot = LLVMGetNamedFunction(pass->module, "llvm.gcroot");
    ptr_table reported;
    ptr_table_init(&reported);
    for (LLVMUseRef use = gcroot ? LLVMGetFirstUse(gcroot) : NULL; use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (!LLVMIsAInstruction(user))
            continue;
        LLVMValueRef function = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
        const char *gc = LLVMGetGC(function);
        LLVMValueRef slot = LLVMGetOperand(user, 0);
        if (!LLVMIsAAllocaInst(slot))
            pass_error(pass, function, user,
                       "llvm.gcroot of '%s', which is not an alloca: a root must be a "
                       "stack slot (alloca) the function loads and stores",
                       *value_name(slot) ? value_name(slot) : "an unnamed value");
        else
            check_root_type(pass, function, user, slot);
        if ((gc && strcmp(gc, CORRAL_ABI_SHADOW_STACK_GC) == 0) ||
            ptr_table_contains(&reported, function))
            continue;
        ptr_table_put(&reported, function, 1);
        pass_error(pass, function, user,
                   "calls llvm.gcroot but uses gc \"%s\": roots marked with llvm.gcroot "
                   "need gc \"%s\"",
                   gc ? gc : "", CORRAL_ABI_SHADOW_STACK_GC);
    }
    ptr_table_free(&reported);
}

void lower_shadow_stack_functions(polls_pass *pass)
{
    int promoted = pass->options.gcroot_mode == CORRAL_GCROOT_PROMOTED;
    for (LLVMValueRef function = LLVMGetFirstFunction(pass->module); function;
         function = LLVMGetNextFunction(function)) {
        if (LLVMIsDeclaration(function))
            continue;
        const char *gc = LLVMGetGC(function);
        if (!gc || strcmp(gc, CORRAL_ABI_SHADOW_STACK_GC) != 0)
            continue;
        size_t errors = pass->error_count;
        lower_reads_and_writes(pass, function);
        clear_tail_calls(pass, function);
        make_gcroot_casts_opaque(pass, function);
        /* Promoted mode keeps the gcroot calls (and so the gc, which the
         * verifier wants with them) through optimisation: gcroot_promoted.c. */
        if (pass->error_count == errors && !promoted)
            lower_gcroot_slots_to_frame(pass, function);
        fence_loops(pass, function);
        if (!promoted)
            LLVMSetGC(function, NULL);
        add_function_string_attribute(function, SHADOW_STACK_ATTRIBUTE, "");
    }
    for (const char *const *name = (const char *const[]){"llvm.gcroot", "llvm.gcread",
                                                        "llvm.gcwrite", NULL};
         *name; name++) {
        LLVMValueRef declaration = LLVMGetNamedFunction(pass->module, *name);
        if (declaration && !LLVMGetFirstUse(declaration))
            LLVMDeleteFunction(declaration);
    }
}

void turn_shadow_stack_fences_into_polls(polls_pass *pass)
{
    LLVMValueRef fence = LLVMGetNamedFunction(pass->module, FENCE_NAME);
    if (!fence)
        return;
    LLVMTypeRef type = LLVMGlobalGetValueType(pass->poll_function);
    LLVMUseRef use;
    while ((use = LLVMGetFirstUse(fence))) {
        LLVMValueRef call = LLVMGetUser(use);
        LLVMValueRef function = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
        unsigned flags = function_flags(pass, function);
        unsigned kinds = (flags & FUNCTION_POLL_ALL) ? CORRAL_POLL_ALL_KINDS : pass->options.poll_kinds;
        if (!(flags & FUNCTION_NOPOLL) && (kinds & CORRAL_POLL_LOOP)) {
            LLVMPositionBuilderBefore(pass->builder, call);
            LLVMValueRef poll = LLVMBuildCall2(pass->builder, type, pass->poll_function, NULL, 0, "");
            LLVMMetadataRef location = LLVMInstructionGetDebugLoc(call);
            if (location)
                LLVMInstructionSetDebugLoc(poll, location);
            ptr_table_put(&pass->shadow_stack_loop_polls, poll, 1);
        }
        LLVMInstructionEraseFromParent(call);
    }
    ptr_table_remove(&pass->function_flags, fence); /* classified as a declaration */
    LLVMDeleteFunction(fence);
}

int is_shadow_stack_function(LLVMValueRef function)
{
    return function_has_string_attribute(function, SHADOW_STACK_ATTRIBUTE);
}

/* A plain pointer that may point into the heap: not (an offset from) an
 * alloca, a global or a constant. */
static int may_point_into_heap(LLVMValueRef value)
{
    LLVMTypeRef type = LLVMTypeOf(value);
    if (LLVMGetTypeKind(type) != LLVMPointerTypeKind || LLVMGetPointerAddressSpace(type) != 0)
        return 0;
    LLVMValueRef base = strip_address(value);
    return !(LLVMIsAAllocaInst(base) || LLVMIsAGlobalValue(base) || LLVMIsAConstant(base));
}

void check_shadow_stack_polls(polls_pass *pass, LLVMValueRef function,
                              corral_polls_function_report *report)
{
    if (!is_shadow_stack_function(function) || !pass->poll_function)
        return;
    for (int round = 0; round < 64; round++) {
        safepoint_map map;
        safepoint_map_build(&map, pass, function);
        /* Keep polls only: across calls the frontend reloads its roots. */
        for (size_t b = 0; b < map.graph.block_count; b++) {
            size_t kept = 0;
            for (size_t i = 0; i < map.calls[b].count; i++)
                if (called_function(map.calls[b].items[i]) == pass->poll_function) {
                    map.safepoints[b].items[kept] = map.safepoints[b].items[i];
                    map.calls[b].items[kept++] = map.calls[b].items[i];
                }
            map.safepoints[b].count = map.calls[b].count = kept;
        }
        LLVMValueRef value = NULL, poll = NULL;
        for (LLVMValueRef p = LLVMGetFirstParam(function); p && !poll; p = LLVMGetNextParam(p))
            if (may_point_into_heap(p) && (poll = live_across_safepoint(&map, p)))
                value = p;
        for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block && !poll;
             block = LLVMGetNextBasicBlock(block))
            for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst && !poll;
                 inst = LLVMGetNextInstruction(inst))
                if (may_point_into_heap(inst) && (poll = live_across_safepoint(&map, inst)))
                    value = inst;
        int loop = poll && ptr_table_contains(&pass->shadow_stack_loop_polls, poll);
        safepoint_map_free(&map);
        if (!poll)
            return;
        if (loop && !pass->options.allow_unpolled_loops) {
            char *label = block_label(LLVMGetInstructionParent(poll));
            pass_error(pass, function, poll,
                       "pointer '%s' is held in a register across the poll at the head of loop %s: "
                       "it may point into the heap, and the collector only updates roots in "
                       "gcroot slots; load it from its gcroot slot inside the loop (or pass "
                       "--allow-unpolled-loops to leave this loop without a poll)",
                       *value_name(value) ? value_name(value) : "(unnamed)", label);
            free(label);
            return;
        }
        /* An entry or return poll is optional: drop it rather than lose the value. */
        if (loop)
            pass_warning(pass, function, poll,
                         "no poll in this loop: pointer '%s' is held in a register there, "
                         "so the thread cannot stop in it (--allow-unpolled-loops)",
                         *value_name(value) ? value_name(value) : "(unnamed)");
        LLVMInstructionEraseFromParent(poll);
        if (report->polls_inserted)
            report->polls_inserted--;
    }
}
