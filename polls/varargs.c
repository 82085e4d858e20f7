/* varargs.c — varargs call types a statepoint cannot wrap.
 *
 * 1. Calls through a declaration without a prototype. `int f();` in one
 *    file and `int f(int a) {...}` in another (or a call with arguments of
 *    a function defined `f()`) make `call i32 (i32, ...) @f(i32 1)` of a
 *    function whose type is `i32 (i32)`: a varargs call with a result,
 *    which a statepoint cannot wrap. Such a call becomes a call of the
 *    function's own type, with the arguments it declares (extra ones, which
 *    the callee never reads, are dropped: what the machine does with them).
 *    A call whose arguments do not match the definition's parameters is
 *    undefined behaviour in C, and rejected by name.
 *
 * 2. Managed varargs functions that return a value.
 *
 * A statepoint cannot wrap a call of a varargs function with a result
 * (LLVM 19: "gc.statepoint doesn't support wrapping non-void vararg
 * functions yet"). For a managed varargs function that only this module can
 * call (internal linkage, or external in a whole program; only direct
 * calls), the result is passed through a thread-local variable instead:
 *
 *   int f(a, ...)        becomes   void f(a, ...)   (ret x: result.f = x)
 *   x = f(a, b)          becomes   f(a, b); x = result.f
 *
 * not through an extra argument: clang has already assigned the arguments
 * to registers (an __int128 split into two i64 that fit the last two), and
 * one more would shift them. The callee stores after its return poll, the
 * caller loads right after the call, so nothing runs on the thread between.
 * The result must not hold a reference (the collector does not see the
 * variable). Anything else is rejected with advice.
 *
 * 3. sret on varargs calls. LLVM 19's verifier rejects sret among a
 *    statepoint's arguments when the wrapped callee is varargs ("Attribute
 *    'sret' cannot be used for vararg call arguments"), so a varargs
 *    function returning a struct in memory could not be called. x86-64
 *    passes the result pointer like the first argument, so the call drops
 *    the attribute; AArch64 passes it in x8, so there the callee and every
 *    call of it drop it together, which needs every call in the module.
 *
 * 4. The vector-register count of varargs calls (x86-64, at the end). The
 *    SysV caller of a varargs function passes in %al an upper bound of the
 *    vector registers holding its arguments, and the callee's prologue saves
 *    xmm0-7 for va_arg only when %al is not 0. LLVM 19 lowers a statepoint
 *    as a call that is not varargs, so %al holds whatever was there, and a
 *    double passed through "..." read back as garbage when that was 0.
 */
#include "pass.h"
#include "target.h"

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

/* Every call of the function is a direct call in this module, so its
 * calling convention may change. In a whole program every caller is in this
 * module; a weak definition could still be replaced by another object's. */
static int module_makes_every_call(const polls_pass *pass, LLVMValueRef function)
{
    int only_this_module_calls =
        has_internal_linkage(function) ||
        (LLVMGetLinkage(function) == LLVMExternalLinkage && pass->options.whole_program);
    return only_this_module_calls && only_called_directly(function);
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
    if (!module_makes_every_call(pass, function)) {
        pass_error(pass, function, NULL,
                   "a managed varargs function that returns a value must be static, or "
                   "not weak in a whole program (corralc links executables with "
                   "--whole-program), and only called directly (statepoints cannot wrap "
                   "varargs calls with a result); "
                   "make it static, return void, or take a va_list");
        return 0;
    }
    return 1;
}

/* The thread-local variable the result of a rewritten function goes
 * through: one per function, of its result type. */
static char *result_variable_name(LLVMValueRef function)
{
    return xasprintf("corral.varargs_result.%s", value_name(function));
}

static LLVMValueRef create_result_variable(LLVMValueRef function)
{
    LLVMTypeRef type = LLVMGetReturnType(LLVMGlobalGetValueType(function));
    char *name = result_variable_name(function);
    LLVMValueRef variable = LLVMAddGlobal(LLVMGetGlobalParent(function), type, name);
    free(name);
    LLVMSetLinkage(variable, LLVMInternalLinkage);
    LLVMSetThreadLocal(variable, 1);
    LLVMSetInitializer(variable, LLVMConstNull(type));
    return variable;
}

static LLVMValueRef create_void_version(LLVMValueRef function)
{
    LLVMTypeRef type = LLVMGlobalGetValueType(function);
    unsigned count = LLVMCountParamTypes(type);
    LLVMTypeRef *params = xcalloc(count + 1, sizeof *params);
    LLVMContextRef context = LLVMGetTypeContext(type);
    LLVMGetParamTypes(type, params);
    LLVMTypeRef void_type = LLVMFunctionType(LLVMVoidTypeInContext(context), params, count, 1);
    free(params);
    LLVMModuleRef module = LLVMGetGlobalParent(function);
    LLVMValueRef replacement = LLVMAddFunction(module, "corral.varargs.tmp", void_type);
    LLVMSetLinkage(replacement, LLVMInternalLinkage);
    copy_attributes_at_index(function, 0, replacement, 0, LLVMAttributeFunctionIndex);
    copy_parameter_attributes_of_void_version(function, 0, replacement, 0, count);
    LLVMSetFunctionCallConv(replacement, LLVMGetFunctionCallConv(function));
    LLVMSetSubprogram(replacement, LLVMGetSubprogram(function));
    LLVMSetSubprogram(function, NULL);
    return replacement;
}

static void move_body(polls_pass *pass, LLVMValueRef from, LLVMValueRef to,
                      LLVMValueRef result_variable)
{
    LLVMBasicBlockRef block;
    while ((block = LLVMGetFirstBasicBlock(from))) {
        LLVMRemoveBasicBlockFromParent(block);
        LLVMAppendExistingBasicBlock(to, block);
    }
    LLVMValueRef old_param = LLVMGetFirstParam(from);
    LLVMValueRef new_param = LLVMGetFirstParam(to);
    for (; old_param; old_param = LLVMGetNextParam(old_param), new_param = LLVMGetNextParam(new_param)) {
        LLVMSetValueName2(new_param, value_name(old_param), strlen(value_name(old_param)));
        LLVMReplaceAllUsesWith(old_param, new_param);
    }
    /* ret %x  ->  store %x, @result_variable; ret void */
    for (block = LLVMGetFirstBasicBlock(to); block; block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef terminator = LLVMGetBasicBlockTerminator(block);
        if (!terminator || LLVMGetInstructionOpcode(terminator) != LLVMRet)
            continue;
        LLVMPositionBuilderBefore(pass->builder, terminator);
        LLVMBuildStore(pass->builder, LLVMGetOperand(terminator, 0), result_variable);
        LLVMValueRef ret = LLVMBuildRetVoid(pass->builder);
        LLVMInstructionSetDebugLoc(ret, LLVMInstructionGetDebugLoc(terminator));
        LLVMInstructionEraseFromParent(terminator);
    }
}

/* Each call of from calls to, which has the same parameters, and reads the
 * result from the variable at once: nothing runs on the thread between the
 * callee's store and this load. */
static void rewrite_calls(polls_pass *pass, LLVMValueRef from, LLVMValueRef to,
                          LLVMValueRef result_variable)
{
    LLVMTypeRef result_type = LLVMGetReturnType(LLVMGlobalGetValueType(from));
    LLVMTypeRef to_type = LLVMGlobalGetValueType(to);
    LLVMUseRef use;
    while ((use = LLVMGetFirstUse(from))) {
        LLVMValueRef call = LLVMGetUser(use);
        unsigned count = LLVMGetNumArgOperands(call);
        LLVMValueRef direct = rebuild_call(pass, call, to_type, to, count, NULL, 0);
        /* byval, signext... are the calling convention (the extra
         * arguments' too); the result's attributes go with the result. */
        copy_call_properties_to_void_call(call, direct, count);
        LLVMValueRef value = LLVMBuildLoad2(pass->builder, result_type, result_variable, "");
        LLVMReplaceAllUsesWith(call, value);
        LLVMInstructionEraseFromParent(call);
    }
}

/* The call's arguments start with the callee's parameters, type for type,
 * and it expects the callee's result. */
static int matches_parameters(LLVMValueRef call, LLVMTypeRef callee_type)
{
    LLVMTypeRef call_type = LLVMGetCalledFunctionType(call);
    unsigned count = LLVMCountParamTypes(callee_type);
    if (LLVMGetReturnType(call_type) != LLVMGetReturnType(callee_type) ||
        LLVMGetNumArgOperands(call) < count)
        return 0;
    LLVMTypeRef *params = xcalloc(count + 1, sizeof *params);
    LLVMGetParamTypes(callee_type, params);
    int matches = 1;
    for (unsigned i = 0; i < count && matches; i++)
        matches = LLVMTypeOf(LLVMGetOperand(call, i)) == params[i];
    free(params);
    return matches;
}

static char *function_type_text(LLVMTypeRef type)
{
    char *llvm_text = LLVMPrintTypeToString(type);
    char *text = xstrdup(llvm_text);
    LLVMDisposeMessage(llvm_text);
    return text;
}

/* call (or invoke) of callee through a varargs type: rebuilt with the
 * callee's type and the arguments it declares. */
static void call_with_callee_type(polls_pass *pass, LLVMValueRef call, LLVMValueRef callee)
{
    LLVMTypeRef callee_type = LLVMGlobalGetValueType(callee);
    unsigned count = LLVMCountParamTypes(callee_type);
    LLVMValueRef direct = rebuild_call(pass, call, callee_type, callee, count, NULL, 0);
    copy_call_properties(call, direct, count);
    replace_instruction(call, direct);
}

/* A direct call (not through an alias: its type is the alias's) of a
 * function that is not varargs, through a varargs type: called by the
 * function's own type, or rejected when its arguments do not match. */
static void call_by_callee_type(polls_pass *pass, LLVMValueRef function, LLVMValueRef call)
{
    LLVMValueRef callee = LLVMGetCalledValue(call);
    LLVMTypeRef call_type = LLVMGetCalledFunctionType(call);
    if (!LLVMIsAFunction(callee) || !LLVMIsFunctionVarArg(call_type))
        return;
    LLVMTypeRef callee_type = LLVMGlobalGetValueType(callee);
    if (LLVMIsFunctionVarArg(callee_type))
        return;
    if (matches_parameters(call, callee_type)) {
        call_with_callee_type(pass, call, callee);
        return;
    }
    char *called_as = function_type_text(call_type);
    char *defined_as = function_type_text(callee_type);
    pass_error(pass, function, call,
               "call of '%s' through a declaration without a prototype, as '%s', does not "
               "match its type '%s' (undefined behaviour in C); declare '%s' with its prototype",
               value_name(callee), called_as, defined_as, value_name(callee));
    free(called_as);
    free(defined_as);
}

void call_unprototyped_functions_by_their_type(polls_pass *pass, LLVMValueRef function)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef inst = LLVMGetFirstInstruction(block);
        while (inst) {
            LLVMValueRef next = LLVMGetNextInstruction(inst); /* inst may be replaced */
            if (LLVMIsACallInst(inst) || LLVMIsAInvokeInst(inst))
                call_by_callee_type(pass, function, inst);
            inst = next;
        }
    }
}

void return_varargs_results_through_variables(polls_pass *pass)
{
    for (size_t i = 0; i < pass->managed_functions.count; i++) {
        LLVMValueRef function = pass->managed_functions.items[i];
        if (!returns_value(function) || !LLVMGetFirstUse(function) || !can_rewrite(pass, function))
            continue;
        LLVMValueRef result_variable = create_result_variable(function);
        LLVMValueRef replacement = create_void_version(function);
        move_body(pass, function, replacement, result_variable);
        rewrite_calls(pass, function, replacement, result_variable);
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

/* After poll placement: the store of the result moves past the return
 * poll, whose collection may run finalizers on this thread, and they might
 * call the function again. */
void store_varargs_results_after_polls(polls_pass *pass, LLVMValueRef function)
{
    char *name = result_variable_name(function);
    LLVMValueRef variable = LLVMGetNamedGlobal(pass->module, name);
    free(name);
    if (!variable)
        return;
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef terminator = LLVMGetBasicBlockTerminator(block);
        if (!terminator || LLVMGetInstructionOpcode(terminator) != LLVMRet)
            continue;
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst != terminator;
             inst = LLVMGetNextInstruction(inst)) {
            if (!LLVMIsAStoreInst(inst) || LLVMGetOperand(inst, 1) != variable)
                continue;
            LLVMInstructionRemoveFromParent(inst);
            LLVMPositionBuilderBefore(pass->builder, terminator);
            LLVMInsertIntoBuilder(pass->builder, inst);
            break;
        }
    }
}

/* ---- 3. sret of varargs calls */

static unsigned sret_kind(void)
{
    return LLVMGetEnumAttributeKindForName("sret", strlen("sret"));
}

/* The attribute index (1-based) of the call's sret argument; 0: none. */
static unsigned sret_argument(LLVMValueRef call)
{
    unsigned fixed = LLVMCountParamTypes(LLVMGetCalledFunctionType(call));
    for (unsigned index = 1; index <= fixed; index++)
        if (LLVMGetCallSiteEnumAttribute(call, index, sret_kind()))
            return index;
    return 0;
}

/* AArch64 passes the sret pointer in x8, other pointers in x0-x7: both
 * sides of every call must stop using it. */
static void drop_sret_of_function(LLVMValueRef function)
{
    unsigned count = LLVMCountParams(function);
    for (unsigned index = 1; index <= count; index++)
        LLVMRemoveEnumAttributeAtIndex(function, index, sret_kind());
    for (LLVMUseRef use = LLVMGetFirstUse(function); use; use = LLVMGetNextUse(use))
        for (unsigned index = 1; index <= count; index++)
            LLVMRemoveCallSiteEnumAttribute(LLVMGetUser(use), index, sret_kind());
}

void drop_sret_of_varargs_calls(polls_pass *pass, LLVMValueRef function)
{
    corral_target target = target_of_module(pass->module);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if (!is_call_site(inst) || !LLVMIsFunctionVarArg(LLVMGetCalledFunctionType(inst)) ||
                !call_is_statepoint(pass, inst))
                continue;
            unsigned index = sret_argument(inst);
            if (!index)
                continue;
            /* x86-64 passes the sret pointer as the first argument; the
             * callee also returns it in %rax, which a void call never reads. */
            if (target == TARGET_X86_64) {
                LLVMRemoveCallSiteEnumAttribute(inst, index, sret_kind());
                continue;
            }
            LLVMValueRef callee = called_function(inst);
            if (callee && !LLVMIsDeclaration(callee) && module_makes_every_call(pass, callee)) {
                drop_sret_of_function(callee);
                continue;
            }
            pass_error(pass, function, inst,
                       "call of a varargs function returning a struct in memory (sret), "
                       "%s: a statepoint cannot pass its result pointer in x8 on AArch64; "
                       "make the callee static (or the module a whole program) and only "
                       "call it directly, or return the struct through a pointer argument",
                       callee ? "whose callee other code may call" : "through a pointer");
        }
}

/* ---- 4. %al of varargs calls on x86-64 */

static int holds_vector_class(LLVMTypeRef type)
{
    switch (LLVMGetTypeKind(type)) {
    case LLVMHalfTypeKind:
    case LLVMBFloatTypeKind:
    case LLVMFloatTypeKind:
    case LLVMDoubleTypeKind:
    case LLVMFP128TypeKind:
    case LLVMVectorTypeKind:
        return 1;
    case LLVMStructTypeKind:
        for (unsigned i = 0; i < LLVMCountStructElementTypes(type); i++)
            if (holds_vector_class(LLVMStructGetTypeAtIndex(type, i)))
                return 1;
        return 0;
    case LLVMArrayTypeKind:
        return holds_vector_class(LLVMGetElementType(type));
    default: /* x86_fp80 (long double) is passed in memory */
        return 0;
    }
}

/* A varargs call passing a floating-point or vector value through "...". */
static int passes_vector_varargs(LLVMValueRef call)
{
    LLVMTypeRef type = LLVMGetCalledFunctionType(call);
    if (!LLVMIsFunctionVarArg(type))
        return 0;
    for (unsigned i = LLVMCountParamTypes(type); i < LLVMGetNumArgOperands(call); i++)
        if (holds_vector_class(LLVMTypeOf(LLVMGetOperand(call, i))))
            return 1;
    return 0;
}

/* corral.varargs_entry.F: frameless, sets %al to 8 (any upper bound is
 * allowed) and jumps to F, which returns straight to the statepoint. */
static LLVMValueRef vector_count_entry(polls_pass *pass, LLVMValueRef callee)
{
    char *name = xasprintf("corral.varargs_entry.%s", value_name(callee));
    LLVMValueRef entry = LLVMGetNamedFunction(pass->module, name);
    if (!entry) {
        entry = LLVMAddFunction(pass->module, name, LLVMGlobalGetValueType(callee));
        LLVMSetLinkage(entry, LLVMInternalLinkage);
        static const char *const attributes[] = {"naked", "noinline", "nounwind"};
        for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
            unsigned kind = LLVMGetEnumAttributeKindForName(attributes[i], strlen(attributes[i]));
            LLVMAddAttributeAtIndex(entry, LLVMAttributeFunctionIndex,
                                    LLVMCreateEnumAttribute(pass->context, kind, 0));
        }
        LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
        LLVMTypeRef asm_type = LLVMFunctionType(LLVMVoidTypeInContext(pass->context), &ptr, 1, 0);
        static const char text[] = "movb $$8, %al\n\tjmp ${0:P}";
        static const char constraints[] = "s";
        LLVMValueRef jump = LLVMGetInlineAsm(asm_type, text, sizeof text - 1, constraints,
                                             sizeof constraints - 1, 1, 0,
                                             LLVMInlineAsmDialectATT, 0);
        LLVMPositionBuilderAtEnd(pass->builder, LLVMAppendBasicBlockInContext(
                                                    pass->context, entry, "entry"));
        LLVMValueRef target = callee;
        LLVMBuildCall2(pass->builder, asm_type, jump, &target, 1, "");
        LLVMBuildUnreachable(pass->builder);
        function_add_flags(pass, entry, FUNCTION_EXTERNAL_MANAGED);
    }
    free(name);
    return entry;
}

void count_vector_registers_of_varargs_calls(polls_pass *pass, LLVMValueRef function)
{
    if (target_of_module(pass->module) != TARGET_X86_64)
        return; /* AArch64's callee saves every argument register */
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if (!is_call_site(inst) || classify_call(pass, inst) != CALL_MANAGED ||
                !passes_vector_varargs(inst))
                continue;
            LLVMValueRef callee = called_function(inst);
            if (!callee) {
                pass_error(pass, function, inst,
                           "indirect call of a varargs function with a floating-point or "
                           "vector argument in '...': a statepoint does not pass the "
                           "vector-register count (%%al) such a callee reads on x86-64; "
                           "call the function directly");
                continue;
            }
            LLVMSetOperand(inst, (unsigned)LLVMGetNumOperands(inst) - 1,
                           vector_count_entry(pass, callee));
        }
}
