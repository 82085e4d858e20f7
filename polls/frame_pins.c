/* frame_pins.c — objects pinned until the function returns, for raw
 * pointers into them that leave the pass's sight.
 *
 * raw_pointers.c keeps a raw pointer made from a reference in address space
 * 1 up to each use. Some uses hand back a pointer the pass cannot tell from
 * one into C memory, so it cannot follow the object when it moves:
 *
 *   char *comma = strchr((char *)s->data, ',');    the result
 *   long v = strtol((char *)s->data, &end, 10);    what C stores in end
 *   p = cond ? (char *)s->data : buffer;           a phi or select with C memory
 *   char *cursor = (char *)s->data; parse(&cursor);   a local it is stored in
 *
 * For these the object is pinned, and kept alive, until the function returns,
 * as C#'s `fixed` statement pins for a scope: a raw pointer from it stays
 * valid as long as the frame that made it. A call gives a pointer back to
 * the frame only as its result or through a local whose address it gets;
 * one whose result is unused and that gets no such local (memcpy, printf,
 * a hash function), or whose callee declares the argument nocapture
 * (strlen, write, a function whose body was seen not to keep it), needs
 * none: the call pin (raw_pointers.c) covers it while it runs.
 *
 *   entry:   %frame_pins = alloca [1 + N x i64]  ; filled with -1
 *   site k:  call CORRAL_ABI_PIN_FOR_FRAME(ptr %frame_pins, i32 k, ptr addrspace(1) %object)
 *            %raw = addrspacecast %derived to ptr
 *   return:  call CORRAL_ABI_UNPIN_FRAME(ptr %frame_pins)   ; also before resume
 *
 * Each site holds one object, the last it pinned (src/call_pins.c), so a
 * loop does not grow the pins: a pointer kept from an earlier iteration
 * into another object is not covered. A pointer that outlives the frame
 * (returned, stored into a struct or global) is not covered either:
 * raw_pointers.c refuses it unless the function pins the object itself.
 */
#include "frame_pins.h"

#include "corral/abi.h"

#include <stdlib.h>

/* Marks a raw cast whose object a frame pin holds from there until the
 * function returns, the object having one value from there on (not
 * redefined in a loop): is_frame_pinned. */
#define FRAME_PINNED_METADATA "corral.frame_pinned"

int is_frame_memory(LLVMValueRef address)
{
    return LLVMIsAAllocaInst(strip_address(address)) != NULL;
}

static unsigned frame_pinned_kind(LLVMContextRef context)
{
    return LLVMGetMDKindIDInContext(context, FRAME_PINNED_METADATA,
                                    (unsigned)sizeof FRAME_PINNED_METADATA - 1);
}

int is_frame_pinned(LLVMValueRef raw)
{
    LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(raw));
    return LLVMGetMetadata(raw, frame_pinned_kind(context)) != NULL;
}

/* Marks raw, whose object a frame pin holds there, when the object keeps
 * that value until the function returns (a loop does not define it again). */
static void mark_frame_pinned(polls_pass *pass, const cfg *graph, LLVMValueRef raw,
                              LLVMValueRef object)
{
    if (defined_again_after(graph, object, raw))
        return;
    LLVMMetadataRef empty = LLVMMDNodeInContext2(pass->context, NULL, 0);
    LLVMSetMetadata(raw, frame_pinned_kind(pass->context),
                    LLVMMetadataAsValue(pass->context, empty));
}

int may_capture_argument(LLVMValueRef call, unsigned index)
{
    unsigned nocapture = LLVMGetEnumAttributeKindForName("nocapture", 9);
    LLVMAttributeIndex at = 1 + index; /* after LLVMAttributeReturnIndex */
    if (LLVMGetCallSiteEnumAttribute(call, at, nocapture))
        return 0;
    LLVMValueRef callee = called_function(call);
    return !(callee && index < LLVMCountParams(callee) &&
             LLVMGetEnumAttributeAtIndex(callee, at, nocapture));
}

/* Whether a value of type can hold a raw (address-space-0) pointer. */
static int holds_raw_pointer(LLVMTypeRef type)
{
    switch (LLVMGetTypeKind(type)) {
    case LLVMPointerTypeKind:
        return LLVMGetPointerAddressSpace(type) == 0;
    case LLVMArrayTypeKind:
    case LLVMVectorTypeKind:
        return holds_raw_pointer(LLVMGetElementType(type));
    case LLVMStructTypeKind:
        for (unsigned i = 0; i < LLVMCountStructElementTypes(type); i++)
            if (holds_raw_pointer(LLVMStructGetTypeAtIndex(type, i)))
                return 1;
        return 0;
    default:
        return 0;
    }
}

/* Whether call can give this frame a pointer back: as its result, or by
 * storing it into a local of the frame's whose address it gets (strtol's
 * &end). A copy it keeps elsewhere is not followed (docs/managed-c.md). */
static int call_hands_back_pointer(LLVMValueRef call)
{
    if (LLVMGetFirstUse(call) && holds_raw_pointer(LLVMTypeOf(call)))
        return 1;
    unsigned count = LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef local = strip_address(LLVMGetOperand(call, i));
        if (LLVMIsAAllocaInst(local) && holds_raw_pointer(LLVMGetAllocatedType(local)))
            return 1;
    }
    return 0;
}

/* Whether user, given raw (a raw pointer into an object), may make from it
 * a pointer that the rest of the frame uses out of the pass's sight. */
static int hands_back_pointer(LLVMValueRef user, LLVMValueRef raw)
{
    if (is_call_site(user)) {
        unsigned count = LLVMGetNumArgOperands(user);
        for (unsigned i = 0; i < count; i++)
            if (LLVMGetOperand(user, i) == raw && may_capture_argument(user, i))
                return call_hands_back_pointer(user);
        return 0; /* nocapture arguments, or the callee itself */
    }
    switch (LLVMGetInstructionOpcode(user)) {
    case LLVMLoad:
    case LLVMICmp:
    case LLVMPtrToInt: /* an integer is not followed (docs/managed-c.md) */
    case LLVMRet:      /* nor a returned pointer */
        return 0;
    case LLVMStore:
        /* Into other memory raw_pointers.c rejects; into a local the frame reads later. */
        return LLVMGetOperand(user, 0) == raw && is_frame_memory(LLVMGetOperand(user, 1));
    case LLVMAtomicRMW:
    case LLVMAtomicCmpXchg:
        return LLVMGetOperand(user, 0) != raw;
    default:
        return 1; /* a phi or select with C pointers, an aggregate, a freeze */
    }
}

static LLVMValueRef pin_function(polls_pass *pass)
{
    LLVMTypeRef params[] = {LLVMPointerTypeInContext(pass->context, 0),
                            LLVMInt32TypeInContext(pass->context),
                            LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE)};
    return declare_leaf_function(
        pass, CORRAL_ABI_PIN_FOR_FRAME,
        LLVMFunctionType(LLVMVoidTypeInContext(pass->context), params, 3, 0));
}

static LLVMValueRef unpin_function(polls_pass *pass)
{
    LLVMTypeRef param = LLVMPointerTypeInContext(pass->context, 0);
    return declare_leaf_function(
        pass, CORRAL_ABI_UNPIN_FRAME,
        LLVMFunctionType(LLVMVoidTypeInContext(pass->context), &param, 1, 0));
}

static LLVMValueRef build_leaf_call(polls_pass *pass, LLVMValueRef function,
                                    LLVMValueRef *arguments, unsigned count)
{
    LLVMValueRef call = LLVMBuildCall2(pass->builder, LLVMGlobalGetValueType(function), function,
                                       arguments, count, "");
    add_call_string_attribute(call, "gc-leaf-function", "");
    return call;
}

/* The block of 1 + sites words at entry, filled with -1 (no pin yet). */
static LLVMValueRef build_frame_pin_block(polls_pass *pass, LLVMValueRef function, size_t sites)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    LLVMPositionBuilder(pass->builder, entry, LLVMGetFirstInstruction(entry));
    LLVMValueRef block =
        LLVMBuildAlloca(pass->builder, LLVMArrayType2(i64, 1 + sites), "frame_pins");
    LLVMSetAlignment(block, 8);
    LLVMPositionBuilderBefore(pass->builder, first_insertion_point(entry));
    LLVMValueRef all_ones = LLVMConstInt(LLVMInt8TypeInContext(pass->context), 0xff, 0);
    LLVMBuildMemSet(pass->builder, block, all_ones, LLVMConstInt(i64, 8 * (1 + sites), 0), 8);
    return block;
}

/* Whether instruction a comes before b on every path to b. */
static int instruction_dominates(const cfg *graph, const size_t *idom, LLVMValueRef a,
                                 LLVMValueRef b)
{
    LLVMBasicBlockRef block_a = LLVMGetInstructionParent(a);
    if (block_a != LLVMGetInstructionParent(b))
        return cfg_dominates(idom, cfg_block_index(graph, block_a),
                             cfg_block_index(graph, LLVMGetInstructionParent(b)));
    for (LLVMValueRef inst = LLVMGetNextInstruction(a); inst; inst = LLVMGetNextInstruction(inst))
        if (inst == b)
            return 1;
    return 0;
}

/* Where the pin of object for raw goes: before raw, or, when raw is in a
 * loop the object is made before, at the end of the preheader of the
 * outermost such loop: once each time the loop is entered, not each round. */
static LLVMValueRef pin_position(const frame_pin_index *pins, LLVMValueRef raw,
                                 LLVMValueRef object)
{
    const cfg *graph = pins->graph;
    size_t block = cfg_block_index(graph, LLVMGetInstructionParent(raw));
    unsigned char *in_loop = xcalloc(graph->block_count, 1);
    LLVMValueRef best = raw;
    size_t best_size = 0;
    for (size_t e = 0; e < graph->retreating.count; e++) {
        size_t latch = graph->retreating.items[e].from, header = graph->retreating.items[e].to;
        if (!cfg_dominates(pins->idom, header, latch))
            continue; /* not a natural loop */
        cfg_loop_body(graph, latch, header, in_loop);
        size_t size = 0, preheader = SIZE_MAX, outside = 0;
        for (size_t b = 0; b < graph->block_count; b++)
            size += in_loop[b];
        const index_list *preds = &graph->predecessors[header];
        for (size_t i = 0; i < preds->count; i++)
            if (!in_loop[preds->items[i]]) {
                preheader = preds->items[i];
                outside++;
            }
        if (!in_loop[block] || size <= best_size || outside != 1)
            continue;
        LLVMValueRef end = LLVMGetBasicBlockTerminator(graph->blocks[preheader]);
        if (!end || (LLVMGetInstructionOpcode(end) != LLVMBr &&
                     LLVMGetInstructionOpcode(end) != LLVMSwitch))
            continue;
        /* The object's value must be the one every round sees. */
        if (LLVMIsAInstruction(object) &&
            !instruction_dominates(graph, pins->idom, object, end))
            continue;
        best = end;
        best_size = size;
    }
    free(in_loop);
    return best;
}

/* Pins the object of raw (which user may hand back) from before raw on
 * (pin_position): the pin call, or NULL when the pass cannot, after an
 * error. */
static LLVMValueRef pin_site(polls_pass *pass, LLVMValueRef function, LLVMValueRef block,
                             unsigned site, LLVMValueRef raw, LLVMValueRef user,
                             const frame_pin_index *pins)
{
    LLVMValueRef object = object_of_address(LLVMGetOperand(raw, 0));
    if (!object) {
        pass_error(pass, function, user,
                   "raw pointer into an object, which this instruction may hand back as a "
                   "pointer the pass cannot follow, points into an object the pass cannot name "
                   "(a phi or select of different offsets): pin the object (corral_pin)");
        return NULL;
    }
    if (is_musttail_call(user)) {
        LLVMValueRef callee = called_function(user);
        pass_error(pass, function, user,
                   "musttail call of '%s' with a raw pointer into an object it may keep: the "
                   "object must stay pinned after the caller's frame is gone; drop musttail",
                   callee ? value_name(callee) : "(indirect)");
        return NULL;
    }
    LLVMPositionBuilderBefore(pass->builder, pin_position(pins, raw, object));
    LLVMValueRef arguments[] = {block, LLVMConstInt(LLVMInt32TypeInContext(pass->context), site, 0),
                                object};
    LLVMValueRef pin = build_leaf_call(pass, pin_function(pass), arguments, 3);
    mark_frame_pinned(pass, pins->graph, raw, object);
    return pin;
}

/* The unpin before every return and resume. */
static void unpin_at_exits(polls_pass *pass, LLVMValueRef function, LLVMValueRef block)
{
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(function); b; b = LLVMGetNextBasicBlock(b)) {
        LLVMValueRef terminator = LLVMGetBasicBlockTerminator(b);
        if (!terminator)
            continue;
        LLVMOpcode opcode = LLVMGetInstructionOpcode(terminator);
        if (opcode != LLVMRet && opcode != LLVMResume)
            continue;
        LLVMPositionBuilderBefore(pass->builder, opcode == LLVMRet
                                                     ? function_exit_point(terminator)
                                                     : terminator);
        build_leaf_call(pass, unpin_function(pass), &block, 1);
    }
}


void frame_pin_index_build(frame_pin_index *index, const cfg *graph)
{
    *index = (frame_pin_index){.graph = graph, .idom = cfg_immediate_dominators(graph)};
    for (size_t b = 0; b < graph->block_count; b++)
        for (LLVMValueRef inst = LLVMGetFirstInstruction(graph->blocks[b]); inst;
             inst = LLVMGetNextInstruction(inst))
            if (is_call_to(inst, CORRAL_ABI_PIN_FOR_FRAME))
                VEC_PUSH(index->pins, inst);
}

void frame_pin_index_free(frame_pin_index *index)
{
    free(index->idom);
    free(index->pins.items);
    *index = (frame_pin_index){0};
}

int frame_pin_holds(const frame_pin_index *index, LLVMValueRef object, LLVMValueRef at)
{
    for (size_t i = 0; i < index->pins.count; i++) {
        LLVMValueRef pin = index->pins.items[i];
        if (LLVMGetOperand(pin, 2) == object &&
            instruction_dominates(index->graph, index->idom, pin, at))
            return 1;
    }
    return 0;
}

/* Queues the successors of block not seen yet. */
static void queue_successors(const cfg *graph, size_t block, unsigned char *seen,
                             size_t *worklist, size_t *pending)
{
    for (size_t i = 0; i < graph->successors[block].count; i++) {
        size_t next = graph->successors[block].items[i];
        if (!seen[next]) {
            seen[next] = 1;
            worklist[(*pending)++] = next;
        }
    }
}

int defined_again_after(const cfg *graph, LLVMValueRef object, LLVMValueRef since)
{
    if (!LLVMIsAInstruction(object))
        return 0; /* an argument or a constant: one value per frame */
    size_t count = graph->block_count;
    size_t target = cfg_block_index(graph, LLVMGetInstructionParent(object));
    size_t start = cfg_block_index(graph, LLVMGetInstructionParent(since));
    unsigned char *seen = xcalloc(count ? count : 1, 1);
    size_t *worklist = xcalloc(count + 1, sizeof *worklist);
    size_t pending = 0;
    int found = 0;
    /* From since's successors: object dominates since, so its block counts
     * only when reached again. */
    queue_successors(graph, start, seen, worklist, &pending);
    while (pending && !found) {
        size_t block = worklist[--pending];
        found = block == target;
        queue_successors(graph, block, seen, worklist, &pending);
    }
    free(seen);
    free(worklist);
    return found;
}

/* The raw casts of function, dominators first (reverse postorder), then
 * those in unreachable blocks; with the user that needs a pin, or NULL. */
static void collect_raw_casts(const cfg *graph, value_list *raws, value_list *users)
{
    size_t count = graph->block_count;
    size_t *order = xcalloc(count ? count : 1, sizeof *order);
    size_t n = 0;
    for (size_t i = graph->postorder.count; i-- > 0;)
        order[n++] = graph->postorder.items[i];
    for (size_t b = 0; b < count; b++)
        if (!graph->reachable[b])
            order[n++] = b;
    for (size_t k = 0; k < n; k++)
        for (LLVMValueRef inst = LLVMGetFirstInstruction(graph->blocks[order[k]]); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if (!is_raw_cast(inst))
                continue;
            LLVMValueRef needing = NULL;
            for (LLVMUseRef use = LLVMGetFirstUse(inst); use && !needing; use = LLVMGetNextUse(use))
                if (hands_back_pointer(LLVMGetUser(use), inst))
                    needing = LLVMGetUser(use);
            VEC_PUSH(*raws, inst);
            VEC_PUSH(*users, needing);
        }
    free(order);
}

void pin_objects_for_frame(polls_pass *pass, LLVMValueRef function,
                           corral_polls_function_report *report)
{
    cfg graph;
    cfg_build(&graph, function);
    value_list raws = {0}, users = {0};
    collect_raw_casts(&graph, &raws, &users);
    size_t needing = 0;
    for (size_t i = 0; i < raws.count; i++)
        needing += users.items[i] != NULL;
    LLVMValueRef block = NULL;
    frame_pin_index pins = {0};
    unsigned sites = 0;
    if (needing) {
        /* One word per site at most: a covered cast takes none. */
        block = build_frame_pin_block(pass, function, needing);
        frame_pin_index_build(&pins, &graph);
    }
    for (size_t i = 0; i < raws.count; i++) {
        if (!users.items[i])
            continue;
        LLVMValueRef raw = raws.items[i];
        LLVMValueRef object = object_of_address(LLVMGetOperand(raw, 0));
        if (object && frame_pin_holds(&pins, object, raw)) {
            mark_frame_pinned(pass, &graph, raw, object);
        } else {
            LLVMValueRef pin =
                pin_site(pass, function, block, sites, raw, users.items[i], &pins);
            if (pin) {
                VEC_PUSH(pins.pins, pin);
                sites++;
            }
        }
    }
    /* Other uses of a pinned object after its site need nothing more (a
     * second pass: a pin moved before a loop covers casts met earlier). */
    for (size_t i = 0; i < raws.count && block; i++) {
        LLVMValueRef object = object_of_address(LLVMGetOperand(raws.items[i], 0));
        if (!users.items[i] && object && frame_pin_holds(&pins, object, raws.items[i]))
            mark_frame_pinned(pass, &graph, raws.items[i], object);
    }
    if (block) {
        unpin_at_exits(pass, function, block);
        report->frame_pins = sites;
    }
    free(raws.items);
    free(users.items);
    frame_pin_index_free(&pins);
    cfg_free(&graph);
}
