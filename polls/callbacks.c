/* callbacks.c — managed functions handed to C as callbacks.
 *
 * `qsort(a, n, size, compare)` with compare in managed code: qsort is
 * unmanaged, called through a transition wrapper, and calls compare
 * directly, so compare ran managed code while the thread was UNMANAGED: a
 * collection could run meanwhile and move what compare held, and an
 * allocation in it stopped the program ("corral_alloc: thread 1 is
 * UNMANAGED"). Rule 5 of docs/managed-c.md asked for corral_call_managed
 * around every such callback, by hand. Now every managed function whose
 * address may reach C (callback_reach.c: an argument of a call, a struct of
 * callbacks, a table C reads, any function that is not static) has that
 * address replaced, everywhere but in direct calls, by an entry the pass
 * adds (corral/abi.h, CORRAL_ABI_CALLBACK_NEEDS_ENTRY):
 *
 *   corral.callback.F(args...)         managed code without polls: what C calls
 *     if CORRAL_ABI_CALLBACK_NEEDS_ENTRY()   a statepoint: the entry's record
 *       (UNMANAGED: C was called through a transition wrapper; or a C
 *       thread nobody attached, which the runtime attaches)
 *       frame = {args..., result}      on its own stack
 *       corral_call_managed(corral.callback_body.F, &frame)   (a leaf call)
 *       return frame.result
 *     else                             MANAGED (C called by corral_call_managed,
 *       musttail return F(args...)     or managed code calling the pointer)
 *   corral.callback_body.F(frame)      managed code
 *     frame.result = F(frame.args...)
 *     return null
 *
 * On the MANAGED path the entry's frame is gone (the tail call), so a chain
 * of managed tail calls through addresses runs in constant stack; on the
 * other its frame lies below the transition's anchor, where no walk goes.
 * Its record makes the runtime take it for managed code, as it took F
 * (corral_pthread_create_any). Every use of the address is the entry, so
 * managed code in this file compares such addresses as C would. An
 * external F that C can enter gets an entry even if its address is never
 * taken here, and at the end of the pass the entry takes F's symbol and F
 * becomes internal (corral.managed.F): C in other files that calls F by
 * name, takes its address or finds it with dlsym enters through the
 * runtime, and managed callers in the module call F directly.
 *
 * Not wrapped: addresses only managed code calls (a static dispatch table),
 * arguments of the runtime's functions and of the thread starters (which
 * enter managed code themselves), a start routine that attaches itself,
 * signal handlers (signal_handlers.c: a handler interrupts whatever runs,
 * where entering the runtime is not safe), and functions whose arguments C
 * cannot pass through a frame (varargs, byval, sret: passed to an unmanaged
 * call, a warning) or that take or return references (passed to an
 * unmanaged call, an error: C holds none to pass).
 */
#include "pass.h"
#include "util.h"

#include "corral/abi.h"

#include <llvm-c/Comdat.h>
#include <llvm-c/DebugInfo.h>

#include <stdlib.h>
#include <string.h>

#define ENTRY_PREFIX "corral.callback."
#define BODY_PREFIX "corral.callback_body."
/* An external function whose entry took its symbol (threads/symbolize.c
 * shows it without the prefix). */
#define EXTERNAL_BODY_PREFIX "corral.managed."

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

/* A direct call of the runtime function name of type: gc-leaf (no
 * statepoint), or a statepoint when it is to give the caller a record. */
static LLVMValueRef build_runtime_call(polls_pass *pass, const char *name, LLVMTypeRef type,
                                       LLVMValueRef *args, unsigned count, int leaf)
{
    LLVMValueRef function = LLVMGetNamedFunction(pass->module, name);
    if (!function)
        function = LLVMAddFunction(pass->module, name, type);
    function_add_flags(pass, function, leaf ? FUNCTION_LEAF : FUNCTION_SAFEPOINT);
    LLVMValueRef call = LLVMBuildCall2(pass->builder, type, function, args, count, "");
    if (leaf)
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
    /* A statepoint without references: the entry's record, by which the
     * runtime knows it for managed code (corral_pthread_create_any). */
    LLVMValueRef needed = build_runtime_call(
        pass, CORRAL_ABI_CALLBACK_NEEDS_ENTRY,
        LLVMFunctionType(LLVMInt32TypeInContext(context), NULL, 0, 0), NULL, 0, 0);
    LLVMBuildCondBr(pass->builder,
                    LLVMBuildICmp(pass->builder, LLVMIntNE, needed,
                                  LLVMConstNull(LLVMTypeOf(needed)), ""),
                    through, direct);

    /* MANAGED (or not attached): the call it was before, as a tail call, so
     * that managed code tail-calling the address still runs in constant stack. */
    LLVMPositionBuilderAtEnd(pass->builder, direct);
    LLVMValueRef *args = xcalloc(count ? count : 1, sizeof *args);
    LLVMGetParams(entry, args);
    LLVMValueRef result = build_call_of(pass, function, args, count);
    LLVMSetTailCallKind(result, LLVMTailCallKindMustTail);
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
    build_runtime_call(pass, "corral_call_managed", LLVMFunctionType(ptr, params, 2, 0), call_args,
                       2, 1);
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

/* Reports a managed function passed to unmanaged function callee (which
 * may call it) that cannot have an entry: an error when it takes or returns
 * references, a warning when C cannot pass its arguments through a frame. */
static void check_callback_argument(polls_pass *pass, LLVMValueRef caller, LLVMValueRef call,
                                    LLVMValueRef function)
{
    if (ptr_table_contains(&pass->callback_entries, function))
        return; /* reported at its first such call */
    ptr_table_put(&pass->callback_entries, function, 0);
    const char *callee = value_name(called_function(call));
    const char *why = why_not_enterable(function);
    if (touches_references(function))
        pass_error(pass, caller, call,
                   "managed function '%s', passed to unmanaged function '%s' (which may call "
                   "it), takes or returns references, which C cannot hold",
                   value_name(function), callee);
    else if (why)
        pass_warning(pass, caller, call,
                     "managed function '%s' is passed to unmanaged function '%s', which may call "
                     "it while the thread is UNMANAGED; the pass cannot give it an entry (%s): "
                     "have C call it through corral_call_managed",
                     value_name(function), callee, why);
}

static void check_callback_arguments_of_call(polls_pass *pass, LLVMValueRef caller,
                                             LLVMValueRef call)
{
    LLVMValueRef callee = called_function(call);
    if (!callee || takes_no_callbacks(callee) || classify_call(pass, call) != CALL_UNMANAGED)
        return;
    unsigned count = LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef function = managed_function_named_by(pass, LLVMGetOperand(call, i));
        if (function && !function_calls(function, "corral_thread_attach"))
            check_callback_argument(pass, caller, call, function);
    }
}

/* Whether operand `index` of an instruction keeps the function: the callee
 * of a call, an argument of a function taking no callbacks. */
static int operand_keeps_function(LLVMValueRef inst, unsigned index)
{
    if (!is_call_site(inst))
        return 0;
    if (index == (unsigned)LLVMGetNumOperands(inst) - 1)
        return 1; /* the callee is the last operand */
    LLVMValueRef callee = called_function(inst);
    return index < LLVMGetNumArgOperands(inst) && callee && takes_no_callbacks(callee);
}

/* The module's own tables (llvm.used, llvm.global.annotations) name
 * functions, not addresses C calls. Not llvm.global_ctors and
 * llvm.global_dtors: the C library calls those, at load (dlopen included)
 * and at exit, when main has left managed code. */
static int is_llvm_table(LLVMValueRef global)
{
    const char *name = value_name(global);
    return strncmp(name, "llvm.", 5) == 0 && strcmp(name, "llvm.global_ctors") != 0 &&
           strcmp(name, "llvm.global_dtors") != 0;
}

static int is_aggregate_constant(LLVMValueRef constant)
{
    return LLVMIsAConstantStruct(constant) || LLVMIsAConstantArray(constant) ||
           LLVMIsAConstantVector(constant);
}

/* A cast constant_with_entry rebuilds around the entry. */
static int is_rebuilt_cast(LLVMValueRef constant)
{
    if (!LLVMIsAConstantExpr(constant))
        return 0;
    LLVMOpcode opcode = LLVMGetConstOpcode(constant);
    return opcode == LLVMBitCast || opcode == LLVMAddrSpaceCast || opcode == LLVMPtrToInt;
}

/* Whether constant_with_entry would replace anything in constant. */
static int constant_holds(LLVMValueRef constant, LLVMValueRef function)
{
    if (constant == function)
        return 1;
    if (is_rebuilt_cast(constant))
        return constant_holds(LLVMGetOperand(constant, 0), function);
    if (!is_aggregate_constant(constant))
        return 0;
    for (int i = 0, count = LLVMGetNumOperands(constant); i < count; i++)
        if (constant_holds(LLVMGetOperand(constant, i), function))
            return 1;
    return 0;
}

/* constant with function replaced by entry, through aggregates and the
 * casts above (other constants, rare in C, keep the function). */
static LLVMValueRef constant_with_entry(polls_pass *pass, LLVMValueRef constant,
                                        LLVMValueRef function, LLVMValueRef entry)
{
    if (!constant_holds(constant, function))
        return constant;
    if (constant == function)
        return entry;
    LLVMTypeRef type = LLVMTypeOf(constant);
    if (is_rebuilt_cast(constant)) {
        LLVMValueRef operand =
            constant_with_entry(pass, LLVMGetOperand(constant, 0), function, entry);
        LLVMOpcode opcode = LLVMGetConstOpcode(constant);
        return opcode == LLVMBitCast         ? LLVMConstBitCast(operand, type)
               : opcode == LLVMAddrSpaceCast ? LLVMConstAddrSpaceCast(operand, type)
                                             : LLVMConstPtrToInt(operand, type);
    }
    unsigned count = (unsigned)LLVMGetNumOperands(constant);
    LLVMValueRef *elements = xcalloc(count ? count : 1, sizeof *elements);
    for (unsigned i = 0; i < count; i++)
        elements[i] = constant_with_entry(pass, LLVMGetOperand(constant, i), function, entry);
    LLVMValueRef result;
    if (LLVMIsAConstantArray(constant))
        result = LLVMConstArray2(LLVMGetElementType(type), elements, count);
    else if (LLVMIsAConstantVector(constant))
        result = LLVMConstVector(elements, count);
    else if (LLVMGetStructName(type))
        result = LLVMConstNamedStruct(type, elements, count);
    else
        result = LLVMConstStructInContext(pass->context, elements, count,
                                          LLVMIsPackedStruct(type));
    free(elements);
    return result;
}

/* The instructions, globals and aliases that hold value, through constants
 * (not through a blockaddress, which names a label of the function). */
static void collect_holders(LLVMValueRef value, value_list *holders, ptr_table *seen)
{
    for (LLVMUseRef use = LLVMGetFirstUse(value); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsABlockAddress(user) || ptr_table_contains(seen, user))
            continue;
        ptr_table_put(seen, user, 1);
        if (LLVMIsAInstruction(user) || LLVMIsAGlobalValue(user))
            VEC_PUSH(*holders, user);
        else if (LLVMIsAConstant(user))
            collect_holders(user, holders, seen);
    }
}

/* Whether holder has the function's address (not as a direct callee, or
 * in the module's own tables); unless dry_run, replaces it by entry. */
static int replace_in_holder(polls_pass *pass, LLVMValueRef holder, LLVMValueRef function,
                             LLVMValueRef entry, int dry_run)
{
    if (LLVMIsAGlobalVariable(holder) || LLVMIsAGlobalAlias(holder)) {
        int variable = LLVMIsAGlobalVariable(holder) != NULL;
        LLVMValueRef old = variable ? LLVMGetInitializer(holder) : LLVMAliasGetAliasee(holder);
        if (!old || is_llvm_table(holder) || !constant_holds(old, function))
            return 0;
        if (dry_run)
            return 1;
        if (variable)
            LLVMSetInitializer(holder, constant_with_entry(pass, old, function, entry));
        else
            LLVMAliasSetAliasee(holder, constant_with_entry(pass, old, function, entry));
        return 1;
    }
    if (!LLVMIsAInstruction(holder))
        return 0;
    int holds = 0;
    for (unsigned i = 0, count = (unsigned)LLVMGetNumOperands(holder); i < count; i++) {
        LLVMValueRef operand = LLVMGetOperand(holder, i);
        if (operand_keeps_function(holder, i) || !constant_holds(operand, function))
            continue;
        holds = 1;
        if (!dry_run)
            LLVMSetOperand(holder, i, constant_with_entry(pass, operand, function, entry));
    }
    return holds;
}

/* How many holders have the function's address, replacing it by entry
 * unless entry is NULL. Direct calls, and the arguments of functions that
 * take no callbacks (the runtime's own, the thread starters, signal), keep
 * the function. */
static size_t replace_address_uses(polls_pass *pass, LLVMValueRef function, LLVMValueRef entry)
{
    value_list holders = {0};
    ptr_table seen;
    ptr_table_init(&seen);
    collect_holders(function, &holders, &seen);
    size_t replaced = 0;
    for (size_t h = 0; h < holders.count; h++)
        replaced += replace_in_holder(pass, holders.items[h], function, entry, entry == NULL);
    ptr_table_free(&seen);
    VEC_FREE(holders);
    return replaced;
}

/* Whether C can enter the function through an entry: no references, its
 * arguments in registers, not a signal handler, not attaching itself. */
static int enterable(polls_pass *pass, LLVMValueRef function)
{
    return !(function_flags(pass, function) & FUNCTION_SIGNAL_HANDLER) &&
           !touches_references(function) && !why_not_enterable(function) &&
           !function_calls(function, "corral_thread_attach");
}

/* Whether the function's address gets its entry: it is taken and it may
 * reach C. */
static int address_needs_entry(polls_pass *pass, LLVMValueRef function)
{
    return replace_address_uses(pass, function, NULL) > 0 &&
           function_address_may_reach_c(pass, function);
}

/* Whether C in other files may call the function by name, so its symbol
 * should be its entry: external (not weak, not in a comdat, which another
 * object's copy may replace), not main (the C library calls it before
 * corral_init) nor named like the runtime's. */
static int symbol_needs_entry(polls_pass *pass, LLVMValueRef function)
{
    const char *name = value_name(function);
    return !pass->options.keep_external_symbols &&
           LLVMGetLinkage(function) == LLVMExternalLinkage && !LLVMGetComdat(function) &&
           strcmp(name, "main") != 0 && strncmp(name, "corral_", 7) != 0;
}

void enter_managed_callbacks_through_runtime(polls_pass *pass)
{
    size_t managed = pass->managed_functions.count; /* not the entries added here */
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(pass->builder);
    for (size_t f = 0; f < managed; f++) {
        LLVMValueRef caller = pass->managed_functions.items[f];
        for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(caller); block;
             block = LLVMGetNextBasicBlock(block))
            for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
                 inst = LLVMGetNextInstruction(inst))
                if (is_call_site(inst))
                    check_callback_arguments_of_call(pass, caller, inst);
    }
    for (size_t f = 0; f < managed && !pass->error_count; f++) {
        LLVMValueRef function = pass->managed_functions.items[f];
        if (!enterable(pass, function))
            continue;
        int address = address_needs_entry(pass, function);
        int symbol = symbol_needs_entry(pass, function);
        if (!address && !symbol)
            continue;
        LLVMValueRef entry = build_entry(pass, function);
        ptr_table_put(&pass->callback_entries, function, (uintptr_t)entry);
        if (address)
            replace_address_uses(pass, function, entry);
        if (symbol)
            VEC_PUSH(pass->external_entries, function);
    }
    if (saved)
        LLVMPositionBuilderAtEnd(pass->builder, saved);
}

/* main returns to the C library, which then runs the atexit handlers and
 * exits with main's thread still attached, MANAGED, and its frames gone: a
 * collection on another thread would wait for it, and a handler's entry
 * found it MANAGED and ran the handler where no walk could follow ("a
 * managed return address without a stackmap record ... libc.so.6"). Before
 * each of main's returns, after its return poll, the thread leaves managed
 * code for good when main is its outermost managed frame (corral/abi.h). */
void leave_managed_code_when_main_returns(polls_pass *pass)
{
    LLVMValueRef main_function = LLVMGetNamedFunction(pass->module, "main");
    if (!main_function || LLVMIsDeclaration(main_function) ||
        has_internal_linkage(main_function) ||
        !(function_flags(pass, main_function) & FUNCTION_MANAGED))
        return;
    LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(pass->context), NULL, 0, 0);
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(pass->builder);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(main_function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef ret = LLVMGetBasicBlockTerminator(block);
        /* A musttail callee runs as main's return: it stays managed code. */
        if (!ret || LLVMGetInstructionOpcode(ret) != LLVMRet || function_exit_point(ret) != ret)
            continue;
        LLVMPositionBuilderBefore(pass->builder, ret);
        LLVMValueRef call =
            build_runtime_call(pass, CORRAL_ABI_MAIN_RETURNS, type, NULL, 0, 0);
        LLVMInstructionSetDebugLoc(call, LLVMInstructionGetDebugLoc(ret));
    }
    if (saved)
        LLVMPositionBuilderAtEnd(pass->builder, saved);
}

void publish_external_entries(polls_pass *pass)
{
    for (size_t i = 0; i < pass->external_entries.count; i++) {
        LLVMValueRef function = pass->external_entries.items[i];
        uintptr_t entry_word = 0;
        ptr_table_get(&pass->callback_entries, function, &entry_word);
        LLVMValueRef entry = (LLVMValueRef)entry_word;
        char *name = xstrdup(value_name(function));
        char *internal_name = xasprintf(EXTERNAL_BODY_PREFIX "%s", name);
        LLVMSetValueName2(function, internal_name, strlen(internal_name));
        LLVMSetValueName2(entry, name, strlen(name));
        LLVMSetLinkage(entry, LLVMGetLinkage(function));
        LLVMSetVisibility(entry, LLVMGetVisibility(function));
        LLVMSetDLLStorageClass(entry, LLVMGetDLLStorageClass(function));
        LLVMSetLinkage(function, LLVMInternalLinkage);
        LLVMSetVisibility(function, LLVMDefaultVisibility);
        LLVMSetDLLStorageClass(function, LLVMDefaultStorageClass);
        free(internal_name);
        free(name);
    }
}
