/* call_pins.c — objects pinned for the duration of one call.
 *
 * Two kinds of argument hold an object's address where no stackmap sees it:
 * references passed through "..." (below), and raw pointers into an object
 * (raw_pointers.c decides which; the callee holds the only copy). Both pin
 * the object around the call with the same pair of runtime calls.
 *
 * A reference passed as a variadic argument lands in memory no stackmap
 * describes: the callee's register save area or the caller's outgoing
 * argument area, which va_arg reads later. A collection during the call
 * would move the object and leave that copy stale. The caller pins each such
 * reference for the duration of the call (pinned objects neither move nor
 * die), as CoreCLR pins arrays passed to native code:
 *
 *   call f(i32 n, ptr addrspace(1) %a)          ; f is (i32, ...)
 *     becomes
 *   call CORRAL_ABI_PIN_FOR_CALL(%a)            ; gc-leaf, accepts null
 *   call f(i32 n, ptr addrspace(1) %a)          ; the statepoint
 *   call CORRAL_ABI_UNPIN_AFTER_CALL(%a)        ; %a relocated by RS4GC
 *
 * Only calls that stay statepoints (managed callees, indirect calls) need
 * it: references passed to unmanaged C are rejected by checks.c. A call that
 * cannot be followed by the unpin (invoke, musttail) or a variadic argument
 * that holds references other than as one pointer is rejected here.
 */
#include "pass.h"

#include "corral/abi.h"

#include <stdlib.h>

static void call_pin_function(polls_pass *pass, const char *name, LLVMValueRef reference)
{
    LLVMTypeRef reference_type = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    LLVMValueRef function = declare_leaf_function(
        pass, name, LLVMFunctionType(LLVMVoidTypeInContext(pass->context), &reference_type, 1, 0));
    LLVMValueRef call = LLVMBuildCall2(pass->builder, LLVMGlobalGetValueType(function), function,
                                       &reference, 1, "");
    add_call_string_attribute(call, "gc-leaf-function", "");
}

/* The variadic arguments of call that are references, or -1 after an error. */
static int variadic_references(polls_pass *pass, LLVMValueRef function, LLVMValueRef call,
                               value_list *references)
{
    LLVMTypeRef callee_type = LLVMGetCalledFunctionType(call);
    if (!LLVMIsFunctionVarArg(callee_type))
        return 0;
    unsigned fixed = LLVMCountParamTypes(callee_type);
    unsigned count = LLVMGetNumArgOperands(call);
    LLVMValueRef callee = called_function(call);
    const char *callee_name = callee ? value_name(callee) : "(indirect)";
    for (unsigned i = fixed; i < count; i++) {
        LLVMValueRef argument = LLVMGetOperand(call, i);
        LLVMTypeRef type = LLVMTypeOf(argument);
        if (!type_contains_gc_pointer(type))
            continue;
        if (!type_is_gc_pointer(type)) {
            pass_error(pass, function, call,
                       "variadic argument %u of '%s' holds references inside a vector or "
                       "aggregate: the collector cannot see it; pass each reference as its "
                       "own argument",
                       i + 1, callee_name);
            return -1;
        }
        if (LLVMIsConstant(argument))
            continue; /* null: nothing to pin */
        VEC_PUSH(*references, argument);
    }
    return (int)references->count;
}

/* Whether the pin taken before call can be dropped right after it. */
static int can_unpin_after(polls_pass *pass, LLVMValueRef function, LLVMValueRef call)
{
    LLVMValueRef callee = called_function(call);
    const char *callee_name = callee ? value_name(callee) : "(indirect)";
    if (!LLVMIsACallInst(call)) {
        pass_error(pass, function, call,
                   "invoke of '%s' with a reference through \"...\" or a raw pointer into an "
                   "object among its arguments is not supported (the object is pinned for "
                   "the call, and an invoke has two continuations); call it",
                   callee_name);
        return 0;
    }
    if (LLVMGetTailCallKind(call) == LLVMTailCallKindMustTail) {
        pass_error(pass, function, call,
                   "musttail call of '%s' with a reference through \"...\" or a raw pointer "
                   "into an object among its arguments: the object must stay pinned until "
                   "the call returns; drop musttail",
                   callee_name);
        return 0;
    }
    return 1;
}

void pin_objects_for_call(polls_pass *pass, LLVMValueRef function, LLVMValueRef call,
                          const value_list *objects)
{
    if (!can_unpin_after(pass, function, call))
        return;
    LLVMPositionBuilderBefore(pass->builder, call);
    for (size_t i = 0; i < objects->count; i++)
        call_pin_function(pass, CORRAL_ABI_PIN_FOR_CALL, objects->items[i]);
    LLVMValueRef after = LLVMGetNextInstruction(call);
    LLVMPositionBuilderBefore(pass->builder, after);
    for (size_t i = 0; i < objects->count; i++)
        call_pin_function(pass, CORRAL_ABI_UNPIN_AFTER_CALL, objects->items[i]);
}

void pin_variadic_references(polls_pass *pass, LLVMValueRef function)
{
    value_list references = {0};
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if (!is_call_site(inst) || classify_call(pass, inst) != CALL_MANAGED)
                continue;
            references.count = 0;
            if (variadic_references(pass, function, inst, &references) > 0)
                pin_objects_for_call(pass, function, inst, &references);
        }
    free(references.items);
}
