/* signal_handlers.c — managed functions installed as signal handlers.
 *
 * A handler runs wherever the signal lands: in managed code, in C called
 * through a transition wrapper (UNMANAGED), or inside a collection on this
 * very thread (PARKED). Its poll there stopped the program ("a safepoint
 * poll on thread 1 while it is PARKED"), and a transition wrapper around a
 * C call in it (write, _exit) would overwrite the anchor of the C call it
 * interrupted. So a handler gets no polls and calls C directly, leaving the
 * thread's state as the signal found it; it must not allocate, and a
 * managed function it calls may poll (a warning names it).
 *
 * Handlers found: the function argument of signal, sigset, bsd_signal and
 * sysv_signal, and a function stored into the memory whose address is
 * sigaction's second argument (a local `struct sigaction`, a global one, or
 * a constant copied into it), sa_handler and sa_sigaction alike; through a
 * parameter, what the helper's callers pass (install(SIGINT, on_interrupt)).
 */
#include "pass.h"
#include "util.h"

#include <string.h>

static int installs_by_argument(LLVMValueRef callee)
{
    static const char *const names[] = {"signal", "sigset", "bsd_signal", "sysv_signal"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(value_name(callee), names[i]) == 0)
            return 1;
    return 0;
}

/* Helpers passing a handler on (install(sig, h) calling signal(sig, h))
 * are followed this many calls up. */
#define HELPER_DEPTH 4

static void mark_handler_at(polls_pass *pass, LLVMValueRef value, int depth)
{
    LLVMValueRef function = function_named_by(value);
    if (function && (function_flags(pass, function) & FUNCTION_MANAGED))
        function_add_flags(pass, function, FUNCTION_SIGNAL_HANDLER | FUNCTION_NOPOLL);
    if (!LLVMIsAArgument(value) || depth >= HELPER_DEPTH)
        return;
    /* A parameter: the handlers the helper's direct callers pass. */
    LLVMValueRef helper = LLVMGetParamParent(value);
    unsigned index = 0;
    while (LLVMGetParam(helper, index) != value)
        index++;
    for (LLVMUseRef use = LLVMGetFirstUse(helper); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef call = LLVMGetUser(use);
        if (is_call_site(call) && LLVMGetCalledValue(call) == helper &&
            index < LLVMGetNumArgOperands(call))
            mark_handler_at(pass, LLVMGetOperand(call, index), depth + 1);
    }
}

static void mark_handler(polls_pass *pass, LLVMValueRef value)
{
    mark_handler_at(pass, value, 0);
}

/* Every function a constant holds, through aggregates and casts. */
static void mark_handlers_in_constant(polls_pass *pass, LLVMValueRef constant)
{
    if (LLVMIsAFunction(constant)) {
        mark_handler(pass, constant);
        return;
    }
    if (LLVMIsAGlobalValue(constant) || !LLVMIsAConstant(constant))
        return;
    for (int i = 0, count = LLVMGetNumOperands(constant); i < count; i++)
        mark_handlers_in_constant(pass, LLVMGetOperand(constant, i));
}

/* The functions stored into the memory at address, or copied into it from
 * a global's initializer. */
static void mark_handlers_stored_at(polls_pass *pass, LLVMValueRef address)
{
    for (LLVMUseRef use = LLVMGetFirstUse(address); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == address)
            mark_handler(pass, LLVMGetOperand(user, 0));
        else if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user) ||
                 (LLVMIsAConstantExpr(user) && LLVMGetConstOpcode(user) == LLVMGetElementPtr))
            mark_handlers_stored_at(pass, user);
        else if (is_memory_copy_call(user) && LLVMGetOperand(user, 0) == address) {
            LLVMValueRef source = strip_address(LLVMGetOperand(user, 1));
            if (LLVMIsAGlobalVariable(source) && LLVMGetInitializer(source))
                mark_handlers_in_constant(pass, LLVMGetInitializer(source));
        }
    }
}

static void mark_handlers_installed_by(polls_pass *pass, LLVMValueRef call)
{
    LLVMValueRef callee = called_function(call);
    if (!callee || LLVMGetNumArgOperands(call) < 2)
        return;
    if (installs_by_argument(callee)) {
        mark_handler(pass, LLVMGetOperand(call, 1));
    } else if (strcmp(value_name(callee), "sigaction") == 0) {
        LLVMValueRef memory = strip_address(LLVMGetOperand(call, 1));
        if (LLVMIsAGlobalVariable(memory) && LLVMGetInitializer(memory))
            mark_handlers_in_constant(pass, LLVMGetInitializer(memory));
        mark_handlers_stored_at(pass, memory);
    }
}

/* A managed function a handler calls polls unless marked otherwise. */
static void warn_of_managed_callees(polls_pass *pass, LLVMValueRef handler)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(handler); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            LLVMValueRef callee = is_call_site(inst) ? called_function(inst) : NULL;
            if (callee && (function_flags(pass, callee) & FUNCTION_MANAGED) &&
                !(function_flags(pass, callee) & FUNCTION_NOPOLL))
                pass_warning(pass, handler, inst,
                             "signal handler '%s' calls managed function '%s', which polls: a "
                             "signal that lands during a collection then stops the program; "
                             "mark '%s' CORRAL_NOPOLL",
                             value_name(handler), value_name(callee), value_name(callee));
        }
}

void find_signal_handlers(polls_pass *pass)
{
    FOR_EACH_INSTRUCTION_IN_MODULE(pass->module, function, block, inst)
        if (is_call_site(inst))
            mark_handlers_installed_by(pass, inst);
    for (size_t f = 0; f < pass->managed_functions.count; f++) {
        LLVMValueRef function = pass->managed_functions.items[f];
        if (function_flags(pass, function) & FUNCTION_SIGNAL_HANDLER)
            warn_of_managed_callees(pass, function);
    }
}
