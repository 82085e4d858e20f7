/* varargs.c — managed varargs functions that return a value.
 *
 * A statepoint cannot wrap a call of a varargs function with a result
 * (LLVM 19: "gc.statepoint doesn't support wrapping non-void vararg
 * functions yet"). For a managed varargs function that only this module can
 * call (internal linkage, only direct calls), the result is passed through
 * memory instead:
 *
 *   int f(a, ...)        becomes   void f(int *result, a, ...)
 *   x = f(a, b)          becomes   f(&slot, a, b); x = slot
 *
 * The slot is a stack temporary of the result type, which must not hold a
 * reference (the collector does not see stack memory). Anything else is
 * rejected with advice.
 */
#include "pass.h"

#include <llvm-c/DebugInfo.h>

#include <stdlib.h>
#include <string.h>

static int returns_value(LLVMValueRef function)
{
    LLVMTypeRef type = LLVMGlobalGetValueType(function);
    return LLVMIsFunctionVarArg(type) &&
           LLVMGetTypeKind(LLVMGetReturnType(type)) != LLVMVoidTypeKind;
}

/* Every use is a direct call of the function (not an argument, not stored). */
static int only_called_directly(LLVMValueRef function)
{
    for (LLVMUseRef use = LLVMGetFirstUse(function); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (!LLVMIsACallInst(user) || LLVMGetCalledValue(user) != function)
            return 0;
        for (unsigned i = 0; i < LLVMGetNumArgOperands(user); i++)
            if (LLVMGetOperand(user, i) == function)
                return 0;
    }
    return 1;
}

static int can_rewrite(polls_pass *pass, LLVMValueRef function)
{
    LLVMTypeRef result = LLVMGetReturnType(LLVMGlobalGetValueType(function));
    if (type_contains_gc_pointer(result)) {
        pass_error(pass, function, NULL,
                   "a managed varargs function cannot return a reference (statepoints cannot "
                   "wrap varargs calls with a result); return it through a heap object, or "
                   "take a va_list");
        return 0;
    }
    LLVMLinkage linkage = LLVMGetLinkage(function);
    if ((linkage != LLVMInternalLinkage && linkage != LLVMPrivateLinkage) ||
        !only_called_directly(function)) {
        pass_error(pass, function, NULL,
                   "a managed varargs function that returns a value must be static and only "
                   "called directly (statepoints cannot wrap varargs calls with a result); "
                   "make it static, return void, or take a va_list");
        return 0;
    }
    return 1;
}

static LLVMValueRef create_void_version(LLVMValueRef function)
{
    LLVMTypeRef type = LLVMGlobalGetValueType(function);
    unsigned count = LLVMCountParamTypes(type);
    LLVMTypeRef *params = xcalloc(count + 1, sizeof *params);
    LLVMContextRef context = LLVMGetTypeContext(type);
    params[0] = LLVMPointerTypeInContext(context, 0);
    LLVMGetParamTypes(type, params + 1);
    LLVMTypeRef void_type = LLVMFunctionType(LLVMVoidTypeInContext(context), params, count + 1, 1);
    free(params);
    LLVMModuleRef module = LLVMGetGlobalParent(function);
    LLVMValueRef replacement = LLVMAddFunction(module, "corral.varargs.tmp", void_type);
    LLVMSetLinkage(replacement, LLVMInternalLinkage);
    /* Function attributes carry over; parameter attributes shift by one. */
    unsigned attribute_count = LLVMGetAttributeCountAtIndex(function, LLVMAttributeFunctionIndex);
    LLVMAttributeRef *attributes = xcalloc(attribute_count + 1, sizeof *attributes);
    LLVMGetAttributesAtIndex(function, LLVMAttributeFunctionIndex, attributes);
    for (unsigned i = 0; i < attribute_count; i++)
        LLVMAddAttributeAtIndex(replacement, LLVMAttributeFunctionIndex, attributes[i]);
    free(attributes);
    unsigned returned = LLVMGetEnumAttributeKindForName("returned", strlen("returned"));
    for (unsigned p = 1; p <= count; p++) {
        unsigned n = LLVMGetAttributeCountAtIndex(function, p);
        LLVMAttributeRef *param_attributes = xcalloc(n + 1, sizeof *param_attributes);
        LLVMGetAttributesAtIndex(function, p, param_attributes);
        for (unsigned i = 0; i < n; i++) {
            /* The function returns nothing now, so no argument is "returned". */
            if (LLVMIsEnumAttribute(param_attributes[i]) &&
                LLVMGetEnumAttributeKind(param_attributes[i]) == returned)
                continue;
            LLVMAddAttributeAtIndex(replacement, p + 1, param_attributes[i]);
        }
        free(param_attributes);
    }
    LLVMSetSubprogram(replacement, LLVMGetSubprogram(function));
    LLVMSetSubprogram(function, NULL);
    return replacement;
}

static void move_body(polls_pass *pass, LLVMValueRef from, LLVMValueRef to)
{
    LLVMBasicBlockRef block;
    while ((block = LLVMGetFirstBasicBlock(from))) {
        LLVMRemoveBasicBlockFromParent(block);
        LLVMAppendExistingBasicBlock(to, block);
    }
    LLVMValueRef old_param = LLVMGetFirstParam(from);
    LLVMValueRef new_param = LLVMGetNextParam(LLVMGetFirstParam(to));
    for (; old_param; old_param = LLVMGetNextParam(old_param), new_param = LLVMGetNextParam(new_param)) {
        LLVMSetValueName2(new_param, value_name(old_param), strlen(value_name(old_param)));
        LLVMReplaceAllUsesWith(old_param, new_param);
    }
    /* ret %x  ->  store %x, %result; ret void */
    LLVMValueRef result_slot = LLVMGetFirstParam(to);
    for (block = LLVMGetFirstBasicBlock(to); block; block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef terminator = LLVMGetBasicBlockTerminator(block);
        if (!terminator || LLVMGetInstructionOpcode(terminator) != LLVMRet)
            continue;
        LLVMPositionBuilderBefore(pass->builder, terminator);
        LLVMBuildStore(pass->builder, LLVMGetOperand(terminator, 0), result_slot);
        LLVMValueRef ret = LLVMBuildRetVoid(pass->builder);
        LLVMInstructionSetDebugLoc(ret, LLVMInstructionGetDebugLoc(terminator));
        LLVMInstructionEraseFromParent(terminator);
    }
}

static void rewrite_calls(polls_pass *pass, LLVMValueRef from, LLVMValueRef to)
{
    LLVMTypeRef result_type = LLVMGetReturnType(LLVMGlobalGetValueType(from));
    LLVMTypeRef to_type = LLVMGlobalGetValueType(to);
    LLVMUseRef use;
    while ((use = LLVMGetFirstUse(from))) {
        LLVMValueRef call = LLVMGetUser(use);
        LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(caller);
        LLVMPositionBuilder(pass->builder, entry, LLVMGetFirstInstruction(entry));
        LLVMValueRef slot = LLVMBuildAlloca(pass->builder, result_type, "corral.varargs.result");
        unsigned count = LLVMGetNumArgOperands(call);
        LLVMValueRef *args = xcalloc(count + 1, sizeof *args);
        args[0] = slot;
        for (unsigned i = 0; i < count; i++)
            args[i + 1] = LLVMGetOperand(call, i);
        LLVMPositionBuilderBefore(pass->builder, call);
        LLVMValueRef direct = LLVMBuildCall2(pass->builder, to_type, to, args, count + 1, "");
        free(args);
        LLVMInstructionSetDebugLoc(direct, LLVMInstructionGetDebugLoc(call));
        LLVMValueRef value = LLVMBuildLoad2(pass->builder, result_type, slot, "");
        LLVMReplaceAllUsesWith(call, value);
        LLVMInstructionEraseFromParent(call);
    }
}

void return_varargs_results_through_memory(polls_pass *pass)
{
    for (size_t i = 0; i < pass->managed_functions.count; i++) {
        LLVMValueRef function = pass->managed_functions.items[i];
        if (!returns_value(function) || !LLVMGetFirstUse(function) || !can_rewrite(pass, function))
            continue;
        LLVMValueRef replacement = create_void_version(function);
        move_body(pass, function, replacement);
        rewrite_calls(pass, function, replacement);
        char *name = xstrdup(value_name(function));
        unsigned flags = function_flags(pass, function);
        ptr_table_put(&pass->function_flags, function, 0);
        LLVMDeleteFunction(function);
        LLVMSetValueName2(replacement, name, strlen(name));
        free(name);
        function_add_flags(pass, replacement, flags);
        pass->managed_functions.items[i] = replacement;
    }
}
