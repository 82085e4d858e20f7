/* jit_emit.c — a tiny program as LLVM IR, written for the corral pass:
 *   - every value is a `ptr addrspace(1)`: a tagged word (value.h), which
 *     the pass keeps in the stackmaps and corral reads under the tag scheme,
 *     so an integer is `inttoptr (n << 1 | 1)` and never allocates;
 *   - allocation is corral/alloc.h's TLAB bump, inline, with a call to
 *     corral_alloc_slow (a runtime safepoint call) when the TLAB is full;
 *   - C helpers that never block nor collect are called directly and may
 *     take references (the pass's leaf list); tiny_print_integer may block,
 *     so it is left unmanaged and the pass routes it through a GC transition.
 * No polls and no statepoints here: corral_polls_run adds them.
 */
#include "jit.h"

#include <corral.h>
#include <stdio.h>
#include <stdlib.h>

#include "value.h"

typedef struct emitter {
    LLVMContextRef context;
    LLVMModuleRef module;
    LLVMBuilderRef builder;
    LLVMTypeRef i1, i8, i64, ptr, ref, void_type;
    LLVMValueRef pair_type, string_type; /* the corral_type descriptors */
    LLVMValueRef opaque_bits; /* inline asm "": ref -> i64, see emit_untag_int */
    LLVMTypeRef opaque_bits_type;
    LLVMValueRef *functions; /* per tiny function, by index */
    LLVMTypeRef *function_types;
    /* Declarations of what compiled code calls, with their types. */
    LLVMValueRef alloc_slow, current_tlab, string_compare, line_length, copy_line, print, memcpy;
    LLVMTypeRef alloc_slow_type, current_tlab_type, string_compare_type, line_length_type,
        copy_line_type, print_type, memcpy_type;
    /* The function being emitted. */
    LLVMValueRef function, tlab;
    LLVMValueRef locals[TINY_MAX_LOCALS];
} emitter;

static LLVMValueRef constant(emitter *e, int64_t value)
{
    return LLVMConstInt(e->i64, (unsigned long long)value, 1);
}

static LLVMValueRef declare(emitter *e, const char *name, LLVMTypeRef return_type,
                            LLVMTypeRef *params, unsigned count, LLVMTypeRef *type_out)
{
    *type_out = LLVMFunctionType(return_type, params, count, 0);
    return LLVMAddFunction(e->module, name, *type_out);
}

static LLVMValueRef call(emitter *e, LLVMTypeRef type, LLVMValueRef callee, LLVMValueRef *args,
                         unsigned count, const char *name)
{
    return LLVMBuildCall2(e->builder, type, callee, args, count, name);
}

static LLVMBasicBlockRef new_block(emitter *e, const char *name)
{
    return LLVMAppendBasicBlockInContext(e->context, e->function, name);
}

static LLVMValueRef field_address(emitter *e, LLVMValueRef base, int64_t offset)
{
    LLVMValueRef index = constant(e, offset);
    return LLVMBuildGEP2(e->builder, e->i8, base, &index, 1, "");
}

static LLVMValueRef load_field(emitter *e, LLVMTypeRef type, LLVMValueRef object, int64_t offset)
{
    return LLVMBuildLoad2(e->builder, type, field_address(e, object, offset), "");
}

/* The fast path of corral_alloc() in IR: bump the TLAB cursor, zero the
 * object, write the header; corral_alloc_slow (refill, GC) when the object
 * does not fit. The TLAB's words are read volatile, as CORRAL_TLAB_READ
 * does. */
static LLVMValueRef emit_alloc(emitter *e, LLVMValueRef type, uint64_t size)
{
    uint64_t bytes = (size + 7) & ~UINT64_C(7);
    LLVMValueRef cursor = load_field(e, e->ptr, e->tlab, offsetof(corral_tlab, cursor));
    LLVMValueRef limit = load_field(e, e->ptr, e->tlab, offsetof(corral_tlab, limit));
    LLVMValueRef max_inline = load_field(e, e->i64, e->tlab, offsetof(corral_tlab, max_inline));
    LLVMSetValueName2(cursor, "cursor", 6);
    LLVMSetValueName2(limit, "limit", 5);
    LLVMSetValueName2(max_inline, "max_inline", 10);
    /* Volatile: the optimiser runs before corral_polls_run places polls, and
     * a collection at a poll resets the TLAB, so no word may be kept in a
     * register from one allocation to the next (corral/alloc.h). */
    LLVMSetVolatile(cursor, 1);
    LLVMSetVolatile(limit, 1);
    LLVMSetVolatile(max_inline, 1);
    LLVMValueRef room = LLVMBuildSub(e->builder, LLVMBuildPtrToInt(e->builder, limit, e->i64, ""),
                                     LLVMBuildPtrToInt(e->builder, cursor, e->i64, ""), "room");
    LLVMValueRef fits = LLVMBuildAnd(
        e->builder, LLVMBuildICmp(e->builder, LLVMIntULE, constant(e, (int64_t)bytes), room, ""),
        LLVMBuildICmp(e->builder, LLVMIntULE, constant(e, (int64_t)bytes), max_inline, ""), "fits");
    LLVMBasicBlockRef fast = new_block(e, "alloc.fast"), slow = new_block(e, "alloc.slow"),
                      done = new_block(e, "alloc.done");
    LLVMBuildCondBr(e->builder, fits, fast, slow);

    LLVMPositionBuilderAtEnd(e->builder, fast);
    LLVMValueRef size_value = constant(e, (int64_t)bytes);
    LLVMValueRef next = LLVMBuildGEP2(e->builder, e->i8, cursor, &size_value, 1, "");
    LLVMBuildStore(e->builder, next, field_address(e, e->tlab, offsetof(corral_tlab, cursor)));
    /* TLAB memory holds what was there before: zero the object, then its header. */
    LLVMBuildMemSet(e->builder, cursor, LLVMConstInt(LLVMInt8TypeInContext(e->context), 0, 0),
                    size_value, 8);
    LLVMBuildStore(e->builder, type, cursor);
    LLVMValueRef fast_object = LLVMBuildAddrSpaceCast(e->builder, cursor, e->ref, "");
    LLVMBuildBr(e->builder, done);

    LLVMPositionBuilderAtEnd(e->builder, slow);
    LLVMValueRef slow_args[] = {type, constant(e, 0)};
    LLVMValueRef slow_object = call(e, e->alloc_slow_type, e->alloc_slow, slow_args, 2, "");
    LLVMBuildBr(e->builder, done);

    LLVMPositionBuilderAtEnd(e->builder, done);
    LLVMValueRef object = LLVMBuildPhi(e->builder, e->ref, "object");
    LLVMAddIncoming(object, (LLVMValueRef[]){fast_object, slow_object},
                    (LLVMBasicBlockRef[]){fast, slow}, 2);
    return object;
}

/* Strings vary in size: always the slow path, which takes the length. */
static LLVMValueRef emit_alloc_string(emitter *e, LLVMValueRef length)
{
    LLVMValueRef args[] = {e->string_type, length};
    return call(e, e->alloc_slow_type, e->alloc_slow, args, 2, "string");
}

/* The integer value n << 1 | 1 (corral_tag_int in IR): no allocation. */
static LLVMValueRef emit_tag_int(emitter *e, LLVMValueRef n)
{
    LLVMValueRef word = LLVMBuildOr(e->builder, LLVMBuildShl(e->builder, n, constant(e, 1), ""),
                                    constant(e, 1), "");
    return LLVMBuildIntToPtr(e->builder, word, e->ref, "int");
}

/* An integer value's payload (corral_untag_int in IR): an empty asm turns
 * the word into its bits, so the pass sees an integer that is no address
 * and lets it live across safepoints. A ptrtoint would be an integer made
 * from a reference, which optimisation may share between two untags on
 * either side of a call, and the pass then rejects. */
static LLVMValueRef emit_untag_int(emitter *e, LLVMValueRef value)
{
    LLVMValueRef bits = call(e, e->opaque_bits_type, e->opaque_bits, &value, 1, "");
    return LLVMBuildAShr(e->builder, bits, constant(e, 1), "n");
}

/* condition ? 1 : nil: both are words, no allocation. */
static LLVMValueRef emit_truth(emitter *e, LLVMValueRef condition)
{
    return LLVMBuildSelect(e->builder, condition, emit_tag_int(e, constant(e, 1)),
                           LLVMConstNull(e->ref), "truth");
}

static LLVMValueRef emit_substring(emitter *e, LLVMValueRef string, LLVMValueRef start_value,
                                   LLVMValueRef end_value)
{
    LLVMValueRef start = emit_untag_int(e, start_value);
    LLVMValueRef end = emit_untag_int(e, end_value);
    LLVMValueRef length = LLVMBuildSub(e->builder, end, start, "length");
    LLVMValueRef result = emit_alloc_string(e, length);
    /* string is used after the allocation: the pass relocates it there. */
    LLVMValueRef source = LLVMBuildGEP2(
        e->builder, e->i8, field_address(e, string, TINY_STRING_BYTES_OFFSET), &start, 1, "");
    LLVMValueRef args[] = {field_address(e, result, TINY_STRING_BYTES_OFFSET), source, length,
                           LLVMConstInt(e->i1, 0, 0)};
    call(e, e->memcpy_type, e->memcpy, args, 4, "");
    return result;
}

static LLVMValueRef emit_line(emitter *e, LLVMValueRef k_value)
{
    LLVMValueRef k = emit_untag_int(e, k_value);
    LLVMValueRef length = call(e, e->line_length_type, e->line_length, &k, 1, "line.length");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(e->builder);
    LLVMBasicBlockRef present = new_block(e, "line.present"), done = new_block(e, "line.done");
    LLVMBuildCondBr(e->builder, LLVMBuildICmp(e->builder, LLVMIntSGE, length, constant(e, 0), ""),
                    present, done);
    LLVMPositionBuilderAtEnd(e->builder, present);
    LLVMValueRef string = emit_alloc_string(e, length);
    call(e, e->copy_line_type, e->copy_line, (LLVMValueRef[]){k, string}, 2, "");
    LLVMBuildBr(e->builder, done);
    LLVMPositionBuilderAtEnd(e->builder, done);
    LLVMValueRef result = LLVMBuildPhi(e->builder, e->ref, "line");
    LLVMAddIncoming(result, (LLVMValueRef[]){string, LLVMConstNull(e->ref)},
                    (LLVMBasicBlockRef[]){present, from}, 2);
    return result;
}

/* The operators on two integers: payloads in, a value out. */
static LLVMValueRef emit_arithmetic(emitter *e, tiny_builtin op, LLVMValueRef x, LLVMValueRef y)
{
    LLVMBuilderRef b = e->builder;
    switch (op) {
    case TINY_ADD:
        return emit_tag_int(e, LLVMBuildAdd(b, x, y, ""));
    case TINY_SUBTRACT:
        return emit_tag_int(e, LLVMBuildSub(b, x, y, ""));
    case TINY_MULTIPLY:
        return emit_tag_int(e, LLVMBuildMul(b, x, y, ""));
    case TINY_LESS:
        return emit_truth(e, LLVMBuildICmp(b, LLVMIntSLT, x, y, ""));
    default: /* TINY_EQUAL */
        return emit_truth(e, LLVMBuildICmp(b, LLVMIntEQ, x, y, ""));
    }
}

static LLVMValueRef emit_builtin(emitter *e, tiny_builtin op, LLVMValueRef *a)
{
    LLVMBuilderRef b = e->builder;
    switch (op) {
    case TINY_ADD:
    case TINY_SUBTRACT:
    case TINY_MULTIPLY:
    case TINY_LESS:
    case TINY_EQUAL:
        return emit_arithmetic(e, op, emit_untag_int(e, a[0]), emit_untag_int(e, a[1]));
    case TINY_PAIR: {
        LLVMValueRef pair = emit_alloc(e, e->pair_type, sizeof(tiny_pair));
        LLVMBuildStore(b, a[0], field_address(e, pair, TINY_PAIR_HEAD_OFFSET));
        LLVMBuildStore(b, a[1], field_address(e, pair, TINY_PAIR_TAIL_OFFSET));
        return pair;
    }
    case TINY_HEAD:
        return load_field(e, e->ref, a[0], TINY_PAIR_HEAD_OFFSET);
    case TINY_TAIL:
        return load_field(e, e->ref, a[0], TINY_PAIR_TAIL_OFFSET);
    case TINY_IS_NIL:
        return emit_truth(e, LLVMBuildICmp(b, LLVMIntEQ, a[0], LLVMConstNull(e->ref), ""));
    case TINY_LENGTH:
        return emit_tag_int(e, load_field(e, e->i64, a[0], TINY_STRING_LENGTH_OFFSET));
    case TINY_BYTE: {
        LLVMValueRef index = emit_untag_int(e, a[1]);
        LLVMValueRef address = LLVMBuildGEP2(
            b, e->i8, field_address(e, a[0], TINY_STRING_BYTES_OFFSET), &index, 1, "");
        LLVMValueRef byte = LLVMBuildLoad2(b, e->i8, address, "");
        return emit_tag_int(e, LLVMBuildZExt(b, byte, e->i64, ""));
    }
    case TINY_SUBSTRING:
        return emit_substring(e, a[0], a[1], a[2]);
    case TINY_COMPARE:
        return emit_tag_int(
            e, call(e, e->string_compare_type, e->string_compare, a, 2, "order"));
    case TINY_LINE:
        return emit_line(e, a[0]);
    case TINY_PRINT: {
        LLVMValueRef value = emit_untag_int(e, a[0]);
        call(e, e->print_type, e->print, &value, 1, "");
        return a[0];
    }
    case TINY_BUILTIN_COUNT:
        break;
    }
    return LLVMConstNull(e->ref);
}

static LLVMValueRef emit(emitter *e, const tiny_node *node);

static LLVMValueRef emit_if(emitter *e, const tiny_node *node)
{
    LLVMValueRef test = emit(e, node->args[0]);
    LLVMBasicBlockRef then_block = new_block(e, "then"), else_block = new_block(e, "else"),
                      done = new_block(e, "endif");
    /* nil is false, every other value true */
    LLVMValueRef is_true = LLVMBuildICmp(e->builder, LLVMIntNE, test, LLVMConstNull(e->ref), "");
    LLVMBuildCondBr(e->builder, is_true, then_block, else_block);
    LLVMValueRef values[2];
    LLVMBasicBlockRef ends[2];
    LLVMBasicBlockRef starts[2] = {then_block, else_block};
    for (int i = 0; i < 2; i++) {
        LLVMPositionBuilderAtEnd(e->builder, starts[i]);
        values[i] = emit(e, node->args[1 + i]);
        ends[i] = LLVMGetInsertBlock(e->builder);
        LLVMBuildBr(e->builder, done);
    }
    LLVMPositionBuilderAtEnd(e->builder, done);
    LLVMValueRef result = LLVMBuildPhi(e->builder, e->ref, "if");
    LLVMAddIncoming(result, values, ends, 2);
    return result;
}

static LLVMValueRef emit(emitter *e, const tiny_node *node)
{
    LLVMValueRef args[TINY_MAX_ARGS];
    switch (node->kind) {
    case TINY_NODE_INTEGER:
        return emit_tag_int(e, constant(e, node->value));
    case TINY_NODE_NIL:
        return LLVMConstNull(e->ref);
    case TINY_NODE_LOCAL:
        return e->locals[node->value];
    case TINY_NODE_IF:
        return emit_if(e, node);
    case TINY_NODE_LET:
        e->locals[node->value] = emit(e, node->args[0]);
        return emit(e, node->args[1]);
    case TINY_NODE_CALL:
        for (int i = 0; i < node->arg_count; i++)
            args[i] = emit(e, node->args[i]);
        return call(e, e->function_types[node->value], e->functions[node->value], args,
                    (unsigned)node->arg_count, "");
    case TINY_NODE_BUILTIN:
        for (int i = 0; i < node->arg_count; i++)
            args[i] = emit(e, node->args[i]);
        return emit_builtin(e, (tiny_builtin)node->value, args);
    }
    return LLVMConstNull(e->ref);
}

/* Opens a function: entry block, and the TLAB address for its allocations. */
static void begin_function(emitter *e, LLVMValueRef function)
{
    e->function = function;
    LLVMPositionBuilderAtEnd(e->builder, new_block(e, "entry"));
    e->tlab = call(e, e->current_tlab_type, e->current_tlab, NULL, 0, "tlab");
}

static void emit_function(emitter *e, int index, const tiny_function *function)
{
    begin_function(e, e->functions[index]);
    for (int i = 0; i < function->param_count; i++)
        e->locals[i] = LLVMGetParam(e->function, (unsigned)i);
    LLVMBuildRet(e->builder, emit(e, function->body));
}

/* ptr tiny_entry(ptr call): tag the C arguments, call, untag the result. */
static void emit_entry(emitter *e, int index, const tiny_function *function)
{
    LLVMTypeRef type = LLVMFunctionType(e->ptr, &e->ptr, 1, 0);
    begin_function(e, LLVMAddFunction(e->module, TINY_JIT_ENTRY_NAME, type));
    LLVMValueRef call_record = LLVMGetParam(e->function, 0);
    LLVMValueRef c_args = load_field(e, e->ptr, call_record, offsetof(tiny_jit_call, args));
    LLVMValueRef args[TINY_MAX_ARGS];
    for (int i = 0; i < function->param_count; i++)
        args[i] =
            emit_tag_int(e, load_field(e, e->i64, c_args, (int64_t)(i * sizeof(int64_t))));
    LLVMValueRef result = call(e, e->function_types[index], e->functions[index], args,
                               (unsigned)function->param_count, "result");
    LLVMBuildStore(e->builder, emit_untag_int(e, result),
                   field_address(e, call_record, offsetof(tiny_jit_call, result)));
    LLVMBuildRet(e->builder, LLVMConstNull(e->ptr));
}

static void declare_runtime(emitter *e)
{
    LLVMTypeRef ref2[] = {e->ref, e->ref}, i64_ref[] = {e->i64, e->ref};
    LLVMTypeRef ptr_i64[] = {e->ptr, e->i64};
    /* corral.h's corral_alloc_slow: the pass knows it is a safepoint call. */
    e->alloc_slow = declare(e, "corral_alloc_slow", e->ref, ptr_i64, 2, &e->alloc_slow_type);
    e->current_tlab = declare(e, "tiny_jit_current_tlab", e->ptr, NULL, 0, &e->current_tlab_type);
    e->string_compare = declare(e, "tiny_string_compare", e->i64, ref2, 2, &e->string_compare_type);
    e->line_length = declare(e, "tiny_input_line_length", e->i64, &e->i64, 1, &e->line_length_type);
    e->copy_line = declare(e, "tiny_input_copy_line", e->void_type, i64_ref, 2, &e->copy_line_type);
    e->print = declare(e, "tiny_print_integer", e->i64, &e->i64, 1, &e->print_type);
    LLVMTypeRef memcpy_params[] = {e->ref, e->ref, e->i64};
    unsigned memcpy_id = LLVMLookupIntrinsicID("llvm.memcpy", 11);
    e->memcpy = LLVMGetIntrinsicDeclaration(e->module, memcpy_id, memcpy_params, 3);
    e->memcpy_type = LLVMIntrinsicGetType(e->context, memcpy_id, memcpy_params, 3);
    e->opaque_bits_type = LLVMFunctionType(e->i64, &e->ref, 1, 0);
    e->opaque_bits = LLVMGetInlineAsm(e->opaque_bits_type, "", 0, "=r,0", 4, 0, 0,
                                      LLVMInlineAsmDialectATT, 0);
    /* The type descriptors, resolved by the JIT's symbol table. */
    e->pair_type = LLVMAddGlobal(e->module, e->i8, "tiny_pair_type");
    e->string_type = LLVMAddGlobal(e->module, e->i8, "tiny_string_type");
}

LLVMModuleRef tiny_jit_emit(LLVMContextRef context, const tiny_program *program,
                            const tiny_function *entry_function, const char *module_name)
{
    emitter e = {.context = context};
    e.functions = calloc((size_t)program->function_count, sizeof *e.functions);
    e.function_types = calloc((size_t)program->function_count, sizeof *e.function_types);
    if (!e.functions || !e.function_types) {
        free(e.functions);
        free(e.function_types);
        return NULL;
    }
    e.module = LLVMModuleCreateWithNameInContext(module_name, context);
    e.builder = LLVMCreateBuilderInContext(context);
    e.i1 = LLVMInt1TypeInContext(context);
    e.i8 = LLVMInt8TypeInContext(context);
    e.i64 = LLVMInt64TypeInContext(context);
    e.ptr = LLVMPointerTypeInContext(context, 0);
    e.ref = LLVMPointerTypeInContext(context, 1); /* address space 1: a reference */
    e.void_type = LLVMVoidTypeInContext(context);
    declare_runtime(&e);
    /* Declare all functions first: bodies call each other in any order. */
    for (int i = 0; i < program->function_count; i++) {
        const tiny_function *function = &program->functions[i];
        LLVMTypeRef params[TINY_MAX_ARGS];
        for (int p = 0; p < function->param_count; p++)
            params[p] = e.ref;
        char name[128];
        snprintf(name, sizeof name, "tiny.%s", function->name);
        e.function_types[i] = LLVMFunctionType(e.ref, params, (unsigned)function->param_count, 0);
        e.functions[i] = LLVMAddFunction(e.module, name, e.function_types[i]);
        LLVMSetLinkage(e.functions[i], LLVMInternalLinkage);
    }
    for (int i = 0; i < program->function_count; i++)
        emit_function(&e, i, &program->functions[i]);
    emit_entry(&e, (int)(entry_function - program->functions), entry_function);
    LLVMDisposeBuilder(e.builder);
    free(e.functions);
    free(e.function_types);
    return e.module;
}
