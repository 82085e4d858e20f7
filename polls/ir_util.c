/* ir_util.c — small questions about LLVM IR the C API does not answer directly. */
#include "pass.h"

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Error.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <stdlib.h>
#include <string.h>

int type_is_gc_pointer(LLVMTypeRef type)
{
    return LLVMGetTypeKind(type) == LLVMPointerTypeKind &&
           LLVMGetPointerAddressSpace(type) == GC_ADDRESS_SPACE;
}

/* Whether type holds a pointer, or (gc_only) a reference, anywhere inside. */
static int type_contains_pointer_of(LLVMTypeRef type, int gc_only)
{
    switch (LLVMGetTypeKind(type)) {
    case LLVMPointerTypeKind:
        return !gc_only || type_is_gc_pointer(type);
    case LLVMArrayTypeKind:
    case LLVMVectorTypeKind:
    case LLVMScalableVectorTypeKind:
        return type_contains_pointer_of(LLVMGetElementType(type), gc_only);
    case LLVMStructTypeKind: {
        unsigned count = LLVMCountStructElementTypes(type);
        for (unsigned i = 0; i < count; i++)
            if (type_contains_pointer_of(LLVMStructGetTypeAtIndex(type, i), gc_only))
                return 1;
        return 0;
    }
    default:
        return 0;
    }
}

int type_contains_gc_pointer(LLVMTypeRef type)
{
    return type_contains_pointer_of(type, 1);
}

int type_contains_pointer(LLVMTypeRef type)
{
    return type_contains_pointer_of(type, 0);
}

int type_is_gc_aggregate(LLVMTypeRef type)
{
    LLVMTypeKind kind = LLVMGetTypeKind(type);
    return (kind == LLVMStructTypeKind || kind == LLVMArrayTypeKind) &&
           type_contains_gc_pointer(type);
}

const char *value_name(LLVMValueRef value)
{
    size_t length = 0;
    const char *name = LLVMGetValueName2(value, &length);
    return name ? name : "";
}

/* Unnamed values are numbered in order: arguments, then per block the block
 * itself and its non-void instructions; this mirrors LLVM's slot tracker. */
static size_t block_slot_number(LLVMBasicBlockRef wanted)
{
    LLVMValueRef function = LLVMGetBasicBlockParent(wanted);
    size_t slot = 0;
    for (LLVMValueRef arg = LLVMGetFirstParam(function); arg; arg = LLVMGetNextParam(arg))
        if (!*value_name(arg))
            slot++;
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        if (!*LLVMGetBasicBlockName(block)) {
            if (block == wanted)
                return slot;
            slot++;
        }
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (!*value_name(inst) && LLVMGetTypeKind(LLVMTypeOf(inst)) != LLVMVoidTypeKind)
                slot++;
    }
    return slot;
}

char *block_label(LLVMBasicBlockRef block)
{
    const char *name = LLVMGetBasicBlockName(block);
    if (*name)
        return xasprintf("%%%s", name);
    return xasprintf("%%%zu", block_slot_number(block));
}

char *source_location_suffix(LLVMValueRef instruction)
{
    if (!LLVMIsAInstruction(instruction) || !LLVMInstructionGetDebugLoc(instruction))
        return xstrdup("");
    unsigned length = 0;
    const char *file = LLVMGetDebugLocFilename(instruction, &length);
    unsigned line = LLVMGetDebugLocLine(instruction);
    if (!file || line == 0)
        return xstrdup("");
    return xasprintf(" (%.*s:%u)", (int)length, file, line);
}

int is_call_site(LLVMValueRef instruction)
{
    return LLVMIsACallInst(instruction) || LLVMIsAInvokeInst(instruction) ||
           LLVMIsACallBrInst(instruction);
}

int is_musttail_call(LLVMValueRef instruction)
{
    return LLVMIsACallInst(instruction) &&
           LLVMGetTailCallKind(instruction) == LLVMTailCallKindMustTail;
}

LLVMValueRef function_exit_point(LLVMValueRef ret)
{
    /* The verifier allows only a bitcast of the result between the two. */
    LLVMValueRef before = LLVMGetPreviousInstruction(ret);
    if (before && LLVMIsABitCastInst(before))
        before = LLVMGetPreviousInstruction(before);
    return before && is_musttail_call(before) ? before : ret;
}

LLVMValueRef block_landing_pad(LLVMBasicBlockRef block)
{
    LLVMValueRef pad = LLVMGetFirstInstruction(block);
    while (pad && LLVMIsAPHINode(pad))
        pad = LLVMGetNextInstruction(pad);
    return pad && LLVMIsALandingPadInst(pad) ? pad : NULL;
}

LLVMValueRef value_landing_pad(LLVMValueRef instruction)
{
    if (!instruction || !LLVMIsAInvokeInst(instruction))
        return NULL;
    LLVMValueRef pad = block_landing_pad(LLVMGetUnwindDest(instruction));
    return pad && LLVMGetTypeKind(LLVMTypeOf(pad)) != LLVMTokenTypeKind ? pad : NULL;
}

unsigned chosen_value_count(LLVMValueRef value)
{
    return LLVMIsAPHINode(value) ? LLVMCountIncoming(value) : LLVMIsASelectInst(value) ? 2 : 0;
}

LLVMValueRef chosen_value(LLVMValueRef value, unsigned i)
{
    return LLVMIsAPHINode(value) ? LLVMGetIncomingValue(value, i) : LLVMGetOperand(value, i + 1);
}

void collect_values(LLVMValueRef function, int (*keep)(LLVMValueRef), value_list *values)
{
    for (LLVMValueRef arg = LLVMGetFirstParam(function); arg; arg = LLVMGetNextParam(arg))
        if (keep(arg))
            VEC_PUSH(*values, arg);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (keep(inst))
                VEC_PUSH(*values, inst);
}

LLVMValueRef called_function(LLVMValueRef call)
{
    LLVMValueRef callee = LLVMGetCalledValue(call);
    /* Aliases of functions are direct calls for our purposes. */
    for (int depth = 0; depth < 8 && callee && LLVMIsAGlobalAlias(callee); depth++)
        callee = LLVMAliasGetAliasee(callee);
    return callee && LLVMIsAFunction(callee) ? callee : NULL;
}

int function_has_string_attribute(LLVMValueRef function, const char *kind)
{
    return LLVMGetStringAttributeAtIndex(function, LLVMAttributeFunctionIndex, kind,
                                         (unsigned)strlen(kind)) != NULL;
}

int call_has_string_attribute(LLVMValueRef call, const char *kind)
{
    return LLVMGetCallSiteStringAttribute(call, LLVMAttributeFunctionIndex, kind,
                                          (unsigned)strlen(kind)) != NULL;
}

void add_function_string_attribute(LLVMValueRef function, const char *kind, const char *value)
{
    LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(function));
    LLVMAttributeRef attribute = LLVMCreateStringAttribute(
        context, kind, (unsigned)strlen(kind), value, (unsigned)strlen(value));
    LLVMAddAttributeAtIndex(function, LLVMAttributeFunctionIndex, attribute);
}

void add_call_string_attribute(LLVMValueRef call, const char *kind, const char *value)
{
    LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(call));
    LLVMAttributeRef attribute = LLVMCreateStringAttribute(
        context, kind, (unsigned)strlen(kind), value, (unsigned)strlen(value));
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, attribute);
}

void remove_function_enum_attribute(LLVMValueRef function, const char *kind)
{
    unsigned id = LLVMGetEnumAttributeKindForName(kind, strlen(kind));
    LLVMRemoveEnumAttributeAtIndex(function, LLVMAttributeFunctionIndex, id);
}

int is_counted_instruction(LLVMValueRef instruction)
{
    if (LLVMIsADbgInfoIntrinsic(instruction))
        return 0;
    return 1;
}

LLVMValueRef first_insertion_point(LLVMBasicBlockRef block)
{
    int entry = LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(block)) == block;
    LLVMValueRef inst = LLVMGetFirstInstruction(block);
    while (inst && (LLVMIsAPHINode(inst) || LLVMIsALandingPadInst(inst) ||
                    (entry && LLVMIsAAllocaInst(inst))))
        inst = LLVMGetNextInstruction(inst);
    return inst;
}

LLVMValueRef insertion_point_after(LLVMValueRef value)
{
    if (LLVMIsAArgument(value))
        return first_insertion_point(LLVMGetEntryBasicBlock(LLVMGetParamParent(value)));
    if (LLVMIsAPHINode(value))
        return first_insertion_point(LLVMGetInstructionParent(value));
    return LLVMGetNextInstruction(value);
}

int value_list_contains(const value_list *list, LLVMValueRef value)
{
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i] == value)
            return 1;
    return 0;
}

void collect_instruction_users(LLVMValueRef value, const value_list *skip, value_list *users)
{
    for (LLVMUseRef use = LLVMGetFirstUse(value); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsAInstruction(user) && !(skip && value_list_contains(skip, user)) &&
            !value_list_contains(users, user))
            VEC_PUSH(*users, user);
    }
}

void replace_uses_with_copies(polls_pass *pass, LLVMValueRef value, const value_list *users,
                              copy_builder build, const void *context)
{
    for (size_t u = 0; u < users->count; u++) {
        LLVMValueRef user = users->items[u];
        if (LLVMIsAPHINode(user)) {
            unsigned count = LLVMCountIncoming(user);
            for (unsigned i = 0; i < count; i++) {
                if (LLVMGetIncomingValue(user, i) != value)
                    continue;
                LLVMBasicBlockRef from = LLVMGetIncomingBlock(user, i);
                /* A block listed twice must bring the same value both times. */
                LLVMValueRef copy = NULL;
                for (unsigned j = 0; j < i && !copy; j++)
                    if (LLVMGetIncomingBlock(user, j) == from)
                        copy = LLVMGetIncomingValue(user, j);
                if (!copy)
                    copy = build(pass, LLVMGetBasicBlockTerminator(from), context);
                LLVMSetOperand(user, i, copy);
            }
            continue;
        }
        LLVMValueRef copy = build(pass, user, context);
        int operands = LLVMGetNumOperands(user);
        for (int i = 0; i < operands; i++)
            if (LLVMGetOperand(user, (unsigned)i) == value)
                LLVMSetOperand(user, (unsigned)i, copy);
    }
}

int run_pipeline(polls_pass *pass, const char *pipeline)
{
    LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
    LLVMErrorRef error = LLVMRunPasses(pass->module, pipeline, pass->options.target_machine, options);
    LLVMDisposePassBuilderOptions(options);
    if (!error)
        return 0;
    char *message = LLVMGetErrorMessage(error);
    pass_error(pass, NULL, NULL, "pass pipeline '%s': %s", pipeline, message);
    LLVMDisposeErrorMessage(message);
    return -1;
}

LLVMValueRef phi_replace_incoming_block(polls_pass *pass, LLVMValueRef phi,
                                        LLVMBasicBlockRef old_block, LLVMBasicBlockRef new_block)
{
    unsigned count = LLVMCountIncoming(phi);
    LLVMValueRef *values = xcalloc(count, sizeof *values);
    LLVMBasicBlockRef *blocks = xcalloc(count, sizeof *blocks);
    for (unsigned i = 0; i < count; i++) {
        values[i] = LLVMGetIncomingValue(phi, i);
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, i);
        blocks[i] = from == old_block ? new_block : from;
    }
    LLVMPositionBuilderBefore(pass->builder, phi);
    LLVMValueRef replacement = LLVMBuildPhi(pass->builder, LLVMTypeOf(phi), "");
    LLVMAddIncoming(replacement, values, blocks, count);
    char *name = xstrdup(value_name(phi));
    LLVMReplaceAllUsesWith(phi, replacement);
    LLVMInstructionEraseFromParent(phi);
    LLVMSetValueName2(replacement, name, strlen(name));
    free(name);
    free(values);
    free(blocks);
    return replacement;
}

LLVMValueRef branch_weights(polls_pass *pass, unsigned taken, unsigned not_taken)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    LLVMMetadataRef operands[3] = {
        LLVMMDStringInContext2(pass->context, "branch_weights", strlen("branch_weights")),
        LLVMValueAsMetadata(LLVMConstInt(i32, taken, 0)),
        LLVMValueAsMetadata(LLVMConstInt(i32, not_taken, 0)),
    };
    return LLVMMetadataAsValue(pass->context, LLVMMDNodeInContext2(pass->context, operands, 3));
}

int is_raw_cast(LLVMValueRef value)
{
    return LLVMIsAAddrSpaceCastInst(value) &&
           type_is_gc_pointer(LLVMTypeOf(LLVMGetOperand(value, 0))) &&
           !type_contains_gc_pointer(LLVMTypeOf(value));
}

LLVMValueRef strip_address(LLVMValueRef pointer)
{
    for (;;) {
        if (LLVMIsAGetElementPtrInst(pointer) || LLVMIsABitCastInst(pointer))
            pointer = LLVMGetOperand(pointer, 0);
        else if (LLVMIsAConstantExpr(pointer) &&
                 (LLVMGetConstOpcode(pointer) == LLVMGetElementPtr ||
                  LLVMGetConstOpcode(pointer) == LLVMBitCast))
            pointer = LLVMGetOperand(pointer, 0);
        else
            return pointer;
    }
}

/* Phis and selects nested deeper than this name no object. */
#define OBJECT_SEARCH_DEPTH 8

static LLVMValueRef object_of_address_at(LLVMValueRef address, int depth)
{
    LLVMValueRef base = strip_address(address);
    if (is_raw_cast(base)) /* (char *)o->data: the address it was made from */
        base = strip_address(LLVMGetOperand(base, 0));
    if (!type_is_gc_pointer(LLVMTypeOf(base)) || depth > OBJECT_SEARCH_DEPTH)
        return NULL;
    for (unsigned i = 0; i < chosen_value_count(base); i++) {
        LLVMValueRef in = chosen_value(base, i);
        if (in != base && object_of_address_at(in, depth + 1) != in)
            return NULL;
    }
    return base;
}

LLVMValueRef object_of_address(LLVMValueRef address)
{
    return object_of_address_at(address, 0);
}

unsigned tag_offset(const polls_pass *pass, LLVMValueRef value)
{
    unsigned tags = pass->options.ref_tags & 0xfe;
    if (!tags || !LLVMIsAGetElementPtrInst(value) || LLVMGetNumOperands(value) != 2 ||
        !type_is_gc_pointer(LLVMTypeOf(value)))
        return 0;
    LLVMValueRef pointer = LLVMGetOperand(value, 0), index = LLVMGetOperand(value, 1);
    if (!LLVMIsAConstantInt(index) || strip_address(pointer) != pointer)
        return 0;
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    long long bytes = LLVMConstIntGetSExtValue(index) *
                      (long long)LLVMABISizeOfType(layout, LLVMGetGEPSourceElementType(value));
    if (bytes < 1 || bytes > 7 || !(tags & (1u << bytes)) || (tags & (1u << (8 - bytes))))
        return 0;
    return (unsigned)bytes;
}

LLVMValueRef private_constant(polls_pass *pass, const char *name, LLVMValueRef init)
{
    LLVMValueRef global = LLVMAddGlobal(pass->module, LLVMTypeOf(init), name);
    LLVMSetInitializer(global, init);
    LLVMSetGlobalConstant(global, 1);
    LLVMSetLinkage(global, LLVMPrivateLinkage);
    return global;
}

LLVMValueRef thread_local_pointer(polls_pass *pass, const char *name)
{
    LLVMValueRef global = LLVMGetNamedGlobal(pass->module, name);
    if (global)
        return global;
    global = LLVMAddGlobal(pass->module, LLVMPointerTypeInContext(pass->context, 0), name);
    LLVMSetThreadLocal(global, 1);
    return global;
}

LLVMValueRef declare_leaf_function(polls_pass *pass, const char *name, LLVMTypeRef type)
{
    LLVMValueRef function = LLVMGetNamedFunction(pass->module, name);
    if (!function) {
        function = LLVMAddFunction(pass->module, name, type);
        add_function_string_attribute(function, "gc-leaf-function", "");
    }
    function_add_flags(pass, function, FUNCTION_LEAF);
    return function;
}

LLVMValueRef build_intrinsic_call(polls_pass *pass, const char *name, LLVMTypeRef overload,
                                  LLVMValueRef *args, unsigned count, const char *result_name)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMTypeRef *overloads = overload ? &overload : NULL;
    unsigned overload_count = overload ? 1 : 0;
    return LLVMBuildCall2(pass->builder,
                          LLVMIntrinsicGetType(pass->context, id, overloads, overload_count),
                          LLVMGetIntrinsicDeclaration(pass->module, id, overloads, overload_count),
                          args, count, result_name);
}

/* Attributes at from_index of from go to to_index of to, but those of
 * kind skipped_kind (0: none). */
static void copy_attributes_between(LLVMValueRef from, int from_is_call, LLVMAttributeIndex from_index,
                                    LLVMValueRef to, int to_is_call, LLVMAttributeIndex to_index,
                                    unsigned skipped_kind)
{
    unsigned count = from_is_call ? LLVMGetCallSiteAttributeCount(from, from_index)
                                  : LLVMGetAttributeCountAtIndex(from, from_index);
    if (count == 0)
        return;
    LLVMAttributeRef *attributes = xcalloc(count, sizeof *attributes);
    if (from_is_call)
        LLVMGetCallSiteAttributes(from, from_index, attributes);
    else
        LLVMGetAttributesAtIndex(from, from_index, attributes);
    for (unsigned i = 0; i < count; i++) {
        if (skipped_kind && LLVMIsEnumAttribute(attributes[i]) &&
            LLVMGetEnumAttributeKind(attributes[i]) == skipped_kind)
            continue;
        if (to_is_call)
            LLVMAddCallSiteAttribute(to, to_index, attributes[i]);
        else
            LLVMAddAttributeAtIndex(to, to_index, attributes[i]);
    }
    free(attributes);
}

void copy_attributes_at_index(LLVMValueRef from, int from_is_call, LLVMValueRef to,
                              int to_is_call, LLVMAttributeIndex index)
{
    copy_attributes_between(from, from_is_call, index, to, to_is_call, index, 0);
}

void copy_parameter_attributes_of_void_version(LLVMValueRef from, int from_is_call,
                                               LLVMValueRef to, int to_is_call,
                                               unsigned parameter_count)
{
    unsigned returned = LLVMGetEnumAttributeKindForName("returned", strlen("returned"));
    for (unsigned index = 1; index <= parameter_count; index++)
        copy_attributes_between(from, from_is_call, index, to, to_is_call, index, returned);
}

/* Parameter and return attributes (byval, sret, zeroext...) carry the
 * calling convention on x86-64. */
void copy_attributes(LLVMValueRef from, int from_is_call, LLVMValueRef to, int to_is_call,
                     unsigned argument_count)
{
    for (unsigned index = 0; index <= argument_count; index++)
        copy_attributes_at_index(from, from_is_call, to, to_is_call, index);
}

/* Function attributes, calling convention, tail-call kind and location. */
static void copy_call_site_properties(LLVMValueRef from, LLVMValueRef to)
{
    copy_attributes_at_index(from, 1, to, 1, LLVMAttributeFunctionIndex);
    LLVMSetInstructionCallConv(to, LLVMGetInstructionCallConv(from));
    if (LLVMIsACallInst(from))
        LLVMSetTailCallKind(to, LLVMGetTailCallKind(from));
    LLVMInstructionSetDebugLoc(to, LLVMInstructionGetDebugLoc(from));
}

void copy_call_properties(LLVMValueRef from, LLVMValueRef to, unsigned argument_count)
{
    copy_attributes(from, 1, to, 1, argument_count);
    copy_call_site_properties(from, to);
}

void copy_call_properties_to_void_call(LLVMValueRef from, LLVMValueRef to,
                                       unsigned argument_count)
{
    copy_parameter_attributes_of_void_version(from, 1, to, 1, argument_count);
    copy_call_site_properties(from, to);
}

LLVMValueRef rebuild_call(polls_pass *pass, LLVMValueRef call, LLVMTypeRef type,
                          LLVMValueRef callee, unsigned argument_count,
                          LLVMOperandBundleRef *bundles, unsigned bundle_count)
{
    LLVMValueRef *arguments = xcalloc(argument_count + 1, sizeof *arguments);
    for (unsigned a = 0; a < argument_count; a++)
        arguments[a] = LLVMGetOperand(call, a);
    LLVMPositionBuilderBefore(pass->builder, call);
    LLVMValueRef rebuilt =
        LLVMIsAInvokeInst(call)
            ? LLVMBuildInvokeWithOperandBundles(pass->builder, type, callee, arguments,
                                                argument_count, LLVMGetNormalDest(call),
                                                LLVMGetUnwindDest(call), bundles, bundle_count, "")
            : LLVMBuildCallWithOperandBundles(pass->builder, type, callee, arguments,
                                              argument_count, bundles, bundle_count, "");
    free(arguments);
    return rebuilt;
}

void replace_instruction(LLVMValueRef old, LLVMValueRef replacement)
{
    char *name = xstrdup(value_name(old));
    LLVMReplaceAllUsesWith(old, replacement);
    LLVMInstructionEraseFromParent(old);
    LLVMSetValueName2(replacement, name, strlen(name));
    free(name);
}

int type_is_word(LLVMTypeRef type)
{
    return LLVMGetTypeKind(type) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(type) == 64;
}

int is_atomic_exchange(LLVMValueRef inst)
{
    return LLVMIsAAtomicRMWInst(inst) && LLVMGetAtomicRMWBinOp(inst) == LLVMAtomicRMWBinOpXchg;
}

LLVMValueRef build_exchange_like(polls_pass *pass, LLVMValueRef exchange, LLVMValueRef incoming)
{
    LLVMPositionBuilderBefore(pass->builder, exchange);
    LLVMValueRef built = LLVMBuildAtomicRMW(pass->builder, LLVMAtomicRMWBinOpXchg,
                                            LLVMGetOperand(exchange, 0), incoming,
                                            LLVMGetOrdering(exchange),
                                            LLVMIsAtomicSingleThread(exchange));
    LLVMSetVolatile(built, LLVMGetVolatile(exchange));
    LLVMSetAlignment(built, LLVMGetAlignment(exchange));
    return built;
}

int calls_function_prefixed(LLVMValueRef inst, const char *prefix)
{
    LLVMValueRef callee = is_call_site(inst) ? called_function(inst) : NULL;
    return callee && strncmp(value_name(callee), prefix, strlen(prefix)) == 0;
}

int is_memory_copy_call(LLVMValueRef inst)
{
    return calls_function_prefixed(inst, "llvm.memcpy.") ||
           calls_function_prefixed(inst, "llvm.memmove.");
}

static LLVMValueRef raw_pointer_source_at(LLVMValueRef value, raw_call_source through_call,
                                          ptr_table *visited)
{
    value = strip_address(value);
    if (!LLVMIsAInstruction(value) || LLVMGetTypeKind(LLVMTypeOf(value)) != LLVMPointerTypeKind ||
        ptr_table_contains(visited, value))
        return NULL;
    ptr_table_put(visited, value, 1);
    if (is_raw_cast(value))
        return value;
    if (through_call && is_call_site(value))
        return through_call(value);
    for (unsigned i = 0; i < chosen_value_count(value); i++) {
        LLVMValueRef raw = raw_pointer_source_at(chosen_value(value, i), through_call, visited);
        if (raw)
            return raw;
    }
    return NULL;
}

LLVMValueRef raw_pointer_source(LLVMValueRef value, raw_call_source through_call)
{
    ptr_table visited;
    ptr_table_init(&visited);
    LLVMValueRef raw = raw_pointer_source_at(value, through_call, &visited);
    ptr_table_free(&visited);
    return raw;
}

int may_be_raw_from_reference(LLVMValueRef value)
{
    return raw_pointer_source(value, NULL) != NULL;
}

/* Writers of a run of bytes: the intrinsics, and the libc functions corralc
 * leaves as calls (it builds with -fno-builtin, so `memcpy((void *)o->items,
 * ...)` stays a call to libc's memcpy), with where each takes the
 * destination and the length. */
static const struct {
    const char *name;
    int prefix; /* name is an overloaded intrinsic's prefix */
    bulk_write_kind kind;
    unsigned destination, length;
} bulk_writers[] = {
    {"llvm.memcpy.", 1, BULK_COPY, 0, 2},   {"llvm.memmove.", 1, BULK_COPY, 0, 2},
    {"llvm.memset.", 1, BULK_FILL, 0, 2},   {"memcpy", 0, BULK_COPY, 0, 2},
    {"memmove", 0, BULK_COPY, 0, 2},        {"mempcpy", 0, BULK_COPY, 0, 2},
    {"memccpy", 0, BULK_COPY, 0, 3},        {"bcopy", 0, BULK_COPY, 1, 2},
    {"__memcpy_chk", 0, BULK_COPY, 0, 2},   {"__memmove_chk", 0, BULK_COPY, 0, 2},
    {"__mempcpy_chk", 0, BULK_COPY, 0, 2},  {"memset", 0, BULK_FILL, 0, 2},
    {"__memset_chk", 0, BULK_FILL, 0, 2},   {"bzero", 0, BULK_FILL, 0, 1},
    {"explicit_bzero", 0, BULK_FILL, 0, 1},
};

bulk_write_kind bulk_memory_write(LLVMValueRef inst, LLVMValueRef *destination,
                                  LLVMValueRef *length)
{
    LLVMValueRef callee = LLVMIsACallInst(inst) ? called_function(inst) : NULL;
    if (!callee)
        return BULK_NONE;
    const char *name = value_name(callee);
    for (size_t i = 0; i < sizeof bulk_writers / sizeof bulk_writers[0]; i++) {
        int match = bulk_writers[i].prefix
                        ? strncmp(name, bulk_writers[i].name, strlen(bulk_writers[i].name)) == 0
                        : strcmp(name, bulk_writers[i].name) == 0;
        /* A function of that name with another shape is not libc's. */
        if (!match || LLVMGetNumArgOperands(inst) <= bulk_writers[i].length)
            continue;
        *destination = LLVMGetOperand(inst, bulk_writers[i].destination);
        *length = LLVMGetOperand(inst, bulk_writers[i].length);
        if (LLVMGetTypeKind(LLVMTypeOf(*destination)) != LLVMPointerTypeKind ||
            LLVMGetTypeKind(LLVMTypeOf(*length)) != LLVMIntegerTypeKind)
            return BULK_NONE;
        return bulk_writers[i].kind;
    }
    return BULK_NONE;
}

int has_internal_linkage(LLVMValueRef global)
{
    LLVMLinkage linkage = LLVMGetLinkage(global);
    return linkage == LLVMInternalLinkage || linkage == LLVMPrivateLinkage;
}

LLVMValueRef function_named_by(LLVMValueRef value)
{
    while (LLVMIsAConstantExpr(value) && (LLVMGetConstOpcode(value) == LLVMBitCast ||
                                          LLVMGetConstOpcode(value) == LLVMAddrSpaceCast))
        value = LLVMGetOperand(value, 0);
    return LLVMIsAFunction(value) ? value : NULL;
}

int function_calls(LLVMValueRef function, const char *name)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (is_call_to(inst, name))
                return 1;
    return 0;
}

int is_call_to(LLVMValueRef inst, const char *name)
{
    LLVMValueRef callee = is_call_site(inst) ? called_function(inst) : NULL;
    return callee && strcmp(value_name(callee), name) == 0;
}

int is_gc_statepoint_function(LLVMValueRef function)
{
    static const char name[] = "llvm.experimental.gc.statepoint";
    return function && strncmp(value_name(function), name, sizeof name - 1) == 0;
}

int is_static_alloca(LLVMValueRef alloca)
{
    LLVMBasicBlockRef block = LLVMGetInstructionParent(alloca);
    return block == LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(block)) &&
           LLVMIsAConstantInt(LLVMGetOperand(alloca, 0));
}
