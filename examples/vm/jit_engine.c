/* jit_engine.c — from a tiny program to running code: emit, run the corral
 * pass, generate code with MCJIT, register the stackmaps.
 *
 * Why MCJIT: the LLVM-C API lets a simple MCJIT memory manager see every
 * section it allocates by name, and the stackmap section is one of them:
 * ".llvm_stackmaps" (read-only data, allocated like any other). RuntimeDyld
 * writes the section into our memory and applies its relocations (the
 * function addresses in it) before finalizing, so after the first
 * LLVMGetFunctionAddress the bytes are exactly what corral_register_stackmaps
 * wants.
 */
#include "jit.h"

#include <corral.h>
#include <corral/abi.h>
#include <corral/jit.h>
#include <corral/safepoint_pass.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "io.h"
#include "value.h"

void *tiny_jit_current_tlab(void)
{
    return &corral_thread_tlab;
}

/* Every symbol compiled code may reference. A statically linked runtime's
 * symbols are not visible to dlsym, so each is given to LLVM by address. */
typedef struct jit_symbol {
    const char *name;
    void *address;
    int leaf; /* never blocks nor collects: called directly, may take references */
} jit_symbol;

static const jit_symbol jit_symbols[] = {
    {CORRAL_ABI_POLL_PAGE, (void *)corral_poll_page, 0},
    {CORRAL_ABI_POLL_SLOW, (void *)corral_poll_slow, 0},
    /* The GC-transition entry points (corral/jit.h) of the wrappers the pass
     * emits around unmanaged calls: the _at form on AArch64. */
    {CORRAL_ABI_TO_UNMANAGED, (void *)corral_transition_to_unmanaged, 0},
    {CORRAL_ABI_TO_UNMANAGED_AT, (void *)corral_transition_to_unmanaged_at, 0},
    {CORRAL_ABI_TO_MANAGED, (void *)corral_transition_to_managed, 0},
    /* The entries of functions C may call (each external one: the symbol
     * the host looks up), and a managed main's return (corral/abi.h). */
    {CORRAL_ABI_CALLBACK_NEEDS_ENTRY, (void *)corral_callback_needs_entry, 0},
    {"corral_call_managed", (void *)corral_call_managed, 0},
    {CORRAL_ABI_MAIN_RETURNS, (void *)corral_main_returns, 0},
    /* First in a landing pad, should the JIT's code have one. */
    {CORRAL_ABI_LANDING_PAD_ENTERED, (void *)corral_landing_pad_entered, 0},
    {CORRAL_ABI_PIN_FOR_CALL, (void *)corral_pin_for_call, 1},
    {CORRAL_ABI_UNPIN_AFTER_CALL, (void *)corral_unpin_after_call, 1},
    /* The write barriers' table and slow paths (corral/barrier.h). */
    {CORRAL_ABI_BARRIER_TABLE, (void *)&corral_barrier, 0},
    {CORRAL_ABI_BARRIER_OUTSIDE_HEAP, (void *)corral_write_barrier_outside_heap, 1},
    {CORRAL_ABI_BARRIER_RANGE, (void *)corral_write_barrier_range, 1},
    {CORRAL_ABI_SATB_LOG_RANGE, (void *)corral_satb_log_range, 1},
    {"corral_alloc_slow", (void *)corral_alloc_slow, 0},
    {"tiny_pair_type", (void *)&tiny_pair_type, 0},
    {"tiny_string_type", (void *)&tiny_string_type, 0},
    {"tiny_jit_current_tlab", (void *)tiny_jit_current_tlab, 1},
    {"tiny_string_compare", (void *)tiny_string_compare, 1},
    {"tiny_input_line_length", (void *)tiny_input_line_length, 1},
    {"tiny_input_copy_line", (void *)tiny_input_copy_line, 1},
    /* May block on stdout's lock: unmanaged, so the pass wraps each call in
     * a GC transition. */
    {"tiny_print_integer", (void *)tiny_print_integer, 0},
};
enum { JIT_SYMBOL_COUNT = sizeof jit_symbols / sizeof jit_symbols[0] };

/* The names of the leaf symbols, for the pass's options. */
static const char *leaf_names[JIT_SYMBOL_COUNT];
static size_t leaf_count;

/* ---- memory: one bump arena per section kind, code made executable at
 * finalization (never writable and executable at once). */

enum { ARENA_BYTES = 4 << 20 };

typedef struct arena {
    uint8_t *base;
    size_t used;
} arena;

typedef struct jit_memory {
    arena code, data;
    const uint8_t *stackmaps;
    size_t stackmaps_size;
} jit_memory;

static uint8_t *arena_take(arena *a, uintptr_t size, unsigned alignment)
{
    if (!a->base) {
        void *base = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
        if (base == MAP_FAILED)
            return NULL;
        a->base = base;
    }
    size_t start = (a->used + alignment - 1) & ~(size_t)(alignment - 1);
    if (start + size > ARENA_BYTES)
        return NULL; /* RuntimeDyld reports the failed allocation */
    a->used = start + size;
    return a->base + start;
}

static uint8_t *allocate_code(void *opaque, uintptr_t size, unsigned alignment,
                              unsigned section_id, const char *section_name)
{
    (void)section_id, (void)section_name;
    return arena_take(&((jit_memory *)opaque)->code, size, alignment ? alignment : 16);
}

static uint8_t *allocate_data(void *opaque, uintptr_t size, unsigned alignment,
                              unsigned section_id, const char *section_name, LLVMBool read_only)
{
    (void)section_id, (void)read_only;
    jit_memory *memory = opaque;
    uint8_t *section = arena_take(&memory->data, size, alignment ? alignment : 16);
    if (section && strcmp(section_name, ".llvm_stackmaps") == 0) {
        /* size is an upper bound: RuntimeDyld asks for room for a stub per
         * relocation after the section's bytes (none on x86-64, 20 bytes
         * each on AArch64), never written. The arena is fresh mmap memory,
         * so that room is zero; the table's own length is a multiple of 8,
         * and corral's parser skips zero words after a table. */
        memory->stackmaps = section;
        memory->stackmaps_size = size & ~(uintptr_t)7;
    }
    return section;
}

static LLVMBool finalize_memory(void *opaque, char **error)
{
    arena *code = &((jit_memory *)opaque)->code;
    if (!code->base)
        return 0;
    if (mprotect(code->base, ARENA_BYTES, PROT_READ | PROT_EXEC) != 0) {
        *error = strdup("mprotect of the JIT code arena failed");
        return 1;
    }
    /* AArch64's instruction cache does not see the stores that wrote the
     * code (x86-64's does: there this is nothing). */
    __builtin___clear_cache((char *)code->base, (char *)code->base + code->used);
    return 0;
}

static void destroy_memory(void *opaque)
{
    (void)opaque; /* never: the code must outlive every frame of it */
}

/* ---- LLVM, once per process */

/* The triple of the machine the code runs on (corral_polls_jit_target). */
static const char *jit_triple;

static void initialize_llvm(void)
{
    jit_triple = corral_polls_jit_target();
    LLVMLinkInMCJIT();
    for (size_t i = 0; i < JIT_SYMBOL_COUNT; i++) {
        LLVMAddSymbol(jit_symbols[i].name, jit_symbols[i].address);
        if (jit_symbols[i].leaf)
            leaf_names[leaf_count++] = jit_symbols[i].name;
    }
    /* libc functions code generation may call (memcpy for llvm.memcpy). */
    LLVMLoadLibraryPermanently(NULL);
}

/* The host's target, for the module's data layout and the pass's costs. */
static LLVMTargetMachineRef host_target_machine(char *error, size_t error_size)
{
    LLVMTargetRef target;
    char *message = NULL;
    LLVMTargetMachineRef machine = NULL;
    if (LLVMGetTargetFromTriple(jit_triple, &target, &message) == 0) {
        char *cpu = LLVMGetHostCPUName();
        machine = LLVMCreateTargetMachine(target, jit_triple, cpu, "", LLVMCodeGenLevelDefault,
                                          LLVMRelocDefault, LLVMCodeModelJITDefault);
        LLVMDisposeMessage(cpu);
    } else {
        snprintf(error, error_size, "no LLVM target for %s: %s", jit_triple, message);
    }
    LLVMDisposeMessage(message);
    return machine;
}

/* Runs the corral pass; on failure copies its diagnostics into error. */
static int make_safe_for_gc(LLVMModuleRef module, LLVMTargetMachineRef machine, const char *name,
                            char *error, size_t error_size)
{
    corral_polls_options options;
    corral_polls_options_init(&options);
    options.input_name = name;
    /* JIT code may sit more than 2 GiB from the runtime's polling page. */
    options.poll_page_access = CORRAL_POLL_PAGE_GOT;
    options.target_machine = machine;
    options.prepare_pipeline = "default<O2>";
    options.leaf_functions = leaf_names;
    options.leaf_function_count = leaf_count;
    /* The barriers CORRAL_GC_GENERATIONAL=1 and CORRAL_GC_CONCURRENT=1 need,
     * as corralc --satb-barrier gives: the runtime refuses code without them
     * in those modes. Its only reference stores fill fresh pairs, so the
     * pass elides both. */
    options.write_barrier = 1;
    options.satb_barrier = 1;
    corral_polls_result *result = NULL;
    int status = corral_polls_run(module, &options, &result);
    size_t used = 0;
    error[0] = '\0';
    for (size_t i = 0; status != 0 && i < result->diagnostic_count && used < error_size; i++) {
        const corral_polls_diagnostic *d = &result->diagnostics[i];
        int n = snprintf(error + used, error_size - used, "%s%s: %s", used ? "; " : "",
                         d->function ? d->function : name, d->message);
        used += n > 0 ? (size_t)n : 0;
    }
    corral_polls_result_free(result);
    return status;
}

static void print_module(const char *title, LLVMModuleRef module)
{
    char *text = LLVMPrintModuleToString(module);
    fprintf(stderr, ";; ---- %s\n%s", title, text);
    LLVMDisposeMessage(text);
}

/* IR for the host target, made safe for the collector; NULL on error. */
static LLVMModuleRef build_module(LLVMContextRef context, const tiny_program *program,
                                  const tiny_function *entry_function, const char *name,
                                  int print_ir, char *error, size_t error_size)
{
    LLVMTargetMachineRef machine = host_target_machine(error, error_size);
    if (!machine)
        return NULL;
    LLVMModuleRef module = tiny_jit_emit(context, program, entry_function, name);
    if (!module) {
        snprintf(error, error_size, "%s: out of memory while emitting IR", name);
        LLVMDisposeTargetMachine(machine);
        return NULL;
    }
    char *triple = LLVMGetTargetMachineTriple(machine);
    LLVMSetTarget(module, triple);
    LLVMDisposeMessage(triple);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(machine);
    LLVMSetModuleDataLayout(module, layout);
    LLVMDisposeTargetData(layout);
    char *message = NULL;
    int invalid = LLVMVerifyModule(module, LLVMReturnStatusAction, &message);
    if (invalid)
        snprintf(error, error_size, "%s: emitted IR is invalid: %s", name, message);
    LLVMDisposeMessage(message);
    if (!invalid && print_ir)
        print_module("emitted", module);
    int unsafe = !invalid && make_safe_for_gc(module, machine, name, error, error_size) != 0;
    LLVMDisposeTargetMachine(machine);
    if (invalid || unsafe) {
        LLVMDisposeModule(module);
        return NULL;
    }
    if (print_ir)
        print_module("after the corral pass", module);
    return module;
}

/* Generates code for module (the engine takes it) and returns the entry's
 * address, with the stackmap section recorded in memory; 0 on error. */
static uint64_t generate_code(LLVMModuleRef module, jit_memory *memory, const char *name,
                              char *error, size_t error_size)
{
    struct LLVMMCJITCompilerOptions options;
    LLVMInitializeMCJITCompilerOptions(&options, sizeof options);
    options.OptLevel = 2;
    /* MCJIT rewrites every function's "frame-pointer" attribute from this
     * flag: without it the pass's frame-pointer=all is lost and the walker
     * cannot find frames. */
    options.NoFramePointerElim = 1;
    options.MCJMM = LLVMCreateSimpleMCJITMemoryManager(memory, allocate_code, allocate_data,
                                                       finalize_memory, destroy_memory);
    LLVMExecutionEngineRef engine;
    char *message = NULL;
    if (LLVMCreateMCJITCompilerForModule(&engine, module, &options, sizeof options, &message)) {
        snprintf(error, error_size, "%s: MCJIT: %s", name, message);
        LLVMDisposeMessage(message);
        return 0;
    }
    /* Generates the code, applies relocations, finalizes the memory. The
     * engine is never disposed: the code lives as long as the process. */
    uint64_t entry = LLVMGetFunctionAddress(engine, TINY_JIT_ENTRY_NAME);
    if (!entry || LLVMExecutionEngineGetErrMsg(engine, &message)) {
        snprintf(error, error_size, "%s: code generation failed: %s", name,
                 message ? message : "no entry function");
        LLVMDisposeMessage(message);
        return 0;
    }
    if (!memory->stackmaps) {
        snprintf(error, error_size, "%s: the code has no .llvm_stackmaps section", name);
        return 0;
    }
    return entry;
}

tiny_jit_entry tiny_jit_compile(const tiny_program *program, const tiny_function *entry_function,
                                const char *name, int print_ir, char *error, size_t error_size)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, initialize_llvm);
    LLVMContextRef context = LLVMContextCreate();
    LLVMModuleRef module =
        build_module(context, program, entry_function, name, print_ir, error, error_size);
    if (!module) {
        LLVMContextDispose(context);
        return NULL;
    }
    jit_memory *memory = calloc(1, sizeof *memory);
    uint64_t entry = memory ? generate_code(module, memory, name, error, error_size) : 0;
    if (!entry)
        return NULL; /* the engine owns the module now: leaked with the context */
    /* Before any of the code runs: from now on a GC can walk its frames. */
    if (corral_register_stackmaps(memory->stackmaps, memory->stackmaps_size, name) != 0) {
        snprintf(error, error_size, "%s", corral_last_error());
        return NULL;
    }
    return (tiny_jit_entry)(uintptr_t)entry;
}
