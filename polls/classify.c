/* classify.c — which functions are managed, leaf, unmanaged or runtime
 * safepoints, and so what each call site becomes.
 *
 * Precedence, most specific first: an annotation in the source, then the
 * --leaf/--unmanaged/--managed lists, then the runtime's safepoint names,
 * then the built-in leaf list, then the default (defined: managed;
 * declared: unmanaged, or managed with externals_are_managed).
 */
#include "pass.h"

#include "corral/abi.h"

#include <string.h>

/* libc functions that never block, never call back into user code and run
 * in time bounded by their arguments: called directly, no GC transition.
 * Anything that may take a lock (malloc, stdio), sleep, do I/O or call a
 * callback (qsort, bsearch) stays unmanaged. */
static const char *const default_leaf_functions[] = {
    /* memory and strings */
    "memcpy", "memmove", "memset", "memcmp", "memchr", "memrchr", "bcmp", "bzero",
    "mempcpy", "memccpy", "bcopy", "explicit_bzero",
    /* their _FORTIFY_SOURCE forms */
    "__memcpy_chk", "__memmove_chk", "__mempcpy_chk", "__memset_chk",
    "strlen", "strnlen", "strcmp", "strncmp", "strchr", "strrchr", "strstr", "strcpy",
    "strncpy", "stpcpy", "stpncpy", "strcat", "strncat", "strspn", "strcspn", "strpbrk",
    /* errno and ctype tables (what isalpha() and errno expand to in glibc) */
    "__errno_location", "__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc",
    "toupper", "tolower",
    /* integer and floating-point arithmetic */
    "abs", "labs", "llabs",
    "sqrt", "sqrtf", "cbrt", "cbrtf", "hypot", "hypotf", "fabs", "fabsf",
    "floor", "floorf", "ceil", "ceilf", "trunc", "truncf", "round", "roundf",
    "lround", "lroundf", "llround", "llroundf", "rint", "rintf", "nearbyint", "nearbyintf",
    "lrint", "lrintf", "llrint", "llrintf",
    "fmod", "fmodf", "remainder", "remainderf", "fmin", "fminf", "fmax", "fmaxf",
    "fma", "fmaf", "copysign", "copysignf", "ldexp", "ldexpf", "frexp", "frexpf",
    "modf", "modff",
    "sin", "sinf", "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf",
    "atan", "atanf", "atan2", "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf",
    "exp", "expf", "exp2", "exp2f", "expm1", "expm1f", "log", "logf", "log2", "log2f",
    "log10", "log10f", "log1p", "log1pf", "pow", "powf",
};

static const char *const runtime_safepoint_functions[] = {CORRAL_ABI_SAFEPOINT_FUNCTIONS};

static unsigned annotation_flag(const char *text, size_t length)
{
    static const struct {
        const char *text;
        unsigned flag;
    } known[] = {
        {CORRAL_ABI_ANNOTATION_LEAF, FUNCTION_LEAF},
        {CORRAL_ABI_ANNOTATION_UNMANAGED, FUNCTION_UNMANAGED},
        {CORRAL_ABI_ANNOTATION_SAFEPOINT, FUNCTION_SAFEPOINT},
        {CORRAL_ABI_ANNOTATION_NOPOLL, FUNCTION_NOPOLL},
        {CORRAL_POLLS_ANNOTATION_POLL_ALL, FUNCTION_POLL_ALL},
        {CORRAL_POLLS_ANNOTATION_NO_BARRIER, FUNCTION_NO_BARRIER},
    };
    /* The string constant includes its NUL terminator. */
    while (length > 0 && text[length - 1] == '\0')
        length--;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i].text) == length && memcmp(known[i].text, text, length) == 0)
            return known[i].flag;
    return 0;
}

/* @llvm.global.annotations = [{ptr @fn, ptr @string, ptr @file, i32 line, ptr args}...] */
static void read_annotations(polls_pass *pass)
{
    LLVMValueRef annotations = LLVMGetNamedGlobal(pass->module, "llvm.global.annotations");
    if (!annotations || LLVMIsDeclaration(annotations))
        return;
    LLVMValueRef array = LLVMGetInitializer(annotations);
    if (!array || !LLVMIsAConstantArray(array))
        return;
    int count = LLVMGetNumOperands(array);
    for (int i = 0; i < count; i++) {
        LLVMValueRef entry = LLVMGetOperand(array, (unsigned)i);
        if (!LLVMIsAConstantStruct(entry) || LLVMGetNumOperands(entry) < 2)
            continue;
        LLVMValueRef target = LLVMGetOperand(entry, 0);
        LLVMValueRef string_global = LLVMGetOperand(entry, 1);
        if (!LLVMIsAFunction(target) || !LLVMIsAGlobalVariable(string_global))
            continue;
        LLVMValueRef string = LLVMGetInitializer(string_global);
        if (!string || !LLVMIsAConstantDataSequential(string) || !LLVMIsConstantString(string))
            continue;
        size_t length = 0;
        const char *text = LLVMGetAsString(string, &length);
        unsigned flag = annotation_flag(text, length);
        if (flag)
            function_add_flags(pass, target, flag);
    }
}

static unsigned flags_from_attributes(LLVMValueRef function)
{
    unsigned flags = 0;
    if (function_has_string_attribute(function, CORRAL_POLLS_ATTRIBUTE_NOPOLL))
        flags |= FUNCTION_NOPOLL;
    if (function_has_string_attribute(function, CORRAL_POLLS_ATTRIBUTE_POLL_ALL))
        flags |= FUNCTION_POLL_ALL;
    if (LLVMIsDeclaration(function) && function_has_string_attribute(function, "gc-leaf-function"))
        flags |= FUNCTION_LEAF;
    return flags;
}

/* Explicit marks (annotation, attribute, option list) before defaults. */
static unsigned explicit_call_flags(const polls_pass *pass, LLVMValueRef function,
                                    unsigned annotated)
{
    const corral_polls_options *options = &pass->options;
    const char *name = value_name(function);
    unsigned flags = annotated & (FUNCTION_LEAF | FUNCTION_UNMANAGED | FUNCTION_SAFEPOINT);
    if (flags)
        return flags;
    if (string_in(name, options->leaf_functions, options->leaf_function_count))
        flags |= FUNCTION_LEAF;
    if (string_in(name, options->unmanaged_functions, options->unmanaged_function_count))
        flags |= FUNCTION_UNMANAGED;
    if (string_in(name, options->managed_functions, options->managed_function_count))
        flags |= FUNCTION_EXTERNAL_MANAGED;
    return flags;
}

static unsigned default_declaration_flags(const polls_pass *pass, const char *name)
{
    if (string_in(name, runtime_safepoint_functions,
                sizeof runtime_safepoint_functions / sizeof runtime_safepoint_functions[0]))
        return FUNCTION_SAFEPOINT;
    if (!pass->options.no_default_leaf_functions &&
        string_in(name, default_leaf_functions,
                sizeof default_leaf_functions / sizeof default_leaf_functions[0]))
        return FUNCTION_LEAF;
    return pass->options.externals_are_managed ? FUNCTION_EXTERNAL_MANAGED : FUNCTION_UNMANAGED;
}

static int is_single_kind(unsigned flags)
{
    unsigned kinds = flags & (FUNCTION_LEAF | FUNCTION_UNMANAGED | FUNCTION_SAFEPOINT |
                              FUNCTION_EXTERNAL_MANAGED);
    return kinds != 0 && (kinds & (kinds - 1)) == 0;
}

static void classify_definition(polls_pass *pass, LLVMValueRef function, unsigned flags)
{
    if (flags & (FUNCTION_LEAF | FUNCTION_UNMANAGED | FUNCTION_SAFEPOINT)) {
        pass_error(pass, function, NULL,
                   "a managed definition cannot be marked leaf, unmanaged or safepoint "
                   "(those marks are for declarations of C functions); compile it as "
                   "plain C instead");
        return;
    }
    function_add_flags(pass, function, FUNCTION_MANAGED);
    VEC_PUSH(pass->managed_functions, function);
}

static void classify_declaration(polls_pass *pass, LLVMValueRef function, unsigned flags)
{
    if (LLVMGetIntrinsicID(function))
        return;
    unsigned kind = explicit_call_flags(pass, function, flags);
    if (kind && !is_single_kind(kind)) {
        pass_error(pass, NULL, NULL,
                   "function '%s' is marked as more than one of leaf, unmanaged, safepoint "
                   "and managed; expected exactly one",
                   value_name(function));
        return;
    }
    if (!kind)
        kind = default_declaration_flags(pass, value_name(function));
    function_add_flags(pass, function, kind);
}

void classify_functions(polls_pass *pass)
{
    read_annotations(pass);
    for (LLVMValueRef function = LLVMGetFirstFunction(pass->module); function;
         function = LLVMGetNextFunction(function)) {
        if (function == pass->poll_function)
            continue;
        unsigned flags = function_flags(pass, function) | flags_from_attributes(function);
        if (LLVMIsDeclaration(function))
            classify_declaration(pass, function, flags);
        else {
            function_add_flags(pass, function,
                               flags & (FUNCTION_NOPOLL | FUNCTION_POLL_ALL | FUNCTION_NO_BARRIER));
            classify_definition(pass, function, flags);
        }
    }
}

static call_kind classify_callee(const polls_pass *pass, LLVMValueRef call)
{
    LLVMValueRef callee = called_function(call);
    if (!callee) {
        if (LLVMIsAInlineAsm(LLVMGetCalledValue(call)))
            return CALL_INLINE_ASM;
        return CALL_MANAGED; /* indirect calls are managed: see docs/managed-c.md */
    }
    if (callee == pass->poll_function)
        return CALL_POLL;
    if (LLVMGetIntrinsicID(callee))
        return CALL_INTRINSIC;
    /* Never through a wrapper: setjmp must save this frame, and longjmp
     * must not leave the thread UNMANAGED (setjmp.c). */
    if (is_setjmp_call(call) || is_longjmp_function(callee))
        return CALL_LEAF;
    unsigned flags = function_flags(pass, callee);
    if (flags & FUNCTION_WRAPPER)
        return CALL_UNMANAGED;
    if (flags & (FUNCTION_MANAGED | FUNCTION_EXTERNAL_MANAGED))
        return CALL_MANAGED;
    if (flags & FUNCTION_SAFEPOINT)
        return CALL_SAFEPOINT;
    if ((flags & FUNCTION_LEAF) || call_has_string_attribute(call, "gc-leaf-function"))
        return CALL_LEAF;
    return CALL_UNMANAGED;
}

/* A musttail call of managed code stays a tail jump, not a statepoint: the
 * callee's frame replaces this one, so nothing of this frame is live after
 * the jump, and a collection inside the callee walks the callee's frame and
 * then, through the return address, the caller's statepoint below. */
call_kind classify_call(const polls_pass *pass, LLVMValueRef call)
{
    call_kind kind = classify_callee(pass, call);
    if (kind == CALL_MANAGED && is_musttail_call(call) &&
        !LLVMIsFunctionVarArg(LLVMGetCalledFunctionType(call)))
        return CALL_MANAGED_TAIL;
    /* A signal handler leaves the thread's state as the signal found it
     * (signal_handlers.c): C it calls is called directly. */
    LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
    if (kind == CALL_UNMANAGED && (function_flags(pass, caller) & FUNCTION_SIGNAL_HANDLER))
        return CALL_LEAF;
    return kind;
}

int call_is_statepoint(const polls_pass *pass, LLVMValueRef call)
{
    call_kind kind = classify_call(pass, call);
    return kind == CALL_MANAGED || kind == CALL_SAFEPOINT || kind == CALL_UNMANAGED;
}

int call_is_long_intrinsic(LLVMValueRef call)
{
    LLVMValueRef callee = called_function(call);
    if (!callee || !LLVMGetIntrinsicID(callee))
        return 0;
    int bulk_memory = is_memory_copy_call(call) || calls_function_prefixed(call, "llvm.memset.");
    /* The length is operand 2 of all three; a constant length is short. */
    return bulk_memory && !LLVMIsAConstantInt(LLVMGetOperand(call, 2));
}

void mark_leaf_calls(polls_pass *pass)
{
    for (size_t f = 0; f < pass->managed_functions.count; f++) {
        LLVMValueRef function = pass->managed_functions.items[f];
        for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
             block = LLVMGetNextBasicBlock(block))
            for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
                 inst = LLVMGetNextInstruction(inst)) {
                if (!is_call_site(inst))
                    continue;
                call_kind kind = classify_call(pass, inst);
                if (kind == CALL_LEAF || kind == CALL_INLINE_ASM || kind == CALL_MANAGED_TAIL)
                    add_call_string_attribute(inst, "gc-leaf-function", "");
            }
    }
}
