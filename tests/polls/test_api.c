/* test_api.c — the pass as a library (corral/safepoint_pass.h), the way a JIT uses
 * it: a module built in memory, options in a struct, diagnostics and the
 * poll report back as data. */
#include "tap.h"

#include <corral/safepoint_pass.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/TargetMachine.h>

static const char good_module[] =
    "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n"
    "target triple = \"x86_64-pc-linux-gnu\"\n"
    "declare i32 @puts(ptr)\n"
    "define i64 @count(ptr addrspace(1) %node) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %n = phi ptr addrspace(1) [ %node, %entry ], [ %next, %loop ]\n"
    "  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]\n"
    "  %i.next = add i64 %i, 1\n"
    "  %next = load ptr addrspace(1), ptr addrspace(1) %n\n"
    "  %end = icmp eq ptr addrspace(1) %next, null\n"
    "  br i1 %end, label %done, label %loop\n"
    "done:\n"
    "  %r = call i32 @puts(ptr null)\n"
    "  ret i64 %i.next\n"
    "}\n";

static const char bad_module[] =
    "declare void @sink(ptr addrspace(1))\n"
    "define void @leak(ptr addrspace(1) %r) {\n"
    "  call void @sink(ptr addrspace(1) %r)\n"
    "  ret void\n"
    "}\n";

static LLVMModuleRef parse(LLVMContextRef context, const char *text)
{
    LLVMMemoryBufferRef buffer =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(text, strlen(text), "in-memory");
    LLVMModuleRef module = NULL;
    char *message = NULL;
    if (LLVMParseIRInContext(context, buffer, &module, &message))
        bail_out("test IR does not parse: %s", message);
    return module;
}

static void test_good_module(void)
{
    LLVMContextRef context = LLVMContextCreate();
    LLVMModuleRef module = parse(context, good_module);
    corral_polls_options options;
    corral_polls_options_init(&options);
    options.input_name = "jit-module";
    corral_polls_result *result = NULL;
    int status = corral_polls_run(module, &options, &result);
    is_int(status, 0, "a good module passes");
    ok(result && result->error_count == 0 && result->diagnostic_count == 0, "with no diagnostics");
    is_str(result->input_name, "jit-module", "the result names the input");
    is_int(result->function_count, 1, "one managed function reported");
    is_str(result->functions[0].function, "count", "by name");
    is_int(result->functions[0].polls_inserted, 2, "a loop poll and a return poll");
    ok(result->functions[0].poll_distance > 0 && result->functions[0].poll_distance < 20,
       "a small finite poll distance (%llu)", (unsigned long long)result->functions[0].poll_distance);
    is_int(result->wrappers_created, 1, "one wrapper (puts)");
    char *text = LLVMPrintModuleToString(module);
    like_str(text, "gc \"coreclr\"", "the module was rewritten in place");
    like_str(text, "@llvm.experimental.gc.statepoint", "with statepoints");
    LLVMDisposeMessage(text);
    corral_polls_result_free(result);
    LLVMDisposeModule(module);
    LLVMContextDispose(context);
}

static void test_bad_module(void)
{
    LLVMContextRef context = LLVMContextCreate();
    LLVMModuleRef module = parse(context, bad_module);
    corral_polls_result *result = NULL;
    int status = corral_polls_run(module, NULL, &result);
    is_int(status, -1, "a module passing a reference to C fails");
    is_int(result->error_count, 1, "with one error");
    ok(result->diagnostic_count == 1 && result->diagnostics[0].severity == CORRAL_POLLS_ERROR,
       "reported as an error diagnostic");
    is_str(result->diagnostics[0].function, "leak", "naming the function");
    like_str(result->diagnostics[0].message, "reference passed to unmanaged function 'sink'",
             "and saying what is wrong");
    corral_polls_result_free(result);
    LLVMDisposeModule(module);
    LLVMContextDispose(context);
}

/* A JIT has no fatal-error handler to save it: a data layout the pass cannot
 * extend (here one holding a NUL byte) must come back as a diagnostic. */
static void test_unextendable_data_layout(void)
{
    static const char module_text[] =
        "target datalayout = \"e-m:e-i64:64-S128-ex:\\00y\"\n"
        "define ptr addrspace(1) @id(ptr addrspace(1) %r) gc \"coreclr\" {\n"
        "  ret ptr addrspace(1) %r\n"
        "}\n";
    LLVMContextRef context = LLVMContextCreate();
    LLVMModuleRef module = parse(context, module_text);
    corral_polls_result *result = NULL;
    int status = corral_polls_run(module, NULL, &result);
    is_int(status, -1, "a data layout holding a NUL byte is rejected");
    ok(result->diagnostic_count == 1 && result->diagnostics[0].severity == CORRAL_POLLS_ERROR,
       "as one error diagnostic");
    like_str(result->diagnostics[0].message, "cannot add address space 1 to the data layout",
             "saying what the pass could not do");
    corral_polls_result_free(result);
    LLVMDisposeModule(module);
    LLVMContextDispose(context);
}

static void test_parse_kinds(void)
{
    unsigned mask = 0;
    char error[256];
    ok(corral_polls_parse_kinds("loop,entry", &mask, error, sizeof error) == 0 &&
           mask == (CORRAL_POLL_LOOP | CORRAL_POLL_ENTRY),
       "parse_kinds reads a list");
    ok(corral_polls_parse_kinds("all", &mask, error, sizeof error) == 0 && mask == CORRAL_POLL_ALL_KINDS,
       "parse_kinds: all");
    ok(corral_polls_parse_kinds("none", &mask, error, sizeof error) == 0 && mask == 0, "parse_kinds: none");
    ok(corral_polls_parse_kinds("loop,often", &mask, error, sizeof error) == -1 &&
           strstr(error, "'often'"),
       "parse_kinds names a bad word");
}

/* What a JIT generates code for: the machine the test was compiled for,
 * whatever LLVM's headers call native, with its LLVM target registered. */
static void test_jit_target(void)
{
#if defined(__aarch64__)
    const char *expected = "aarch64-";
#else
    const char *expected = "x86_64-";
#endif
    const char *triple = corral_polls_jit_target();
    ok(triple && strncmp(triple, expected, strlen(expected)) == 0,
       "jit_target is this machine's triple: %s", triple ? triple : "(null)");
    LLVMTargetRef target = NULL;
    char *message = NULL;
    ok(triple && LLVMGetTargetFromTriple(triple, &target, &message) == 0 && target,
       "its LLVM target is registered");
    LLVMDisposeMessage(message);
    ok(corral_polls_jit_target() == triple, "a second call returns the same string");
}

int main(void)
{
    test_good_module();
    test_bad_module();
    test_unextendable_data_layout();
    test_parse_kinds();
    test_jit_target();
    return done_testing();
}
