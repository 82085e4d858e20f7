/* hello_polls.c — the corral pass as a library, the way a JIT calls it on
 * a module it built in memory (examples/vm/jit_engine.c goes on to generate
 * code and register its stackmaps). Links corral::polls. */
#include <corral/safepoint_pass.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <string.h>

/* Walks a list: a loop the collector must be able to interrupt, and a
 * reference (%node) live across it. */
static const char module_text[] =
    "define i64 @length(ptr addrspace(1) %list) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %node = phi ptr addrspace(1) [ %list, %entry ], [ %next, %loop ]\n"
    "  %count = phi i64 [ 0, %entry ], [ %count.next, %loop ]\n"
    "  %count.next = add i64 %count, 1\n"
    "  %next = load ptr addrspace(1), ptr addrspace(1) %node\n"
    "  %end = icmp eq ptr addrspace(1) %next, null\n"
    "  br i1 %end, label %done, label %loop\n"
    "done:\n"
    "  ret i64 %count.next\n"
    "}\n";

int main(void)
{
    LLVMContextRef context = LLVMContextCreate();
    LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(
        module_text, strlen(module_text), "hello");
    LLVMModuleRef module;
    char *message;
    if (LLVMParseIRInContext(context, buffer, &module, &message)) {
        fprintf(stderr, "hello_polls: %s\n", message);
        return 1;
    }
    corral_polls_options options;
    corral_polls_options_init(&options);
    options.poll_page_access = CORRAL_POLL_PAGE_GOT; /* JIT code may be far from the runtime */
    corral_polls_result *result;
    int status = corral_polls_run(module, &options, &result);
    for (size_t i = 0; i < result->diagnostic_count; i++)
        fprintf(stderr, "hello_polls: %s\n", result->diagnostics[i].message);
    unsigned polls = result->function_count ? result->functions[0].polls_inserted : 0;
    printf("hello_polls: %s: %u polls inserted in @length\n", status == 0 ? "ok" : "REJECTED",
           polls);
    corral_polls_result_free(result);
    LLVMDisposeModule(module);
    LLVMContextDispose(context);
    return status == 0 && polls > 0 ? 0 : 1;
}
