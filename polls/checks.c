/* checks.c — IR the pass cannot make safe is rejected here, with a message
 * naming the function and what the author should write instead. Nothing in
 * this file changes the module. */
#include "frame_pins.h"
#include "liveness.h"
#include "pass.h"

#include "corral/abi.h"

#include <stdlib.h>
#include <string.h>

void check_module(polls_pass *pass)
{
    for (LLVMValueRef function = LLVMGetFirstFunction(pass->module); function;
         function = LLVMGetNextFunction(function)) {
        const char *gc = LLVMGetGC(function);
        if (gc && strcmp(gc, CORRAL_ABI_GC_STRATEGY) != 0 &&
            strcmp(gc, CORRAL_ABI_SHADOW_STACK_GC) != 0)
            pass_error(pass, function, NULL,
                       "uses gc \"%s\", which corral does not know: it accepts gc \"%s\" "
                       "(its own, also set on functions with no gc) and gc \"%s\" (roots "
                       "marked with llvm.gcroot, docs/gcroot.md)",
                       gc, CORRAL_ABI_GC_STRATEGY, CORRAL_ABI_SHADOW_STACK_GC);
        if (is_gc_statepoint_function(function) && LLVMGetFirstUse(function))
            pass_error(pass, NULL, NULL,
                       "the module already contains gc.statepoint calls: it was processed "
                       "before (run the pass once, on IR that has no statepoints)");
    }
}

/* Unmanaged C runs while a collection may move objects: it must never see a
 * raw reference. Runtime safepoint calls take no references either. */
static void check_call_arguments(polls_pass *pass, LLVMValueRef function, LLVMValueRef call,
                                 call_kind kind)
{
    LLVMValueRef callee = called_function(call);
    const char *callee_name = callee ? value_name(callee) : "(indirect)";
    unsigned count = LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < count; i++) {
        if (!type_contains_gc_pointer(LLVMTypeOf(LLVMGetOperand(call, i))))
            continue;
        if (kind == CALL_UNMANAGED)
            pass_error(pass, function, call,
                       "reference passed to unmanaged function '%s' (argument %u): unmanaged "
                       "C must not hold references; pass a handle (corral_handle_new), or "
                       "declare the function CORRAL_LEAF if it never blocks",
                       callee_name, i + 1);
        else
            pass_error(pass, function, call,
                       "reference passed to runtime safepoint call '%s' (argument %u): "
                       "safepoint calls take no references",
                       callee_name, i + 1);
    }
    if (kind == CALL_UNMANAGED && type_contains_gc_pointer(LLVMTypeOf(call)))
        pass_error(pass, function, call,
                   "unmanaged function '%s' returns a reference: it would be stale by the "
                   "time managed code sees it; return a handle, or declare the function "
                   "CORRAL_LEAF",
                   callee_name);
}

/* True when value is a reference computed as an offset into an object
 * (&object->field, &array[i]): a getelementptr whose offset is not known to
 * be zero, seen through no-op casts, or a phi or select that may choose one
 * (a loop that steps through an array and returns the slot it found).
 * visited holds the phis already followed, for loops. A tag offset
 * (--ref-tags) is none: it makes a tagged reference, a base of its own once
 * normalized. */
static int may_be_interior(const polls_pass *pass, LLVMValueRef value, ptr_table *visited)
{
    /* A raw pointer cast to a reference (the allocation fast path) is a base
     * of its own (normalize.c), whatever it was computed from. */
    if ((!LLVMIsAInstruction(value) && !LLVMIsAConstantExpr(value)) ||
        !type_is_gc_pointer(LLVMTypeOf(value)) || tag_offset(pass, value))
        return 0;
    if (LLVMIsAPHINode(value)) {
        if (ptr_table_contains(visited, value))
            return 0;
        ptr_table_put(visited, value, 1);
        unsigned incoming = LLVMCountIncoming(value);
        for (unsigned i = 0; i < incoming; i++)
            if (may_be_interior(pass, LLVMGetIncomingValue(value, i), visited))
                return 1;
        return 0;
    }
    if (LLVMIsASelectInst(value))
        return may_be_interior(pass, LLVMGetOperand(value, 1), visited) ||
               may_be_interior(pass, LLVMGetOperand(value, 2), visited);
    LLVMOpcode opcode = LLVMIsAInstruction(value) ? LLVMGetInstructionOpcode(value)
                                                  : LLVMGetConstOpcode(value);
    if (opcode == LLVMBitCast || opcode == LLVMAddrSpaceCast)
        return may_be_interior(pass, LLVMGetOperand(value, 0), visited);
    if (opcode != LLVMGetElementPtr)
        return 0;
    unsigned operands = (unsigned)LLVMGetNumOperands(value);
    for (unsigned i = 1; i < operands; i++) {
        LLVMValueRef index = LLVMGetOperand(value, i);
        if (!LLVMIsAConstantInt(index) || LLVMConstIntGetZExtValue(index) != 0)
            return 1;
    }
    return may_be_interior(pass, LLVMGetOperand(value, 0), visited);
}

int is_interior_reference(const polls_pass *pass, LLVMValueRef value)
{
    ptr_table visited;
    ptr_table_init(&visited);
    int interior = may_be_interior(pass, value, &visited);
    ptr_table_free(&visited);
    return interior;
}

/* Makes function always inlined (dropping clang's -O0 noinline); 1 when
 * that is new. */
static int make_always_inline(polls_pass *pass, LLVMValueRef function)
{
    unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", strlen("alwaysinline"));
    if (LLVMGetEnumAttributeAtIndex(function, LLVMAttributeFunctionIndex, always))
        return 0;
    remove_function_enum_attribute(function, "noinline");
    LLVMAddAttributeAtIndex(function, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(pass->context, always, 0));
    return 1;
}

/* A function or global defined here with internal linkage (C's static). */
static int is_static_definition(LLVMValueRef global)
{
    return !LLVMIsDeclaration(global) && has_internal_linkage(global);
}

/* Whether a call passes an interior reference to a static function. */
static int passes_interior_to_static(polls_pass *pass, LLVMValueRef caller, LLVMValueRef call)
{
    LLVMValueRef callee = called_function(call);
    if (!callee || callee == caller || !is_static_definition(callee))
        return 0;
    unsigned count = LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef argument = LLVMGetOperand(call, i);
        if (type_contains_gc_pointer(LLVMTypeOf(argument)) && is_interior_reference(pass, argument))
            return 1;
    }
    return 0;
}

/* A returned interior reference, or pointer into an object (a raw pointer
 * made from a reference, or strchr's result on one): a caller holding it
 * across a safepoint would not see it follow the object, as it does inside
 * one function (raw_pointers.c, frame_pins.c). */
static int returns_interior(polls_pass *pass, LLVMValueRef ret)
{
    if (LLVMGetNumOperands(ret) == 0)
        return 0;
    LLVMValueRef value = LLVMGetOperand(ret, 0);
    if (type_contains_gc_pointer(LLVMTypeOf(value)))
        return is_interior_reference(pass, value);
    return raw_pointer_into_object(value) != NULL;
}

void inline_interior_reference_helpers(polls_pass *pass)
{
    /* Inlining can expose a further call that passes one on: a few rounds. */
    for (int round = 0; round < 4; round++) {
        int marked = 0;
        for (LLVMValueRef function = LLVMGetFirstFunction(pass->module); function;
             function = LLVMGetNextFunction(function)) {
            if (LLVMIsDeclaration(function))
                continue;
            int is_static = is_static_definition(function);
            for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
                 block = LLVMGetNextBasicBlock(block))
                for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
                     inst = LLVMGetNextInstruction(inst)) {
                    if (is_call_site(inst) && passes_interior_to_static(pass, function, inst))
                        marked |= make_always_inline(pass, called_function(inst));
                    else if (is_static && LLVMIsAReturnInst(inst) && returns_interior(pass, inst))
                        marked |= make_always_inline(pass, function);
                }
        }
        if (!marked || run_pipeline(pass, "always-inline") != 0)
            return;
    }
}

/* A call that can reach a safepoint makes each reference argument a base in
 * the callee (RS4GC): an interior pointer would be taken for an object
 * start there, and so would one returned to a caller. */
static void check_interior_arguments(polls_pass *pass, LLVMValueRef function, LLVMValueRef call)
{
    LLVMValueRef callee = called_function(call);
    unsigned count = LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef argument = LLVMGetOperand(call, i);
        if (type_contains_gc_pointer(LLVMTypeOf(argument)) && is_interior_reference(pass, argument))
            pass_error(pass, function, call,
                       "interior reference (a pointer into an object, such as &object->field) "
                       "passed to '%s' (argument %u): the callee would take it for the start "
                       "of an object; pass the object and an offset%s",
                       callee ? value_name(callee) : "(indirect)", i + 1,
                       callee && is_static_definition(callee) ?
                           " (the pass inlines a static callee for this, but not this one: it calls "
                           "itself, takes ..., or calls setjmp)" :
                           ", or make the callee static (the pass then inlines it)");
    }
}

static void check_return(polls_pass *pass, LLVMValueRef function, LLVMValueRef ret)
{
    if (LLVMGetNumOperands(ret) == 0)
        return;
    LLVMValueRef value = LLVMGetOperand(ret, 0);
    if (type_contains_gc_pointer(LLVMTypeOf(value)) && is_interior_reference(pass, value))
        pass_error(pass, function, ret,
                   "returns an interior reference (a pointer into an object, such as "
                   "&object->field): the caller would take it for the start of an object; "
                   "return the object and an offset%s",
                   is_static_definition(function) ?
                       " (the pass inlines a static function for this, but not this one: it calls "
                       "itself, takes ..., or calls setjmp)" :
                       ", or make the function static (the pass then inlines it)");
}

/* Calls that become statepoints: shapes a statepoint cannot take. */
static void check_statepoint_shape(polls_pass *pass, LLVMValueRef function, LLVMValueRef call,
                                   call_kind kind)
{
    LLVMValueRef callee = called_function(call);
    const char *callee_name = callee ? value_name(callee) : "(indirect)";
    if (is_musttail_call(call)) {
        if (kind == CALL_MANAGED)
            pass_error(pass, function, call,
                       "musttail call to varargs function '%s': the pass rewrites managed "
                       "varargs calls (pins, results, %%al), which a tail jump cannot keep; "
                       "drop musttail",
                       callee_name);
        else
            pass_error(pass, function, call,
                       "musttail call to %s function '%s': it can reach a safepoint, and "
                       "the GC transition around it must run when it returns, so it cannot "
                       "be a tail jump; drop musttail, or mark the callee CORRAL_LEAF if it "
                       "never collects",
                       kind == CALL_SAFEPOINT ? "runtime" : "unmanaged", callee_name);
        return;
    }
    LLVMTypeRef type = LLVMGetCalledFunctionType(call);
    /* Managed definitions of this module are rewritten by varargs.c. */
    int rewritten = callee && (function_flags(pass, callee) & FUNCTION_MANAGED);
    if (kind == CALL_MANAGED && !rewritten && LLVMIsFunctionVarArg(type) &&
        LLVMGetTypeKind(LLVMGetReturnType(type)) != LLVMVoidTypeKind)
        pass_error(pass, function, call,
                   "%s%s%s that returns a value: a statepoint cannot wrap a varargs call "
                   "with a result (LLVM 19); return the result through a pointer argument, "
                   "or pass a va_list",
                   callee ? "call of external managed varargs function '" :
                            "indirect call of a varargs function",
                   callee ? callee_name : "", callee ? "'" : "");
}

static void check_call(polls_pass *pass, LLVMValueRef function, LLVMValueRef call)
{
    LLVMValueRef callee = called_function(call);
    if (is_setjmp_call(call))
        return; /* a direct leaf call; setjmp.c keeps what lives across it */
    if (call_returns_twice(call)) {
        pass_error(pass, function, call,
                   "call to '%s' returns twice, and only a direct call of a declared "
                   "setjmp-like function (setjmp, sigsetjmp, __builtin_setjmp) is supported "
                   "in managed code: not vfork, getcontext, an indirect call or a managed "
                   "definition",
                   callee ? value_name(callee) : "(indirect)");
        return;
    }
    call_kind kind = classify_call(pass, call);
    if (kind == CALL_UNMANAGED || kind == CALL_SAFEPOINT)
        check_call_arguments(pass, function, call, kind);
    if (kind == CALL_MANAGED || kind == CALL_SAFEPOINT || kind == CALL_UNMANAGED)
        check_statepoint_shape(pass, function, call, kind);
    if (kind == CALL_MANAGED || kind == CALL_MANAGED_TAIL)
        check_interior_arguments(pass, function, call);
    if (kind == CALL_UNMANAGED && !LLVMIsACallInst(call) && callee &&
        LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)))
        pass_error(pass, function, call,
                   "invoke of varargs unmanaged function '%s' is not supported; call it",
                   value_name(callee));
}

void check_function(polls_pass *pass, LLVMValueRef function)
{
    check_byval_reference_parameters(pass, function);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if (LLVMIsAAllocaInst(inst))
                check_stack_reference_slot(pass, function, inst);
            else if (is_call_site(inst))
                check_call(pass, function, inst);
            else if (LLVMIsAReturnInst(inst))
                check_return(pass, function, inst);
        }
}

/* ---- values RS4GC cannot relocate, live across a safepoint */

typedef enum taint {
    TAINT_NONE,
    TAINT_INTEGER,     /* an address computed from a reference as an integer */
    TAINT_RAW_POINTER, /* a reference cast to a non-GC pointer */
} taint;

static int is_reference_operand(LLVMValueRef value)
{
    return type_contains_gc_pointer(LLVMTypeOf(value));
}

/* Where an address leaves the collector's view. */
static taint taint_source(LLVMValueRef inst)
{
    LLVMOpcode opcode = LLVMGetInstructionOpcode(inst);
    if (opcode == LLVMPtrToInt && is_reference_operand(LLVMGetOperand(inst, 0)))
        return TAINT_INTEGER;
    if (opcode == LLVMBitCast && is_reference_operand(LLVMGetOperand(inst, 0)) &&
        !type_contains_gc_pointer(LLVMTypeOf(inst)))
        return TAINT_INTEGER;
    if (opcode == LLVMAddrSpaceCast && is_reference_operand(LLVMGetOperand(inst, 0)) &&
        !type_contains_gc_pointer(LLVMTypeOf(inst)) && !is_frame_pinned(inst))
        return TAINT_RAW_POINTER; /* a frame pin keeps the object in place */
    return TAINT_NONE;
}

static int is_small_constant(LLVMValueRef value)
{
    return LLVMIsAConstantInt(value) && LLVMConstIntGetZExtValue(value) < 4096;
}

/* Is value an address computed from a reference (looking a few steps back)? */
static int derives_from_reference(LLVMValueRef value, int depth)
{
    if (!LLVMIsAInstruction(value) || depth > 8)
        return 0;
    if (taint_source(value) != TAINT_NONE)
        return 1;
    switch (LLVMGetInstructionOpcode(value)) {
    case LLVMAdd: case LLVMOr: case LLVMXor: case LLVMTrunc: case LLVMZExt: case LLVMSExt:
    case LLVMGetElementPtr: case LLVMBitCast: case LLVMPtrToInt: case LLVMIntToPtr:
    case LLVMFreeze:
        for (int i = 0; i < LLVMGetNumOperands(value); i++)
            if (derives_from_reference(LLVMGetOperand(value, (unsigned)i), depth + 1))
                return 1;
        return 0;
    default:
        return 0;
    }
}

/* Does user, with a tainted operand, still hold an address? Differences of
 * two addresses and low-bit masks do not move with the object. */
static int propagates_taint(LLVMValueRef user)
{
    switch (LLVMGetInstructionOpcode(user)) {
    case LLVMSub:
        return !(derives_from_reference(LLVMGetOperand(user, 0), 0) &&
                 derives_from_reference(LLVMGetOperand(user, 1), 0));
    case LLVMAnd:
        return !is_small_constant(LLVMGetOperand(user, 0)) &&
               !is_small_constant(LLVMGetOperand(user, 1));
    case LLVMAdd: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMOr:
    case LLVMXor: case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMPHI:
    case LLVMSelect: case LLVMFreeze: case LLVMGetElementPtr: case LLVMBitCast:
    case LLVMPtrToInt: case LLVMInsertValue: case LLVMExtractValue:
        /* An aggregate of integers holding an address (AArch64's [2 x i64]
         * struct return) holds it in every element, as far as this knows. */
        return !type_contains_gc_pointer(LLVMTypeOf(user));
    case LLVMIntToPtr:
    case LLVMAddrSpaceCast:
        /* Back to a reference: a new base, relocated by RS4GC from here on. */
        return !type_contains_gc_pointer(LLVMTypeOf(user));
    default:
        return 0;
    }
}

/* The object root (a cast or ptrtoint of a reference) was made from, when
 * the function has frame pins, or NULL. */
static LLVMValueRef object_of_root(const frame_pin_index *pins, LLVMValueRef root)
{
    return pins->pins.count ? object_of_address(LLVMGetOperand(root, 0)) : NULL;
}

/* That object when it has one value from root on, so that a frame pin of
 * it holds it until the function returns; NULL for one a loop defines
 * again, whose site pins each new value in turn. */
static LLVMValueRef pinnable_object(const frame_pin_index *pins, LLVMValueRef root)
{
    LLVMValueRef object = object_of_root(pins, root);
    return object && !defined_again_after(pins->graph, object, root) ? object : NULL;
}

/* tainted: value -> enum taint; roots: value -> the cast it came from. A
 * user that runs where a frame pin holds the object computes from an
 * address that no longer changes (any move before would have been found
 * on the way): it is not tainted, when the object has one value from the
 * root on. A subtraction is not, even when a loop defines the object
 * again: `end - (char *)s->data` taken while s is pinned is an offset
 * into s, whatever later rounds pin. */
static void collect_tainted(LLVMValueRef function, const frame_pin_index *pins,
                            ptr_table *tainted, ptr_table *roots, value_list *order)
{
    value_list worklist = {0};
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            taint kind = taint_source(inst);
            if (kind != TAINT_NONE && !ptr_table_contains(tainted, inst)) {
                ptr_table_put(tainted, inst, kind);
                ptr_table_put(roots, inst, (uintptr_t)inst);
                VEC_PUSH(worklist, inst);
                VEC_PUSH(*order, inst);
            }
        }
    while (worklist.count > 0) {
        LLVMValueRef value = worklist.items[--worklist.count];
        uintptr_t kind = TAINT_NONE, root = 0;
        ptr_table_get(tainted, value, &kind);
        ptr_table_get(roots, value, &root);
        for (LLVMUseRef use = LLVMGetFirstUse(value); use; use = LLVMGetNextUse(use)) {
            LLVMValueRef user = LLVMGetUser(use);
            if (!LLVMIsAInstruction(user) || ptr_table_contains(tainted, user) ||
                !propagates_taint(user))
                continue;
            LLVMValueRef object = LLVMGetInstructionOpcode(user) == LLVMSub
                                      ? object_of_root(pins, (LLVMValueRef)root)
                                      : pinnable_object(pins, (LLVMValueRef)root);
            if (object && frame_pin_holds(pins, object, user))
                continue;
            ptr_table_put(tainted, user, kind);
            ptr_table_put(roots, user, root);
            VEC_PUSH(worklist, user);
            VEC_PUSH(*order, user);
        }
    }
    free(worklist.items);
}

char *describe_value(LLVMValueRef value)
{
    const char *name = value_name(value);
    if (*name)
        return xasprintf("'%%%s'", name);
    char *text = LLVMPrintValueToString(value);
    const char *start = text;
    while (*start == ' ')
        start++;
    char *copy = xasprintf("'%.60s'", start);
    LLVMDisposeMessage(text);
    return copy;
}

char *describe_safepoint(const polls_pass *pass, LLVMValueRef call)
{
    char *where = source_location_suffix(call);
    char *text;
    if (classify_call(pass, call) == CALL_POLL)
        text = xasprintf("a poll%s", where);
    else {
        LLVMValueRef callee = called_function(call);
        text = xasprintf("the call to '%s'%s", callee ? value_name(callee) : "(indirect)", where);
    }
    free(where);
    return text;
}

/* The operand of a two-operand user that is not value. */
static LLVMValueRef other_operand(LLVMValueRef user, LLVMValueRef value)
{
    return LLVMGetOperand(user, LLVMGetOperand(user, 0) == value ? 1 : 0);
}

/* True when user follows value's definition in its block with no call in
 * between: it reads value before any safepoint. */
static int used_before_any_call(LLVMValueRef value, LLVMValueRef user)
{
    if (!LLVMIsAInstruction(value) ||
        LLVMGetInstructionParent(value) != LLVMGetInstructionParent(user))
        return 0;
    for (LLVMValueRef inst = LLVMGetNextInstruction(value); inst;
         inst = LLVMGetNextInstruction(inst)) {
        if (inst == user)
            return 1;
        if (is_call_site(inst))
            return 0;
    }
    return 0;
}

/* True when value ends up only masked to its low three bits: a reference's
 * alignment and tag bits (corral/tagged.h), which do not change when the
 * object moves, so the integer may cross a safepoint. The way there may
 * truncate (to three bits or fewer: done), and add, subtract, or and xor
 * constants (low bits of a result depend only on low bits of the operands;
 * a tag is added that way). A reference made from it (inttoptr) before any
 * call reads it in time: normalize.c tags references so, and optimisation
 * then takes the tag bits later from the same integer. */
static int only_tag_bits_used(LLVMValueRef value)
{
    for (LLVMUseRef use = LLVMGetFirstUse(value); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (!LLVMIsAInstruction(user))
            return 0;
        switch (LLVMGetInstructionOpcode(user)) {
        case LLVMTrunc:
            if (LLVMGetIntTypeWidth(LLVMTypeOf(user)) > 3 && !only_tag_bits_used(user))
                return 0;
            break;
        case LLVMAdd: case LLVMSub: case LLVMOr: case LLVMXor:
            if (!LLVMIsAConstantInt(other_operand(user, value)) || !only_tag_bits_used(user))
                return 0;
            break;
        case LLVMIntToPtr:
            if (!used_before_any_call(value, user))
                return 0;
            break;
        case LLVMAnd: {
            LLVMValueRef mask = other_operand(user, value);
            if (!LLVMIsAConstantInt(mask) || LLVMConstIntGetZExtValue(mask) > 7)
                return 0;
            break;
        }
        default:
            return 0;
        }
    }
    return 1;
}

/* A safepoint where a frame pin holds the object a value was made from
 * does not move it (frame_pins.c). */
typedef struct pinned_object {
    const frame_pin_index *pins;
    LLVMValueRef object;
} pinned_object;

static int counts_unless_pinned(LLVMValueRef safepoint, void *context)
{
    const pinned_object *pinned = context;
    return !frame_pin_holds(pinned->pins, pinned->object, safepoint);
}

/* Whether value may be live where inst runs (conservative: live into
 * inst's block counts wherever in the block it dies). */
static int live_at(const safepoint_map *map, LLVMValueRef value, LLVMValueRef inst)
{
    LLVMBasicBlockRef block = LLVMGetInstructionParent(inst);
    if (live_into_block(map, value, block))
        return 1;
    if (!LLVMIsAInstruction(value) || LLVMGetInstructionParent(value) != block)
        return 0;
    uintptr_t defined = 0, at = 0, used = 0;
    ptr_table_get(&map->position, value, &defined);
    ptr_table_get(&map->position, inst, &at);
    if (defined > at)
        return 0;
    for (LLVMUseRef use = LLVMGetFirstUse(value); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsAPHINode(user) || LLVMGetInstructionParent(user) != block)
            return 1;
        if (ptr_table_get(&map->position, user, &used) && used > at)
            return 1;
    }
    return 0;
}

/* Whether a frame pin keeps the object of root's values in place wherever
 * it holds: the object has one value from root on, or a loop defines it
 * again but none of root's values lives on to that definition (each round
 * uses only what it made from the round's object, which the site pins). */
static int pins_cover_root(const safepoint_map *map, const frame_pin_index *pins,
                           LLVMValueRef root, const ptr_table *roots, const value_list *order)
{
    LLVMValueRef object = object_of_root(pins, root);
    if (!object)
        return 0;
    if (!defined_again_after(pins->graph, object, root))
        return 1;
    for (size_t i = 0; i < order->count; i++) {
        uintptr_t from = 0;
        if (ptr_table_get(roots, order->items[i], &from) && (LLVMValueRef)from == root &&
            live_at(map, order->items[i], object))
            return 0;
    }
    return 1;
}

static void check_tainted_values(polls_pass *pass, LLVMValueRef function,
                                 const safepoint_map *map)
{
    ptr_table tainted, roots, reported, covered; /* covered: root -> 1 + whether pins cover it */
    ptr_table_init(&tainted);
    ptr_table_init(&roots);
    ptr_table_init(&reported);
    ptr_table_init(&covered);
    value_list order = {0};
    frame_pin_index pins;
    frame_pin_index_build(&pins, &map->graph);
    collect_tainted(function, &pins, &tainted, &roots, &order);
    for (size_t i = 0; i < order.count; i++) {
        LLVMValueRef value = order.items[i];
        uintptr_t kind = TAINT_NONE, root = 0;
        ptr_table_get(&roots, value, &root);
        /* One message per cast: what follows from it is the same mistake. */
        if (ptr_table_contains(&reported, (void *)root))
            continue;
        uintptr_t cover = 0;
        if (!ptr_table_get(&covered, (void *)root, &cover)) {
            cover = 1 + pins_cover_root(map, &pins, (LLVMValueRef)root, &roots, &order);
            ptr_table_put(&covered, (void *)root, cover);
        }
        LLVMValueRef crossed;
        if (cover == 2) {
            pinned_object pinned = {&pins, object_of_root(&pins, (LLVMValueRef)root)};
            crossed = live_across_safepoint_where(map, value, counts_unless_pinned, &pinned);
        } else {
            crossed = live_across_safepoint(map, value);
        }
        if (!crossed || only_tag_bits_used(value))
            continue;
        ptr_table_put(&reported, (void *)root, 1);
        ptr_table_get(&tainted, value, &kind);
        char *what = describe_value(value);
        char *where = describe_safepoint(pass, crossed);
        LLVMValueRef object = object_of_root(&pins, (LLVMValueRef)root);
        int pinned_in_loop = object && frame_pin_holds(&pins, object, crossed);
        pass_error(pass, function, value,
                   "%s %s, made from a reference, is live across %s: the object may move "
                   "there; recompute it from the reference after the call, or pin the object%s%s",
                   kind == TAINT_RAW_POINTER ? "raw pointer" : "integer", what, where,
                   kind == TAINT_RAW_POINTER ? ""
                                             : "; for a tagged immediate's payload use "
                                               "corral_untag_int (corral/tagged.h)",
                   pinned_in_loop ? "; a frame pin holds only the object of the loop's "
                                    "current round, so move the code that keeps pointers into "
                                    "it into a function of its own, called once per object"
                                  : "");
        free(what);
        free(where);
    }
    free(order.items);
    frame_pin_index_free(&pins);
    ptr_table_free(&tainted);
    ptr_table_free(&roots);
    ptr_table_free(&reported);
    ptr_table_free(&covered);
}

static void check_aggregate(polls_pass *pass, LLVMValueRef function, const safepoint_map *map,
                            LLVMValueRef value)
{
    if (!type_is_gc_aggregate(LLVMTypeOf(value)))
        return;
    LLVMValueRef crossed = live_across_safepoint(map, value);
    if (!crossed)
        return;
    char *what = describe_value(value);
    char *where = describe_safepoint(pass, crossed);
    pass_error(pass, function, LLVMIsAInstruction(value) ? value : NULL,
               "aggregate value %s holding references is live across %s, and the pass "
               "could not split it into fields: RS4GC cannot relocate references inside "
               "aggregates; keep such structs in heap objects",
               what, where);
    free(what);
    free(where);
}

/* RS4GC (LLVM 19) relocates a reference live across a safepoint invoke on
 * the unwind edge too, anchoring that gc.relocate on the landingpad, which
 * must then be a token: with the landingpad { ptr, i32 } that frontends
 * emit it makes invalid IR. landing_pads.c moved what it could into the
 * frame; what is left is refused here. */
static int is_invoke(LLVMValueRef safepoint, void *invoke)
{
    return safepoint == invoke;
}

static int holds_references(LLVMValueRef value)
{
    return type_contains_gc_pointer(LLVMTypeOf(value));
}

static void check_landing_pad_references(polls_pass *pass, LLVMValueRef function,
                                         const safepoint_map *map)
{
    value_list references = {0}; /* the function's references, listed at the first such call */
    int listed = 0;
    for (size_t b = 0; b < map->graph.block_count; b++) {
        for (size_t i = 0; i < map->calls[b].count; i++) {
            LLVMValueRef invoke = map->calls[b].items[i];
            if (!value_landing_pad(invoke))
                continue;
            if (!listed) {
                collect_values(function, holds_references, &references);
                listed = 1;
            }
            for (size_t r = 0; r < references.count; r++) {
                if (!live_across_safepoint_where(map, references.items[r], is_invoke, invoke))
                    continue;
                char *what = describe_value(references.items[r]);
                char *where = describe_safepoint(pass, invoke);
                pass_error(pass, function, invoke,
                           "reference %s is live across %s, which may unwind into a landing "
                           "pad (a C cleanup under -fexceptions): RS4GC (LLVM 19) cannot "
                           "relocate it on that edge, and only references and pointers made "
                           "from one reference are kept in the frame across it; choose the "
                           "pointer after the call, or build without -fexceptions",
                           what, where);
                free(what);
                free(where);
                break; /* one message per invoke */
            }
        }
    }
    free(references.items);
}

void check_live_across_safepoints(polls_pass *pass, LLVMValueRef function)
{
    safepoint_map map;
    safepoint_map_build(&map, pass, function);
    check_tainted_values(pass, function, &map);
    check_landing_pad_references(pass, function, &map);
    for (LLVMValueRef arg = LLVMGetFirstParam(function); arg; arg = LLVMGetNextParam(arg))
        check_aggregate(pass, function, &map, arg);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            check_aggregate(pass, function, &map, inst);
    safepoint_map_free(&map);
}

/* ---- globals holding references */

/* Whether address (a global or an address inside it) is only loaded from
 * and stored to: nothing else sees it, so nothing can have registered it. */
static int only_accessed(LLVMValueRef address)
{
    for (LLVMUseRef use = LLVMGetFirstUse(address); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsALoadInst(user))
            continue;
        if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) != address)
            continue;
        /* This thread's instance of a thread-local global is another address of it. */
        LLVMValueRef callee = is_call_site(user) ? called_function(user) : NULL;
        int thread_address =
            callee && strncmp(value_name(callee), "llvm.threadlocal.address", 24) == 0;
        int derived = LLVMIsAGetElementPtrInst(user) || thread_address ||
                      (LLVMIsAConstantExpr(user) &&
                       (LLVMGetConstOpcode(user) == LLVMGetElementPtr ||
                        LLVMGetConstOpcode(user) == LLVMBitCast ||
                        LLVMGetConstOpcode(user) == LLVMAddrSpaceCast));
        if (derived && LLVMGetOperand(user, 0) == address && only_accessed(user))
            continue;
        return 0; /* passed to a call, stored, compared, cast: it may be registered */
    }
    return 1;
}

/* A global holding references is a root only once registered
 * (corral_global_root_add(&global), docs/managed-c.md rule 8): registration
 * passes its address to a call. One whose address goes nowhere cannot be
 * registered, and the collector would leave it pointing where its objects
 * were: an error when static, a warning otherwise (C elsewhere may register
 * an external one). A constant holds none to update (no object exists when
 * it is made): clang copies locals' initial values, pattern or zeroes, from
 * such globals. */
void check_reference_globals(polls_pass *pass)
{
    for (LLVMValueRef global = LLVMGetFirstGlobal(pass->module); global;
         global = LLVMGetNextGlobal(global)) {
        if (LLVMIsDeclaration(global) || LLVMIsGlobalConstant(global) ||
            !type_contains_gc_pointer(LLVMGlobalGetValueType(global)) ||
            !LLVMGetFirstUse(global) || !only_accessed(global))
            continue;
        const char *text = "%sglobal '%s' holds references but its address is never passed "
                           "to anything, so it is never registered (corral_global_root_add(&%s)): "
                           "the collector would not update it when its objects move%s";
        int per_thread = LLVMIsThreadLocal(global);
        const char *kind = per_thread ? "thread-local " : "";
        if (is_static_definition(global))
            pass_error(pass, NULL, NULL, text, kind, value_name(global), value_name(global),
                       per_thread ? "; register each thread's instance before storing a "
                                    "reference there and remove it before the thread exits, "
                                    "or keep the reference in a handle" :
                                    "; register it once before storing a reference, or keep "
                                    "the reference in a handle");
        else
            pass_warning(pass, NULL, NULL, text, kind, value_name(global), value_name(global),
                         ", unless C code elsewhere registers it");
    }
}
