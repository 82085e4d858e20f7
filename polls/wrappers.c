/* wrappers.c — GC-transition wrappers for calls from managed code to
 * unmanaged C (include/corral/abi.h has the protocol).
 *
 *   managed caller                     wrapper (plain code, noinline, fp)
 *   ---------------------------------  -----------------------------------------
 *   statepoint call wrapper(args) ---> ra = returnaddress(0); fp = frameaddress(0)
 *     (stackmap record at the return   corral_transition_to_unmanaged(ra, fp)
 *      address = the anchor's ra)      (AArch64: _at(ra, fp, sponentry()), target.h)
 *                                      r = callee(args)       <- may block; GC runs
 *                                      corral_transition_to_managed()
 *   <--------------------------------- return r
 *
 * One wrapper per callee; a varargs callee gets one per list of argument
 * types, since RS4GC cannot wrap a non-void varargs call in a statepoint.
 * An invoke site gets a wrapper that invokes the callee too, with a cleanup
 * that calls corral_transition_to_managed before the exception unwinds into
 * managed code (a thread must never run managed code while UNMANAGED).
 *
 * pthread_create or C11 thrd_create with a start routine of this module
 * (managed code) would run it on a thread the runtime never attached: such a
 * call becomes a call of corral_pthread_create or corral_thrd_create, which
 * attach the new thread around it, unless the routine calls
 * corral_thread_attach itself.
 */
#include "pass.h"
#include "target.h"
#include "util.h"

#include "corral/abi.h"

#include <llvm-c/DebugInfo.h>

#include <stdlib.h>
#include <string.h>

static LLVMValueRef build_leaf_call(polls_pass *pass, LLVMTypeRef type, LLVMValueRef callee,
                                    LLVMValueRef *args, unsigned count)
{
    LLVMValueRef call = LLVMBuildCall2(pass->builder, type, callee, args, count, "");
    add_call_string_attribute(call, "gc-leaf-function", "");
    return call;
}

/* The callee's result, called plainly or, when the wrapper has a
 * personality (it serves invoke sites), invoked with a cleanup that makes
 * the thread MANAGED again before the exception reaches managed code. */
static LLVMValueRef call_callee(polls_pass *pass, LLVMValueRef wrapper, LLVMValueRef callee,
                                LLVMTypeRef callee_type, LLVMValueRef *args, unsigned count,
                                LLVMTypeRef to_managed_type, LLVMValueRef to_managed)
{
    if (!LLVMHasPersonalityFn(wrapper))
        return LLVMBuildCall2(pass->builder, callee_type, callee, args, count, "");
    LLVMContextRef context = pass->context;
    LLVMBasicBlockRef returned = LLVMAppendBasicBlockInContext(context, wrapper, "returned");
    LLVMBasicBlockRef unwound = LLVMAppendBasicBlockInContext(context, wrapper, "unwound");
    LLVMValueRef result = LLVMBuildInvoke2(pass->builder, callee_type, callee, args, count,
                                           returned, unwound, "");
    LLVMPositionBuilderAtEnd(pass->builder, unwound);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
    LLVMTypeRef fields[2] = {ptr, LLVMInt32TypeInContext(context)};
    LLVMTypeRef landing_type = LLVMStructTypeInContext(context, fields, 2, 0);
    LLVMValueRef landing = LLVMBuildLandingPad(pass->builder, landing_type, NULL, 0, "");
    LLVMSetCleanup(landing, 1);
    build_leaf_call(pass, to_managed_type, to_managed, NULL, 0);
    LLVMBuildResume(pass->builder, landing);
    LLVMPositionBuilderAtEnd(pass->builder, returned);
    return result;
}

static void build_wrapper_body(polls_pass *pass, LLVMValueRef wrapper, LLVMValueRef callee,
                               LLVMTypeRef callee_type, LLVMValueRef attribute_source,
                               int source_is_call)
{
    LLVMContextRef context = pass->context;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
    LLVMTypeRef void_type = LLVMVoidTypeInContext(context);
    bool pass_sp = target_wrapper_passes_entry_sp(target_of_module(pass->module));
    LLVMTypeRef to_unmanaged_params[3] = {ptr, ptr, ptr};
    unsigned anchor_count = pass_sp ? 3 : 2;
    LLVMTypeRef to_unmanaged_type =
        LLVMFunctionType(void_type, to_unmanaged_params, anchor_count, 0);
    LLVMTypeRef to_managed_type = LLVMFunctionType(void_type, NULL, 0, 0);
    LLVMValueRef to_unmanaged = declare_leaf_function(
        pass, pass_sp ? CORRAL_ABI_TO_UNMANAGED_AT : CORRAL_ABI_TO_UNMANAGED, to_unmanaged_type);
    LLVMValueRef to_managed = declare_leaf_function(pass, CORRAL_ABI_TO_MANAGED, to_managed_type);

    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(context, wrapper, "entry");
    LLVMPositionBuilderAtEnd(pass->builder, entry);
    LLVMValueRef level = LLVMConstInt(i32, 0, 0);
    LLVMValueRef return_address =
        build_intrinsic_call(pass, "llvm.returnaddress", NULL, &level, 1, "ra");
    LLVMValueRef frame_address =
        build_intrinsic_call(pass, "llvm.frameaddress", ptr, &level, 1, "fp");
    LLVMValueRef anchor[3] = {return_address, frame_address, NULL};
    if (pass_sp)
        anchor[2] = build_intrinsic_call(pass, "llvm.sponentry", ptr, NULL, 0, "sp");
    build_leaf_call(pass, to_unmanaged_type, to_unmanaged, anchor, anchor_count);

    unsigned count = LLVMCountParams(wrapper);
    LLVMValueRef *args = xcalloc(count, sizeof *args);
    LLVMGetParams(wrapper, args);
    LLVMValueRef result = call_callee(pass, wrapper, callee, callee_type, args, count,
                                      to_managed_type, to_managed);
    copy_attributes(attribute_source, source_is_call, result, 1, count);
    free(args);

    build_leaf_call(pass, to_managed_type, to_managed, NULL, 0);
    if (LLVMGetTypeKind(LLVMGetReturnType(callee_type)) == LLVMVoidTypeKind)
        LLVMBuildRetVoid(pass->builder);
    else
        LLVMBuildRet(pass->builder, result);
}

static LLVMValueRef create_wrapper(polls_pass *pass, LLVMValueRef callee, LLVMTypeRef callee_type,
                                   LLVMTypeRef wrapper_type, LLVMValueRef attribute_source,
                                   int source_is_call, LLVMValueRef personality)
{
    char *name = xasprintf(WRAPPER_PREFIX "%s%s", personality ? "invoke." : "",
                           value_name(callee));
    LLVMValueRef wrapper = LLVMAddFunction(pass->module, name, wrapper_type);
    free(name);
    LLVMSetLinkage(wrapper, LLVMInternalLinkage);
    if (personality)
        LLVMSetPersonalityFn(wrapper, personality);
    unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", strlen("noinline"));
    LLVMAddAttributeAtIndex(wrapper, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(pass->context, noinline, 0));
    add_function_string_attribute(wrapper, "frame-pointer", "all");
    copy_attributes(attribute_source, source_is_call, wrapper, 0,
                    LLVMCountParamTypes(wrapper_type));
    function_add_flags(pass, wrapper, FUNCTION_WRAPPER);
    pass->wrappers_created++;

    LLVMBasicBlockRef saved_block = LLVMGetInsertBlock(pass->builder);
    build_wrapper_body(pass, wrapper, callee, callee_type, attribute_source, source_is_call);
    if (saved_block)
        LLVMPositionBuilderAtEnd(pass->builder, saved_block);
    return wrapper;
}

static LLVMValueRef wrapper_for_callee(polls_pass *pass, LLVMValueRef callee)
{
    uintptr_t found = 0;
    if (ptr_table_get(&pass->wrappers, callee, &found))
        return (LLVMValueRef)found;
    LLVMTypeRef type = LLVMGlobalGetValueType(callee);
    LLVMValueRef wrapper = create_wrapper(pass, callee, type, type, callee, 0, NULL);
    ptr_table_put(&pass->wrappers, callee, (uintptr_t)wrapper);
    return wrapper;
}

/* The wrapper made for callee and key, or NULL. */
static LLVMValueRef keyed_wrapper_find(const polls_pass *pass, LLVMValueRef callee,
                                       const void *key)
{
    for (size_t i = 0; i < pass->keyed_wrappers.count; i++) {
        const keyed_wrapper *known = &pass->keyed_wrappers.items[i];
        if (known->callee == callee && known->key == key)
            return known->wrapper;
    }
    return NULL;
}

static LLVMValueRef keyed_wrapper_remember(polls_pass *pass, LLVMValueRef callee,
                                           const void *key, LLVMValueRef wrapper)
{
    keyed_wrapper entry = {callee, key, wrapper};
    VEC_PUSH(pass->keyed_wrappers, entry);
    return wrapper;
}

/* An invoke site's wrapper: one per callee and personality function. */
static LLVMValueRef wrapper_for_invoke(polls_pass *pass, LLVMValueRef callee,
                                       LLVMValueRef personality)
{
    LLVMValueRef known = keyed_wrapper_find(pass, callee, personality);
    if (known)
        return known;
    LLVMTypeRef type = LLVMGlobalGetValueType(callee);
    return keyed_wrapper_remember(
        pass, callee, personality, create_wrapper(pass, callee, type, type, callee, 0, personality));
}

/* The non-varargs type of one varargs call: its return type and the types
 * of the arguments it actually passes. */
static LLVMTypeRef concrete_call_type(LLVMValueRef call)
{
    unsigned count = LLVMGetNumArgOperands(call);
    LLVMTypeRef *params = xcalloc(count, sizeof *params);
    for (unsigned i = 0; i < count; i++)
        params[i] = LLVMTypeOf(LLVMGetOperand(call, i));
    LLVMTypeRef type =
        LLVMFunctionType(LLVMGetReturnType(LLVMGetCalledFunctionType(call)), params, count, 0);
    free(params);
    return type;
}

static LLVMValueRef wrapper_for_varargs_call(polls_pass *pass, LLVMValueRef callee,
                                             LLVMValueRef call, LLVMTypeRef call_type)
{
    LLVMValueRef known = keyed_wrapper_find(pass, callee, call_type);
    if (known)
        return known;
    return keyed_wrapper_remember(
        pass, callee, call_type,
        create_wrapper(pass, callee, LLVMGetCalledFunctionType(call), call_type, call, 1, NULL));
}

/* A call to the wrapper must not claim the callee's memory effects: the
 * wrapper writes the thread's state. */
static void drop_memory_attribute(LLVMValueRef call)
{
    unsigned memory = LLVMGetEnumAttributeKindForName("memory", strlen("memory"));
    LLVMRemoveCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, memory);
}

static void reroute_call(polls_pass *pass, LLVMValueRef call, LLVMValueRef callee)
{
    LLVMTypeRef callee_type = LLVMGlobalGetValueType(callee);
    if (!LLVMIsFunctionVarArg(callee_type)) {
        LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
        LLVMValueRef wrapper = LLVMIsAInvokeInst(call)
                                   ? wrapper_for_invoke(pass, callee, LLVMGetPersonalityFn(caller))
                                   : wrapper_for_callee(pass, callee);
        LLVMSetOperand(call, (unsigned)LLVMGetNumOperands(call) - 1, wrapper);
        if (LLVMIsACallInst(call))
            LLVMSetTailCallKind(call, LLVMTailCallKindNone);
        drop_memory_attribute(call);
        return;
    }
    LLVMTypeRef call_type = concrete_call_type(call);
    LLVMValueRef wrapper = wrapper_for_varargs_call(pass, callee, call, call_type);
    unsigned count = LLVMGetNumArgOperands(call);
    LLVMValueRef *args = xcalloc(count, sizeof *args);
    for (unsigned i = 0; i < count; i++)
        args[i] = LLVMGetOperand(call, i);
    LLVMPositionBuilderBefore(pass->builder, call);
    LLVMValueRef direct = LLVMBuildCall2(pass->builder, call_type, wrapper, args, count, "");
    free(args);
    copy_attributes(call, 1, direct, 1, count);
    LLVMInstructionSetDebugLoc(direct, LLVMInstructionGetDebugLoc(call));
    if (LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind)
        LLVMReplaceAllUsesWith(call, direct);
    LLVMInstructionEraseFromParent(call);
}

void wrap_unmanaged_calls(polls_pass *pass, LLVMValueRef function)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef inst = LLVMGetFirstInstruction(block);
        while (inst) {
            LLVMValueRef next = LLVMGetNextInstruction(inst);
            LLVMValueRef callee = is_call_site(inst) ? called_function(inst) : NULL;
            if (callee && classify_call(pass, inst) == CALL_UNMANAGED &&
                !(function_flags(pass, callee) & FUNCTION_WRAPPER))
                reroute_call(pass, inst, callee);
            inst = next;
        }
    }
}

/* A C library function that starts a thread on a start routine, and the
 * runtime's functions with the same arguments and result (include/corral.h):
 * one that attaches the new thread first, and one that decides at run time
 * whether the routine is managed code. */
typedef struct thread_starter {
    const char *name;
    unsigned arg_count;
    unsigned start_arg;      /* which argument is the start routine */
    const char *replacement; /* for a start routine the module defines */
    const char *decider;     /* for one chosen at run time or defined elsewhere */
    int start_returns_int;   /* C11's thrd_start_t: int (*)(void *) */
} thread_starter;

static const thread_starter thread_starters[] = {
    {"pthread_create", 4, 2, "corral_pthread_create", "corral_pthread_create_any", 0},
    {"thrd_create", 3, 1, "corral_thrd_create", "corral_thrd_create_any", 1},
};

/* The runtime's function name, declared with the type of the C library
 * function it stands in for (a thread starter, pthread_exit). */
static LLVMValueRef runtime_function_like(polls_pass *pass, const char *name,
                                          LLVMValueRef library_function)
{
    LLVMValueRef function = LLVMGetNamedFunction(pass->module, name);
    return function ? function
                    : LLVMAddFunction(pass->module, name,
                                      LLVMGlobalGetValueType(library_function));
}

/* corral_call_managed runs void *(*)(void *): a thrd_start_t routine runs
 * through an adapter of this module, managed code like the routine, that
 * returns its int result as thrd_join reads it back (glibc: the int widened
 * to a pointer). NULL when the routine's type is not int (void *). */
static LLVMValueRef int_start_adapter(polls_pass *pass, LLVMValueRef start, LLVMValueRef call)
{
    LLVMContextRef context = pass->context;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
    LLVMTypeRef start_type = LLVMGlobalGetValueType(start);
    if (LLVMGetReturnType(start_type) != i32 || LLVMCountParamTypes(start_type) > 1) {
        pass_warning(pass, LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)), call,
                     "thrd_create's start routine %s does not have the type int (void *): the "
                     "call is left as written, and the new thread is not attached",
                     LLVMGetValueName(start));
        return NULL;
    }
    char *name = xasprintf("corral.thrd_start.%s", LLVMGetValueName(start));
    LLVMValueRef adapter = LLVMGetNamedFunction(pass->module, name);
    if (!adapter) {
        LLVMTypeRef adapter_type = LLVMFunctionType(ptr, &ptr, 1, 0);
        adapter = LLVMAddFunction(pass->module, name, adapter_type);
        LLVMSetLinkage(adapter, LLVMInternalLinkage);
        LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(context, adapter, "entry");
        LLVMBuilderRef builder = LLVMCreateBuilderInContext(context);
        LLVMPositionBuilderAtEnd(builder, entry);
        LLVMValueRef arg = LLVMGetParam(adapter, 0);
        LLVMTypeRef call_type = LLVMFunctionType(i32, &ptr, 1, 0);
        LLVMValueRef result = LLVMBuildCall2(builder, call_type, start, &arg, 1, "result");
        LLVMValueRef wide = LLVMBuildSExt(builder, result, LLVMInt64TypeInContext(context), "");
        LLVMBuildRet(builder, LLVMBuildIntToPtr(builder, wide, ptr, "exit_value"));
        LLVMDisposeBuilder(builder);
    }
    free(name);
    return adapter;
}

/* A call of starter: redirected to the runtime when its start routine is
 * defined here and does not attach itself; to the runtime's decider when
 * the routine is chosen at run time (a helper's parameter) or defined in
 * another file, which the pass cannot judge: managed code there has
 * stackmap records, C has none. */
static void start_thread_through_runtime(polls_pass *pass, const thread_starter *starter,
                                         LLVMValueRef creator, LLVMValueRef call)
{
    LLVMValueRef start_operand = LLVMGetOperand(call, starter->start_arg);
    if (LLVMIsAConstantPointerNull(start_operand))
        return;
    LLVMValueRef start = function_named_by(start_operand);
    if (!start || LLVMIsDeclaration(start)) {
        LLVMSetOperand(call, LLVMGetNumOperands(call) - 1,
                       runtime_function_like(pass, starter->decider, creator));
        return;
    }
    if (function_calls(start, "corral_thread_attach"))
        return; /* as written */
    if (starter->start_returns_int) {
        LLVMValueRef adapter = int_start_adapter(pass, start, call);
        if (!adapter)
            return;
        LLVMSetOperand(call, starter->start_arg, adapter);
    }
    LLVMSetOperand(call, LLVMGetNumOperands(call) - 1,
                   runtime_function_like(pass, starter->replacement, creator));
}

void start_managed_threads_through_runtime(polls_pass *pass)
{
    for (size_t i = 0; i < sizeof thread_starters / sizeof thread_starters[0]; i++) {
        const thread_starter *starter = &thread_starters[i];
        LLVMValueRef creator = LLVMGetNamedFunction(pass->module, starter->name);
        if (!creator || !LLVMIsDeclaration(creator))
            continue;
        LLVMUseRef use = LLVMGetFirstUse(creator);
        while (use) {
            LLVMValueRef call = LLVMGetUser(use);
            use = LLVMGetNextUse(use);
            if (is_call_site(call) && called_function(call) == creator &&
                LLVMGetNumArgOperands(call) == starter->arg_count)
                start_thread_through_runtime(pass, starter, creator, call);
        }
    }
}

/* Library functions that leave a stack with managed frames on it, which
 * the runtime must know of first; they are called through a wrapper, so a
 * collection on another thread may run meanwhile:
 * - pthread_exit and thrd_exit unwind the thread's stack: the runtime's
 *   versions (same type) leave managed code for good first, dropping every
 *   managed frame, then exit;
 * - swapcontext and setcontext switch to another stack: the runtime's set
 *   the running stack's managed frames aside (or abandon them) first, so
 *   collections walk them where they are (threads/stack_switch.c);
 * - getcontext returns twice, the second time from a switch the runtime did
 *   not see: its version returns once, its context only fit for makecontext. */
void call_runtime_versions_of_stack_leavers(polls_pass *pass)
{
    static const char *const leavers[][2] = {
        {"pthread_exit", "corral_pthread_exit"}, {"thrd_exit", "corral_thrd_exit"},
        {"swapcontext", "corral_swapcontext"},   {"setcontext", "corral_setcontext"},
        {"getcontext", "corral_getcontext"},
    };
    unsigned returns_twice =
        LLVMGetEnumAttributeKindForName("returns_twice", strlen("returns_twice"));
    for (size_t i = 0; i < sizeof leavers / sizeof leavers[0]; i++) {
        LLVMValueRef library_function = LLVMGetNamedFunction(pass->module, leavers[i][0]);
        if (!library_function || !LLVMIsDeclaration(library_function))
            continue;
        LLVMValueRef replacement = runtime_function_like(pass, leavers[i][1], library_function);
        for (LLVMUseRef use = LLVMGetFirstUse(library_function); use;) {
            LLVMValueRef call = LLVMGetUser(use);
            use = LLVMGetNextUse(use);
            if (!is_call_site(call) || called_function(call) != library_function)
                continue;
            LLVMSetOperand(call, LLVMGetNumOperands(call) - 1, replacement);
            LLVMRemoveCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, returns_twice);
        }
    }
}
