/* fuzz_corral_opt.c — libFuzzer target for corral-opt's input: arbitrary
 * bytes as LLVM bitcode or text IR, and valid modules mutated at the IR
 * level.
 *
 * Each input goes the way corral-opt takes it: LLVMParseIRInContext (text
 * or bitcode), corral_polls_run with options picked from a hash of the
 * input, and, when the pass accepts, x86-64 code generation into memory.
 * corral-opt must accept or reject, never crash. Checked beyond "no crash"
 * (ASan + UBSan on the pass, which is compiled into the target):
 *   - rejected: at least one error diagnostic, each one line, non-empty;
 *   - accepted: no error diagnostic, the module verifies, and it codegens.
 * An LLVM fatal error (report_fatal_error) is a finding: the handler prints
 * the reason and aborts, so libFuzzer saves the input.
 *
 * Mutations: half the time libFuzzer's byte mutations (with the dictionary
 * tests/fuzz/corral_opt.dict they make plausible text IR); otherwise the
 * input is parsed and changed as IR (an operand replaced by another value of
 * its type, an instruction deleted, a call inserted, a branch retargeted so
 * loops appear, a reference hidden in an integer across a call, function
 * attributes toggled) and written back in its own format.
 *
 * Environment:
 *   FUZZ_CORRAL_OPT_CODEGEN=0          skip code generation (faster)
 *   FUZZ_CORRAL_OPT_VERIFY_INPUT=1     skip inputs the IR verifier rejects
 *       before they reach the pass (which now rejects them itself: this
 *       spends the executions on valid IR)
 *   FUZZ_CORRAL_OPT_BITCODE=0          skip bitcode inputs and mutate into
 *       text: LLVM's bitcode reader itself crashes on malformed bitcode
 *       (see docs/stress.md), which hides everything behind it
 *
 * LLVM 19's text parser crashes on some malformed IR too (an inline asm
 * constraint "@x" throws std::length_error: tests/stress/fuzz_findings/
 * inline_asm_constraint_abort.ll). That is LLVM's code, which corral-opt
 * contains by parsing under crash handlers that name the input and exit;
 * here the parse runs under a guard
 * that jumps back out of SIGABRT, SIGSEGV or SIGBUS, keeps the parser's
 * context (it may be half-built) and counts the input, printed at exit.
 * Everything after the parse (corral's pass) stays unguarded.
 *
 * Build: cmake -DCORRAL_FUZZ=ON -DCMAKE_C_COMPILER=clang-19 ...; then
 *   cmake --build BUILD --target fuzz-corral_opt-run      (CORRAL_FUZZ_SECONDS)
 * or by hand:
 *   BUILD/fuzz/fuzz_corral_opt -dict=tests/fuzz/corral_opt.dict -max_len=65536 \
 *       CORPUS tests/fuzz/corpus/corral_opt tests/polls/ir
 */
#include "corral/safepoint_pass.h"
#include "emit.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/TargetMachine.h>

#include <sanitizer/lsan_interface.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

enum { MAX_INPUT = 1 << 16 };

static int codegen = 1;
static int verify_input;
static int bitcode = 1;

static void fatal_error_handler(const char *reason)
{
    fprintf(stderr, "fuzz_corral_opt: LLVM fatal error (a finding: save this input): %s\n", reason);
    fflush(stderr);
    abort();
}

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_corral_opt: %s: %s\n", what, detail ? detail : "");
    fflush(stderr);
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *text = getenv("FUZZ_CORRAL_OPT_CODEGEN");
    codegen = !(text && strcmp(text, "0") == 0);
    text = getenv("FUZZ_CORRAL_OPT_VERIFY_INPUT");
    verify_input = text && strcmp(text, "1") == 0;
    text = getenv("FUZZ_CORRAL_OPT_BITCODE");
    bitcode = !(text && strcmp(text, "0") == 0);
    LLVMInstallFatalErrorHandler(fatal_error_handler);
    return 0;
}

/* LLVM's own diagnostics (as corral-opt's handler, minus the printing):
 * without a handler an error diagnostic would exit the process. */
static void diagnostic_handler(LLVMDiagnosticInfoRef info, void *context)
{
    int *errors = context;
    if (LLVMGetDiagInfoSeverity(info) == LLVMDSError)
        (*errors)++;
}

static uint64_t hash_bytes(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3ull;
    return h;
}

static int is_bitcode(const uint8_t *data, size_t size)
{
    return size >= 4 && data[0] == 'B' && data[1] == 'C' && data[2] == 0xc0 && data[3] == 0xde;
}

/* The parse guard (see the top). Single-threaded: libFuzzer runs inputs on
 * one thread. */
static sigjmp_buf parser_escape;
static size_t parser_crashes;
/* Contexts a crashed parse left behind, never disposed: reachable from here,
 * so LeakSanitizer does not report them. */
static LLVMContextRef abandoned_contexts[4096];

static void parser_crashed(int signal)
{
    siglongjmp(parser_escape, signal);
}

/* At the 1st, 2nd, 4th, 8th... skipped input: libFuzzer's fuzzing loop ends
 * with _Exit, so there is no report at exit. */
static void report_parser_crash(void)
{
    if (parser_crashes & (parser_crashes - 1))
        return;
    fprintf(stderr,
            "fuzz_corral_opt: %zu inputs so far crashed LLVM 19's IR parser (LLVM's code, not "
            "corral's: skipped; corral-opt reports them as malformed IR)\n",
            parser_crashes);
}

/* The module, or NULL when LLVM rejects the input; *crashed when its parser
 * crashed (the context must then be abandoned, not disposed). */
static LLVMModuleRef parse_module(LLVMContextRef context, const uint8_t *data, size_t size,
                                  int *crashed)
{
    LLVMMemoryBufferRef buffer =
        LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)data, size, "fuzz-input");
    LLVMModuleRef module = NULL;
    char *message = NULL;
    struct sigaction guard = {.sa_handler = parser_crashed}, old[3];
    static const int signals[] = {SIGABRT, SIGSEGV, SIGBUS};
    sigemptyset(&guard.sa_mask);
    for (int i = 0; i < 3; i++)
        sigaction(signals[i], &guard, &old[i]);
    /* What a crashed parse allocated is unreachable once it is abandoned. */
    __lsan_disable();
    *crashed = sigsetjmp(parser_escape, 1) != 0;
    /* Takes the buffer, whatever the outcome. */
    int rejected = *crashed || LLVMParseIRInContext(context, buffer, &module, &message);
    __lsan_enable();
    for (int i = 0; i < 3; i++)
        sigaction(signals[i], &old[i], NULL);
    if (*crashed) {
        if (parser_crashes < sizeof abandoned_contexts / sizeof abandoned_contexts[0])
            abandoned_contexts[parser_crashes] = context;
        parser_crashes++;
        report_parser_crash();
        return NULL;
    }
    if (rejected) {
        LLVMDisposeMessage(message);
        return NULL;
    }
    return module;
}

static void check_result(int status, const corral_polls_result *result)
{
    if (!result)
        fail("corral_polls_run left no result", NULL);
    size_t errors = 0;
    for (size_t i = 0; i < result->diagnostic_count; i++) {
        const char *message = result->diagnostics[i].message;
        if (!message || !*message || strchr(message, '\n'))
            fail("a diagnostic that is not one non-empty line", message);
        if (result->diagnostics[i].severity == CORRAL_POLLS_ERROR)
            errors++;
    }
    if (errors != result->error_count)
        fail("error_count disagrees with the diagnostics", NULL);
    if (status == 0 && errors)
        fail("the pass accepted a module it reported errors for", result->diagnostics[0].message);
    if (status != 0 && !errors)
        fail("the pass rejected a module without saying why", NULL);
}

static void generate_code(LLVMModuleRef module)
{
    char *error = NULL;
    LLVMTargetMachineRef tm = emit_create_target_machine(module, NULL, 0, &error);
    if (!tm) {
        free(error); /* an unsupported triple: corral-opt rejects it the same way */
        return;
    }
    LLVMMemoryBufferRef object = NULL;
    char *message = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, module, LLVMObjectFile, &message, &object))
        LLVMDisposeMessage(message);
    else
        LLVMDisposeMemoryBuffer(object);
    LLVMDisposeTargetMachine(tm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT || (!bitcode && is_bitcode(data, size)))
        return 0;
    LLVMContextRef context = LLVMContextCreate();
    int llvm_errors = 0;
    LLVMContextSetDiagnosticHandler(context, diagnostic_handler, &llvm_errors);
    int parser_crashed = 0;
    LLVMModuleRef module = parse_module(context, data, size, &parser_crashed);
    if (parser_crashed)
        return 0;
    if (!module)
        goto done;
    if (verify_input) {
        char *message = NULL;
        int invalid = LLVMVerifyModule(module, LLVMReturnStatusAction, &message);
        LLVMDisposeMessage(message);
        if (invalid)
            goto done;
    }
    /* Options from the input itself, so a saved input replays exactly. */
    uint64_t h = hash_bytes(data, size);
    corral_polls_options options;
    corral_polls_options_init(&options);
    options.input_name = "fuzz-input";
    options.poll_kinds = (h & 1) ? CORRAL_POLL_ALL_KINDS : CORRAL_POLL_DEFAULT_KINDS;
    options.loop_poll_interval = (h & 2) ? 1 : 1000;
    options.prepare_pipeline = (h & 4) ? "default<O2>" : NULL;
    options.externals_are_managed = (h & 8) != 0;
    options.poll_page_access = (h & 16) ? CORRAL_POLL_PAGE_GOT : CORRAL_POLL_PAGE_DIRECT;
    /* corralc's default since the generational collector: most inputs get barriers. */
    options.write_barrier = (h & 96) != 0;
    options.gcroot_mode = (h & 128) ? CORRAL_GCROOT_PROMOTED : CORRAL_GCROOT_SHADOW_STACK;
    options.ref_tags = (h & 256) ? 1u << 1 : 0;
    options.satb_barrier = (h & 512) != 0;
    corral_polls_result *result = NULL;
    int status = corral_polls_run(module, &options, &result);
    check_result(status, result);
    corral_polls_result_free(result);
    if (status == 0 && !llvm_errors) {
        char *message = NULL;
        if (LLVMVerifyModule(module, LLVMReturnStatusAction, &message))
            fail("the pass accepted a module and left invalid IR", message);
        LLVMDisposeMessage(message);
        if (codegen)
            generate_code(module);
    }
done:
    if (module)
        LLVMDisposeModule(module);
    LLVMContextDispose(context);
    return 0;
}

/* ------------------------------------------------------------ mutation */

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t below(uint64_t *state, size_t bound)
{
    return bound ? (size_t)(next_random(state) % bound) : 0;
}

/* A random defined function, or NULL. */
static LLVMValueRef pick_function(LLVMModuleRef module, uint64_t *random)
{
    size_t count = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f))
        count += !LLVMIsDeclaration(f);
    if (!count)
        return NULL;
    size_t target = below(random, count);
    for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f) && target-- == 0)
            return f;
    return NULL;
}

/* A random instruction of function (terminators included when asked). */
static LLVMValueRef pick_instruction(LLVMValueRef function, uint64_t *random, int terminators)
{
    size_t count = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(function); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
            count += terminators || !LLVMIsATerminatorInst(i);
    if (!count)
        return NULL;
    size_t target = below(random, count);
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(function); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
            if ((terminators || !LLVMIsATerminatorInst(i)) && target-- == 0)
                return i;
    return NULL;
}

/* Another value of type: an argument or instruction of the function, or a
 * constant (null, undef, poison). Dominance is not respected on purpose:
 * invalid IR is input corral-opt must survive too. */
static LLVMValueRef pick_value_of_type(LLVMValueRef function, LLVMTypeRef type, uint64_t *random)
{
    LLVMValueRef candidates[64];
    size_t count = 0;
    for (LLVMValueRef a = LLVMGetFirstParam(function); a && count < 64; a = LLVMGetNextParam(a))
        if (LLVMTypeOf(a) == type)
            candidates[count++] = a;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(function); b && count < 64;
         b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i && count < 64;
             i = LLVMGetNextInstruction(i))
            if (LLVMTypeOf(i) == type)
                candidates[count++] = i;
    LLVMTypeKind kind = LLVMGetTypeKind(type);
    if (kind == LLVMLabelTypeKind || kind == LLVMMetadataTypeKind || kind == LLVMTokenTypeKind ||
        kind == LLVMVoidTypeKind)
        return count ? candidates[below(random, count)] : NULL;
    switch (below(random, 4)) {
    case 0:
        return LLVMConstNull(type);
    case 1:
        return LLVMGetUndef(type);
    case 2:
        return LLVMGetPoison(type);
    default:
        return count ? candidates[below(random, count)] : LLVMConstNull(type);
    }
}

static void replace_operand(LLVMValueRef function, uint64_t *random)
{
    LLVMValueRef inst = pick_instruction(function, random, 1);
    if (!inst || LLVMGetNumOperands(inst) == 0 || LLVMIsAPHINode(inst))
        return;
    unsigned index = (unsigned)below(random, (size_t)LLVMGetNumOperands(inst));
    LLVMValueRef old = LLVMGetOperand(inst, index);
    if (LLVMIsAFunction(old) || LLVMIsABasicBlock(old) ||
        LLVMGetValueKind(old) == LLVMMetadataAsValueValueKind)
        return;
    LLVMValueRef replacement = pick_value_of_type(function, LLVMTypeOf(old), random);
    if (replacement && replacement != inst)
        LLVMSetOperand(inst, index, replacement);
}

static void delete_instruction(LLVMValueRef function, uint64_t *random)
{
    LLVMValueRef inst = pick_instruction(function, random, 0);
    if (!inst || LLVMIsAPHINode(inst) || LLVMIsALandingPadInst(inst))
        return;
    LLVMTypeRef type = LLVMTypeOf(inst);
    if (LLVMGetTypeKind(type) != LLVMVoidTypeKind) {
        if (LLVMGetTypeKind(type) == LLVMTokenTypeKind)
            return;
        LLVMReplaceAllUsesWith(inst, LLVMGetPoison(type));
    }
    LLVMInstructionEraseFromParent(inst);
}

/* A call to some function of the module, with null arguments. */
static void insert_call(LLVMModuleRef module, LLVMValueRef function, LLVMBuilderRef builder,
                        uint64_t *random)
{
    LLVMValueRef inst = pick_instruction(function, random, 1);
    size_t count = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f))
        count++;
    size_t target = below(random, count);
    LLVMValueRef callee = LLVMGetFirstFunction(module);
    while (callee && target--)
        callee = LLVMGetNextFunction(callee);
    if (!inst || LLVMIsAPHINode(inst) || !callee || LLVMGetIntrinsicID(callee))
        return;
    LLVMTypeRef type = LLVMGlobalGetValueType(callee);
    if (LLVMIsFunctionVarArg(type))
        return;
    unsigned count_params = LLVMCountParamTypes(type);
    if (count_params > 16)
        return;
    LLVMTypeRef params[16];
    LLVMValueRef args[16];
    LLVMGetParamTypes(type, params);
    for (unsigned i = 0; i < count_params; i++) {
        LLVMTypeKind kind = LLVMGetTypeKind(params[i]);
        if (kind == LLVMLabelTypeKind || kind == LLVMMetadataTypeKind || kind == LLVMTokenTypeKind)
            return;
        args[i] = pick_value_of_type(function, params[i], random);
        if (!args[i])
            return;
    }
    LLVMPositionBuilderBefore(builder, inst);
    LLVMBuildCall2(builder, type, callee, args, count_params, "");
}

/* Points an unconditional branch at another block: new loops, new joins. */
static void retarget_branch(LLVMValueRef function, uint64_t *random)
{
    LLVMValueRef inst = pick_instruction(function, random, 1);
    if (!inst || !LLVMIsABranchInst(inst) || LLVMIsConditional(inst))
        return;
    unsigned blocks = LLVMCountBasicBlocks(function);
    LLVMBasicBlockRef target = LLVMGetFirstBasicBlock(function);
    for (size_t skip = below(random, blocks); skip-- && target;)
        target = LLVMGetNextBasicBlock(target);
    if (target && target != LLVMGetEntryBasicBlock(function))
        LLVMSetSuccessor(inst, 0, target);
}

/* The bug the pass checks for: a reference as an integer across a call. */
static void hide_reference(LLVMModuleRef module, LLVMValueRef function, LLVMBuilderRef builder,
                           uint64_t *random)
{
    LLVMValueRef inst = pick_instruction(function, random, 0);
    if (!inst || LLVMIsAPHINode(inst))
        return;
    LLVMTypeRef type = LLVMTypeOf(inst);
    if (LLVMGetTypeKind(type) != LLVMPointerTypeKind || LLVMGetPointerAddressSpace(type) != 1)
        return;
    LLVMValueRef next = LLVMGetNextInstruction(inst);
    if (!next || LLVMIsAPHINode(next))
        return;
    LLVMContextRef context = LLVMGetModuleContext(module);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
    LLVMPositionBuilderBefore(builder, next);
    LLVMValueRef address = LLVMBuildPtrToInt(builder, inst, i64, "hidden");
    LLVMTypeRef void_fn = LLVMFunctionType(LLVMVoidTypeInContext(context), NULL, 0, 0);
    LLVMValueRef callee = LLVMGetNamedFunction(module, "fuzz_opaque");
    if (!callee)
        callee = LLVMAddFunction(module, "fuzz_opaque", void_fn);
    LLVMBuildCall2(builder, void_fn, callee, NULL, 0, "");
    LLVMValueRef back = LLVMBuildIntToPtr(builder, address, type, "unhidden");
    LLVMValueRef user = pick_instruction(function, random, 0);
    if (user && user != inst && user != address && user != back && LLVMGetNumOperands(user) > 0) {
        unsigned index = (unsigned)below(random, (size_t)LLVMGetNumOperands(user));
        if (LLVMTypeOf(LLVMGetOperand(user, index)) == type && !LLVMIsAPHINode(user))
            LLVMSetOperand(user, index, back);
    }
}

static void toggle_attribute(LLVMModuleRef module, LLVMValueRef function, uint64_t *random)
{
    static const char *const names[] = {"corral-nopoll", "corral-poll-all", "gc-leaf-function",
                                        "frame-pointer"};
    LLVMContextRef context = LLVMGetModuleContext(module);
    const char *name = names[below(random, 4)];
    unsigned length = (unsigned)strlen(name);
    if (LLVMGetStringAttributeAtIndex(function, LLVMAttributeFunctionIndex, name, length))
        LLVMRemoveStringAttributeAtIndex(function, LLVMAttributeFunctionIndex, name, length);
    else
        LLVMAddAttributeAtIndex(function, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(context, name, length, "all", 3));
    if (below(random, 4) == 0)
        LLVMSetGC(function, below(random, 2) ? "coreclr" : "statepoint-example");
}

static size_t serialize(LLVMModuleRef module, int bitcode, uint8_t *data, size_t max_size)
{
    if (bitcode) {
        LLVMMemoryBufferRef buffer = LLVMWriteBitcodeToMemoryBuffer(module);
        size_t size = LLVMGetBufferSize(buffer);
        if (size <= max_size)
            memcpy(data, LLVMGetBufferStart(buffer), size);
        LLVMDisposeMemoryBuffer(buffer);
        return size <= max_size ? size : 0;
    }
    char *text = LLVMPrintModuleToString(module);
    size_t size = strlen(text);
    if (size <= max_size)
        memcpy(data, text, size);
    LLVMDisposeMessage(text);
    return size <= max_size ? size : 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint64_t random = seed * 0x9e3779b97f4a7c15ull + size;
    /* Bitcode is not parsed here when the target skips it: LLVM's reader is
     * not hardened against the bytes mutations make (a 1.7 GB attribute
     * list, seed 1913568249). */
    if (below(&random, 2) == 0 || size > MAX_INPUT || (!bitcode && is_bitcode(data, size)))
        return LLVMFuzzerMutate(data, size, max_size);
    LLVMContextRef context = LLVMContextCreate();
    int errors = 0;
    LLVMContextSetDiagnosticHandler(context, diagnostic_handler, &errors);
    int parser_crashed = 0;
    LLVMModuleRef module = parse_module(context, data, size, &parser_crashed);
    if (parser_crashed)
        return LLVMFuzzerMutate(data, size, max_size);
    size_t result = 0;
    if (module) {
        /* Only valid modules are mutated structurally (printing invalid IR
         * may itself fail); the mutations may then make them invalid. */
        char *message = NULL;
        int invalid = LLVMVerifyModule(module, LLVMReturnStatusAction, &message);
        LLVMDisposeMessage(message);
        LLVMValueRef function = invalid ? NULL : pick_function(module, &random);
        if (function) {
            LLVMBuilderRef builder = LLVMCreateBuilderInContext(context);
            for (size_t n = 1 + below(&random, 3); n--;) {
                switch (below(&random, 7)) {
                case 0: replace_operand(function, &random); break;
                case 1: delete_instruction(function, &random); break;
                case 2: insert_call(module, function, builder, &random); break;
                case 3: retarget_branch(function, &random); break;
                case 4: hide_reference(module, function, builder, &random); break;
                case 5: toggle_attribute(module, function, &random); break;
                default: function = pick_function(module, &random); break;
                }
            }
            LLVMDisposeBuilder(builder);
            result = serialize(module, bitcode && is_bitcode(data, size), data, max_size);
        }
        LLVMDisposeModule(module);
    }
    LLVMContextDispose(context);
    return result ? result : LLVMFuzzerMutate(data, size, max_size);
}
