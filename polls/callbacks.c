/* callbacks.c — managed functions handed to C as callbacks.
 *
 * `qsort(a, n, size, compare)` with compare in managed code: qsort is
 * unmanaged, called through a transition wrapper, and calls compare
 * directly, so compare ran managed code while the thread was UNMANAGED: a
 * collection could run meanwhile and move what compare held, and an
 * allocation in it stopped the program ("corral_alloc: thread 1 is
 * UNMANAGED"). Rule 5 of docs/managed-c.md asked for corral_call_managed
 * around every such callback, by hand. Now each managed function passed as
 * an argument to an unmanaged call is replaced there by an entry the pass
 * adds (corral/abi.h, CORRAL_ABI_CALLBACK_NEEDS_ENTRY):
 *
 *   corral.callback.F(args...)         managed code without polls: what C calls
 *     if the thread is UNMANAGED (C called through a transition wrapper):
 *       frame = {args..., result}      on its own stack
 *       corral_call_managed(corral.callback_body.F, &frame)   (a leaf call)
 *       return frame.result
 *     else                             MANAGED (C called by corral_call_managed,
 *       return F(args...)              or managed code calling the pointer back)
 *   corral.callback_body.F(frame)      managed code
 *     frame.result = F(frame.args...)
 *     return null
 *
 * The entry is managed so that the stack walker finds a record at its call
 * of F when the thread was already MANAGED; on the other path its frame
 * lies below the transition's anchor, where no walk goes.
 *
 * Not wrapped: functions the runtime starts itself (the thread starters,
 * anything passed to a corral_* function), a start routine that attaches
 * itself, signal handlers (they interrupt managed code, where entering the
 * runtime is not safe), and functions whose arguments C cannot pass through
 * a frame (varargs, byval, sret: left as written, with a warning). One that
 * takes or returns references is an error: C holds none to pass.
 */
#include "pass.h"
#include "util.h"

#include "corral/abi.h"

#include <stdlib.h>
#include <string.h>

#define ENTRY_PREFIX "corral.callback."
#define BODY_PREFIX "corral.callback_body."

/* Callees whose function arguments are not called back from C as
 * callbacks: the runtime's own (which enter managed code themselves, as
 * corral_pthread_create does), the thread starters before the pass
 * redirects them, and signal handlers. */
static int takes_no_callbacks(LLVMValueRef callee)
{
    static const char *const names[] = {"pthread_create", "thrd_create", "signal", "sigset",
                                        "bsd_signal", "sysv_signal"};
    const char *name = value_name(callee);
    if (strncmp(name, "corral_", 7) == 0)
        return 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* The managed function an argument names, through casts; NULL if none. */
static LLVMValueRef managed_function_named_by(const polls_pass *pass, LLVMValueRef value)
{
    LLVMValueRef function = function_named_by(value);
    return function && (function_flags(pass, function) & FUNCTION_MANAGED) ? function : NULL;
}

static int has_attribute(LLVMValueRef function, unsigned index, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    return LLVMGetEnumAttributeAtIndex(function, index, kind) != NULL;
}

/* NULL when the function can be entered through a frame; else why not. */
static const char *why_not_enterable(LLVMValueRef function)
{
    LLVMTypeRef type = LLVMGlobalGetValueType(function);
    if (LLVMIsFunctionVarArg(type))
        return "it is a varargs function";
    unsigned count = LLVMCountParamTypes(type);
    for (unsigned i = 1; i <= count; i++)
        if (has_attribute(function, i, "byval") || has_attribute(function, i, "sret") ||
            has_attribute(function, i, "inalloca") || has_attribute(function, i, "preallocated"))
            return "an argument is passed in memory (byval or sret)";
    return NULL;
}

static int touches_references(LLVMValueRef function)
{
    LLVMTypeRef type = LLVMGlobalGetValueType(function);
    if (type_contains_gc_pointer(LLVMGetReturnType(type)))
        return 1;
    unsigned count = LLVMCountParamTypes(type);
    LLVMTypeRef *params = xcalloc(count ? count : 1, sizeof *params);
    LLVMGetParamTypes(type, params);
    int found = 0;
    for (unsigned i = 0; i < count && !found; i++)
        found = type_contains_gc_pointer(params[i]);
    free(params);
    return found;
}

/* A call of function with its argument attributes (zeroext, noundef...),
 * but not `returned`, which a statepoint cannot carry. */
static LLVMValueRef build_call_of(polls_pass *pass, LLVMValueRef function, LLVMValueRef *args,
                                  unsigned count)
{
    LLVMValueRef call = LLVMBuildCall2(pass->builder, LLVMGlobalGetValueType(function), function,
                                       args, count, "");
    LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(function));
    copy_attributes(function, 0, call, 1, count);
    unsigned returned = LLVMGetEnumAttributeKindForName("returned", strlen("returned"));
    for (unsigned i = 1; i <= count; i++)
        LLVMRemoveCallSiteEnumAttribute(call, i, returned);
    return call;
}

/* { params..., result } of the function's type (no result when void). */
static LLVMTypeRef frame_type(polls_pass *pass, LLVMTypeRef type, unsigned *fields)
{
    unsigned count = LLVMCountParamTypes(type);
    LLVMTypeRef *members = xcalloc(count + 1, sizeof *members);
    LLVMGetParamTypes(type, members);
    LLVMTypeRef result = LLVMGetReturnType(type);
    *fields = count;
    if (LLVMGetTypeKind(result) != LLVMVoidTypeKind)
        members[(*fields)++] = result;
    LLVMTypeRef frame = LLVMStructTypeInContext(pass->context, members, *fields, 0);
    free(members);
    return frame;
}

/* corral.callback_body.F(frame): managed, calls F with the frame's
 * arguments and stores its result there. */
static LLVMValueRef build_body(polls_pass *pass, LLVMValueRef function, LLVMTypeRef frame)
{
    LLVMContextRef context = pass->context;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
    LLVMTypeRef type = LLVMGlobalGetValueType(function);
    char *name = xasprintf(BODY_PREFIX "%s", value_name(function));
    LLVMValueRef body = LLVMAddFunction(pass->module, name, LLVMFunctionType(ptr, &ptr, 1, 0));
    free(name);
    LLVMSetLinkage(body, LLVMInternalLinkage);
    LLVMPositionBuilderAtEnd(pass->builder, LLVMAppendBasicBlockInContext(context, body, "entry"));
    unsigned count = LLVMCountParamTypes(type);
    LLVMValueRef *args = xcalloc(count ? count : 1, sizeof *args);
    LLVMValueRef frame_pointer = LLVMGetParam(body, 0);
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef field = LLVMBuildStructGEP2(pass->builder, frame, frame_pointer, i, "");
        args[i] = LLVMBuildLoad2(pass->builder, LLVMStructGetTypeAtIndex(frame, i), field, "");
    }
    LLVMValueRef result = build_call_of(pass, function, args, count);
    free(args);
    if (LLVMGetTypeKind(LLVMGetReturnType(type)) != LLVMVoidTypeKind)
        LLVMBuildStore(pass->builder, result,
                       LLVMBuildStructGEP2(pass->builder, frame, frame_pointer, count, ""));
    LLVMBuildRet(pass->builder, LLVMConstNull(ptr));
    function_add_flags(pass, body, FUNCTION_MANAGED);
    VEC_PUSH(pass->managed_functions, body);
    return body;
}

/* A direct call, no statepoint, of the runtime function name of type. */
static LLVMValueRef build_runtime_leaf_call(polls_pass *pass, const char *name, LLVMTypeRef type,
                                            LLVMValueRef *args, unsigned count)
{
    LLVMValueRef function = LLVMGetNamedFunction(pass->module, name);
    if (!function)
        function = LLVMAddFunction(pass->module, name, type);
    function_add_flags(pass, function, FUNCTION_LEAF);
    LLVMValueRef call = LLVMBuildCall2(pass->builder, type, function, args, count, "");
    add_call_string_attribute(call, "gc-leaf-function", "");
    return call;
}

/* corral.callback.F(args...): managed code without polls, with F's type,
 * what C calls. */
static LLVMValueRef build_entry(polls_pass *pass, LLVMValueRef function)
{
    LLVMContextRef context = pass->context;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
    LLVMTypeRef type = LLVMGlobalGetValueType(function);
    unsigned fields;
    LLVMTypeRef frame = frame_type(pass, type, &fields);
    LLVMValueRef body = build_body(pass, function, frame);

    char *name = xasprintf(ENTRY_PREFIX "%s", value_name(function));
    LLVMValueRef entry = LLVMAddFunction(pass->module, name, type);
    free(name);
    LLVMSetLinkage(entry, LLVMInternalLinkage);
    LLVMSetFunctionCallConv(entry, LLVMGetFunctionCallConv(function));
    unsigned count = LLVMCountParamTypes(type);
    copy_attributes(function, 0, entry, 0, count);
    /* No poll: on the runtime's path it runs UNMANAGED. */
    function_add_flags(pass, entry, FUNCTION_MANAGED | FUNCTION_NOPOLL);
    VEC_PUSH(pass->managed_functions, entry);

    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(context, entry, "entry");
    LLVMBasicBlockRef direct = LLVMAppendBasicBlockInContext(context, entry, "direct");
    LLVMBasicBlockRef through = LLVMAppendBasicBlockInContext(context, entry, "through_runtime");
    LLVMPositionBuilderAtEnd(pass->builder, start);
    LLVMValueRef frame_pointer = LLVMBuildAlloca(pass->builder, frame, "frame");
    LLVMValueRef needed = build_runtime_leaf_call(
        pass, CORRAL_ABI_CALLBACK_NEEDS_ENTRY,
        LLVMFunctionType(LLVMInt32TypeInContext(context), NULL, 0, 0), NULL, 0);
    LLVMBuildCondBr(pass->builder,
                    LLVMBuildICmp(pass->builder, LLVMIntNE, needed,
                                  LLVMConstNull(LLVMTypeOf(needed)), ""),
                    through, direct);

    /* MANAGED (or not attached): the call it was before. */
    LLVMPositionBuilderAtEnd(pass->builder, direct);
    LLVMValueRef *args = xcalloc(count ? count : 1, sizeof *args);
    LLVMGetParams(entry, args);
    LLVMValueRef result = build_call_of(pass, function, args, count);
    free(args);
    LLVMTypeRef result_type = LLVMGetReturnType(type);
    int returns = LLVMGetTypeKind(result_type) != LLVMVoidTypeKind;
    if (returns)
        LLVMBuildRet(pass->builder, result);
    else
        LLVMBuildRetVoid(pass->builder);

    /* UNMANAGED: through corral_call_managed, in a segment of its own. */
    LLVMPositionBuilderAtEnd(pass->builder, through);
    for (unsigned i = 0; i < count; i++)
        LLVMBuildStore(pass->builder, LLVMGetParam(entry, i),
                       LLVMBuildStructGEP2(pass->builder, frame, frame_pointer, i, ""));
    LLVMTypeRef params[2] = {ptr, ptr};
    LLVMValueRef call_args[2] = {body, frame_pointer};
    build_runtime_leaf_call(pass, "corral_call_managed", LLVMFunctionType(ptr, params, 2, 0),
                            call_args, 2);
    if (returns)
        LLVMBuildRet(pass->builder,
                     LLVMBuildLoad2(pass->builder, result_type,
                                    LLVMBuildStructGEP2(pass->builder, frame, frame_pointer,
                                                        fields - 1, ""),
                                    "result"));
    else
        LLVMBuildRetVoid(pass->builder);
    return entry;
}

/* The entry for function, made once; NULL (reported) when it cannot have one. */
static LLVMValueRef entry_for(polls_pass *pass, LLVMValueRef function, LLVMValueRef call,
                              LLVMValueRef caller)
{
    uintptr_t known = 0;
    if (ptr_table_get(&pass->callback_entries, function, &known))
        return (LLVMValueRef)known;
    LLVMValueRef callee = called_function(call);
    const char *why = why_not_enterable(function);
    LLVMValueRef entry = NULL;
    if (touches_references(function))
        pass_error(pass, caller, call,
                   "managed function '%s', passed to unmanaged function '%s' (which may call "
                   "it), takes or returns references, which C cannot hold",
                   value_name(function), value_name(callee));
    else if (why)
        pass_warning(pass, caller, call,
                     "managed function '%s' is passed to unmanaged function '%s', which may call "
                     "it while the thread is UNMANAGED; the pass cannot give it an entry (%s): "
                     "have C call it through corral_call_managed",
                     value_name(function), value_name(callee), why);
    else
        entry = build_entry(pass, function);
    ptr_table_put(&pass->callback_entries, function, (uintptr_t)entry);
    return entry;
}

static void enter_callbacks_of_call(polls_pass *pass, LLVMValueRef caller, LLVMValueRef call)
{
    LLVMValueRef callee = called_function(call);
    if (!callee || takes_no_callbacks(callee) || classify_call(pass, call) != CALL_UNMANAGED)
        return;
    unsigned count = LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef function = managed_function_named_by(pass, LLVMGetOperand(call, i));
        if (!function || function_calls(function, "corral_thread_attach"))
            continue;
        LLVMValueRef entry = entry_for(pass, function, call, caller);
        if (entry)
            LLVMSetOperand(call, i, entry);
    }
}

void enter_managed_callbacks_through_runtime(polls_pass *pass)
{
    size_t managed = pass->managed_functions.count; /* not the bodies added here */
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(pass->builder);
    for (size_t f = 0; f < managed; f++) {
        LLVMValueRef caller = pass->managed_functions.items[f];
        for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(caller); block;
             block = LLVMGetNextBasicBlock(block))
            for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
                 inst = LLVMGetNextInstruction(inst))
                if (is_call_site(inst))
                    enter_callbacks_of_call(pass, caller, inst);
    }
    if (saved)
        LLVMPositionBuilderAtEnd(pass->builder, saved);
}
