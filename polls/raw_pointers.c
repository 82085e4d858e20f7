/* raw_pointers.c — raw pointers made from references follow their object.
 *
 * Managed C reaches the bytes of an object through a plain pointer:
 * `(char *)b->data`, an addrspacecast to address space 0, perhaps offset
 * further. RS4GC relocates only address-space-1 values, so such a pointer
 * live across a safepoint would be stale. The pass keeps the whole
 * computation in address space 1, as a derived reference RS4GC relocates,
 * and makes the raw pointer only where it is used:
 *
 *   %p = addrspacecast ptr addrspace(1) %b to ptr      %d = gep i8, ptr addrspace(1) %b, 16
 *   %q = getelementptr i8, ptr %p, i64 16       -->    call @g()            ; %d relocated
 *   call @g()                                          %q = addrspacecast %d to ptr
 *   %v = load i8, ptr %q                               %v = load i8, ptr %q
 *
 * GEPs, phis and selects whose pointer operands all come from references
 * are rebuilt in address space 1; every other user gets its own cast just
 * before it (a phi that mixes in other pointers gets it in the incoming
 * block, and stays a raw pointer the checks may still reject). A cast back
 * to address space 1 is folded away.
 *
 * A raw pointer passed to a call that can reach a safepoint (managed code,
 * unmanaged C through its wrapper) pins its object for the call, as CoreCLR
 * pins an array passed to native code: the callee holds the only copy. One
 * whose use may hand a pointer into the object back to the frame (strchr's
 * result, strtol's end) pins it until the function returns (frame_pins.c),
 * which covers the call too.
 */
#include "pass.h"

#include <llvm-c/DebugInfo.h>
#include <stdlib.h>

/* A null or undefined pointer operand fits either address space. */
static int is_null_like(LLVMValueRef value)
{
    return LLVMIsAConstantPointerNull(value) || LLVMIsUndef(value) || LLVMIsPoison(value);
}

/* Does user pass operand (a raw pointer from a reference) on as a pointer
 * it could compute in address space 1? */
static int carries_pointer(LLVMValueRef user, LLVMValueRef operand)
{
    if (LLVMGetTypeKind(LLVMTypeOf(user)) != LLVMPointerTypeKind)
        return 0;
    if (LLVMIsAGetElementPtrInst(user))
        return LLVMGetOperand(user, 0) == operand;
    if (LLVMIsASelectInst(user))
        return LLVMGetOperand(user, 0) != operand;
    return LLVMIsAPHINode(user) != NULL;
}

static int is_candidate(const ptr_table *candidates, LLVMValueRef value)
{
    uintptr_t live = 0;
    return ptr_table_get(candidates, value, &live) && live;
}

/* The pointer operands a candidate needs in address space 1. */
static int candidate_operands_fit(LLVMValueRef value, const ptr_table *candidates)
{
    if (is_raw_cast(value))
        return 1;
    if (LLVMIsAGetElementPtrInst(value))
        return is_candidate(candidates, LLVMGetOperand(value, 0));
    unsigned first = LLVMIsASelectInst(value) ? 1 : 0;
    unsigned count = LLVMIsAPHINode(value) ? LLVMCountIncoming(value) : 3;
    for (unsigned i = first; i < count; i++) {
        LLVMValueRef operand = LLVMGetOperand(value, i);
        if (!is_candidate(candidates, operand) && !is_null_like(operand))
            return 0;
    }
    return 1;
}

/* Every raw pointer of function that can be computed in address space 1:
 * candidates maps each to 1 (0 once dropped); order lists them. */
static void collect_candidates(LLVMValueRef function, ptr_table *candidates, value_list *order)
{
    value_list found = {0};
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (is_raw_cast(inst)) {
                ptr_table_put(candidates, inst, 1);
                VEC_PUSH(found, inst);
            }
    for (size_t next = 0; next < found.count; next++) {
        LLVMValueRef value = found.items[next];
        for (LLVMUseRef use = LLVMGetFirstUse(value); use; use = LLVMGetNextUse(use)) {
            LLVMValueRef user = LLVMGetUser(use);
            if (!ptr_table_contains(candidates, user) && carries_pointer(user, value)) {
                ptr_table_put(candidates, user, 1);
                VEC_PUSH(found, user);
            }
        }
    }
    /* Drop what depends on a pointer from elsewhere, until nothing changes. */
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < found.count; i++)
            if (is_candidate(candidates, found.items[i]) &&
                !candidate_operands_fit(found.items[i], candidates)) {
                ptr_table_put(candidates, found.items[i], 0);
                changed = 1;
            }
    }
    for (size_t i = 0; i < found.count; i++)
        if (is_candidate(candidates, found.items[i]))
            VEC_PUSH(*order, found.items[i]);
    free(found.items);
}

/* ---- rebuilding in address space 1 */

typedef struct rebuild {
    polls_pass *pass;
    ptr_table candidates; /* raw value -> 1 while it is rebuilt */
    ptr_table rebuilt;    /* raw value -> its address-space-1 twin */
    value_list order;
} rebuild;

static LLVMTypeRef reference_type(polls_pass *pass)
{
    return LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
}

static LLVMValueRef twin(rebuild *r, LLVMValueRef raw);

static LLVMValueRef twin_operand(rebuild *r, LLVMValueRef operand)
{
    return is_null_like(operand) ? LLVMConstNull(reference_type(r->pass)) : twin(r, operand);
}

static LLVMValueRef build_twin(rebuild *r, LLVMValueRef raw)
{
    LLVMBuilderRef builder = r->pass->builder;
    if (is_raw_cast(raw))
        return LLVMGetOperand(raw, 0);
    if (LLVMIsAPHINode(raw)) {
        LLVMPositionBuilderBefore(builder, raw);
        return LLVMBuildPhi(builder, reference_type(r->pass), value_name(raw));
    }
    if (LLVMIsASelectInst(raw)) {
        LLVMValueRef when_true = twin_operand(r, LLVMGetOperand(raw, 1));
        LLVMValueRef when_false = twin_operand(r, LLVMGetOperand(raw, 2));
        LLVMPositionBuilderBefore(builder, raw);
        return LLVMBuildSelect(builder, LLVMGetOperand(raw, 0), when_true, when_false,
                               value_name(raw));
    }
    /* getelementptr */
    LLVMValueRef base = twin(r, LLVMGetOperand(raw, 0));
    unsigned count = (unsigned)LLVMGetNumOperands(raw) - 1;
    LLVMValueRef *indices = xcalloc(count + 1, sizeof *indices);
    for (unsigned i = 0; i < count; i++)
        indices[i] = LLVMGetOperand(raw, i + 1);
    LLVMPositionBuilderBefore(builder, raw);
    LLVMTypeRef element = LLVMGetGEPSourceElementType(raw);
    LLVMValueRef gep = LLVMIsInBounds(raw)
                           ? LLVMBuildInBoundsGEP2(builder, element, base, indices, count, "")
                           : LLVMBuildGEP2(builder, element, base, indices, count, "");
    free(indices);
    return gep;
}

static LLVMValueRef twin(rebuild *r, LLVMValueRef raw)
{
    uintptr_t known = 0;
    if (ptr_table_get(&r->rebuilt, raw, &known))
        return (LLVMValueRef)known;
    LLVMValueRef made = build_twin(r, raw);
    ptr_table_put(&r->rebuilt, raw, (uintptr_t)made);
    return made;
}

static void fill_phi_twins(rebuild *r)
{
    for (size_t i = 0; i < r->order.count; i++) {
        LLVMValueRef raw = r->order.items[i];
        if (!LLVMIsAPHINode(raw))
            continue;
        LLVMValueRef phi = twin(r, raw);
        for (unsigned k = 0; k < LLVMCountIncoming(raw); k++) {
            LLVMValueRef value = twin_operand(r, LLVMGetIncomingValue(raw, k));
            LLVMBasicBlockRef block = LLVMGetIncomingBlock(raw, k);
            LLVMAddIncoming(phi, &value, &block, 1);
        }
    }
}

/* The raw pointer again, made just before user reads it. */
static LLVMValueRef cast_for_user(rebuild *r, LLVMValueRef raw, LLVMValueRef user,
                                  unsigned operand_index)
{
    LLVMBuilderRef builder = r->pass->builder;
    if (LLVMIsAPHINode(user)) {
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(user, operand_index);
        LLVMPositionBuilderBefore(builder, LLVMGetBasicBlockTerminator(from));
    } else {
        LLVMPositionBuilderBefore(builder, user);
    }
    return LLVMBuildAddrSpaceCast(builder, twin(r, raw), LLVMTypeOf(raw), "");
}

/* Points every user outside the rebuilt set at a cast made where it is
 * used; a cast back to address space 1 becomes the twin itself. */
static void redirect_users(rebuild *r, LLVMValueRef raw)
{
    LLVMUseRef use;
    while ((use = LLVMGetFirstUse(raw))) {
        LLVMValueRef user = LLVMGetUser(use);
        if (is_candidate(&r->candidates, user)) {
            /* Rebuilt too; its old form is erased with this one. */
            unsigned operands = (unsigned)LLVMGetNumOperands(user);
            for (unsigned i = 0; i < operands; i++)
                if (LLVMGetOperand(user, i) == raw)
                    LLVMSetOperand(user, i, LLVMGetUndef(LLVMTypeOf(raw)));
            continue;
        }
        if (LLVMIsAAddrSpaceCastInst(user) && type_is_gc_pointer(LLVMTypeOf(user))) {
            LLVMReplaceAllUsesWith(user, twin(r, raw));
            LLVMInstructionEraseFromParent(user);
            continue;
        }
        unsigned operands = (unsigned)LLVMGetNumOperands(user);
        for (unsigned i = 0; i < operands; i++)
            if (LLVMGetOperand(user, i) == raw)
                LLVMSetOperand(user, i, cast_for_user(r, raw, user, i));
    }
}

static void rebuild_in_reference_space(rebuild *r)
{
    for (size_t i = 0; i < r->order.count; i++)
        twin(r, r->order.items[i]);
    fill_phi_twins(r);
    for (size_t i = 0; i < r->order.count; i++)
        redirect_users(r, r->order.items[i]);
    for (size_t i = 0; i < r->order.count; i++)
        LLVMInstructionEraseFromParent(r->order.items[i]);
}

/* ---- pins for calls that receive a raw pointer */

static void pin_raw_arguments(polls_pass *pass, LLVMValueRef function, LLVMValueRef call)
{
    value_list objects = {0};
    unsigned count = LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef argument = LLVMGetOperand(call, i);
        if (!is_raw_cast(argument) || is_frame_pinned(argument))
            continue; /* pinned already, for the whole frame */
        LLVMValueRef object = object_of_address(LLVMGetOperand(argument, 0));
        if (!object) {
            LLVMValueRef callee = called_function(call);
            pass_error(pass, function, call,
                       "raw pointer passed to '%s' (argument %u) points into an object the "
                       "pass cannot name (a phi or select of different offsets): pin the "
                       "object around the call (corral_pin)",
                       callee ? value_name(callee) : "(indirect)", i + 1);
            continue;
        }
        VEC_PUSH(objects, object);
    }
    if (objects.count)
        pin_objects_for_call(pass, function, call, &objects);
    free(objects.items);
}

/* ---- raw pointers stored to memory */

/* Whether function pins object (corral_pin) somewhere, or states that its
 * caller holds the pin (corral_require_pinned, checked at run time): then a
 * raw pointer into it may be kept in memory, as docs/managed-c.md allows. */
static int pins_object(LLVMValueRef function, LLVMValueRef object)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if ((is_call_to(inst, "corral_pin") || is_call_to(inst, "corral_require_pinned")) &&
                object_of_address(LLVMGetOperand(inst, 0)) == object)
                return 1;
        }
    return 0;
}

/* An llvm.gcroot slot (of a gcroot function inlined into managed code, in
 * promoted mode): the collector updates what it holds. */
static int is_gcroot_slot(LLVMValueRef address)
{
    LLVMValueRef base = strip_address(address);
    return LLVMIsAAllocaInst(base) && used_by_gcroot(base);
}

/* libc functions whose result points into their first argument or is
 * null: the copies return their destination, the searches a place in the
 * text searched. (corralc's -fno-builtin keeps LLVM from saying so.) */
static const char *const returns_into_first_argument[] = {
    "memcpy",  "memmove", "memset",  "mempcpy",   "memccpy", "memchr",  "memrchr",
    "rawmemchr", "strcpy", "strncpy", "stpcpy",   "stpncpy", "strcat",  "strncat",
    "strchr",  "strrchr", "strchrnul", "strstr",  "strcasestr", "strpbrk", "index",
    "rindex",  "basename", "dirname", "__memcpy_chk", "__memmove_chk", "__memset_chk",
    "__mempcpy_chk", "__strcpy_chk", "__stpcpy_chk", "__strcat_chk",
};

/* How many of call's first arguments its result may point into the object
 * of: all, the first for the functions above, none when the result is
 * fresh memory (noalias: strdup's). */
static unsigned arguments_handed_back(LLVMValueRef call)
{
    unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
    LLVMValueRef callee = called_function(call);
    if (LLVMGetCallSiteEnumAttribute(call, LLVMAttributeReturnIndex, noalias) ||
        (callee && LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeReturnIndex, noalias)))
        return 0;
    unsigned count = LLVMGetNumArgOperands(call);
    if (callee && count > 0 &&
        string_in(value_name(callee), returns_into_first_argument,
                  sizeof returns_into_first_argument / sizeof returns_into_first_argument[0]))
        return 1;
    return count;
}

/* The raw cast behind argument index of call, if the callee may keep it
 * (not nocapture). */
static LLVMValueRef raw_argument(LLVMValueRef call, unsigned index)
{
    return may_capture_argument(call, index) ? raw_pointer_source(LLVMGetOperand(call, index), NULL)
                                             : NULL;
}

/* The raw cast behind an argument into whose object call's result may point. */
static LLVMValueRef raw_argument_handed_back(LLVMValueRef call)
{
    unsigned count = arguments_handed_back(call);
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef raw = raw_argument(call, i);
        if (raw)
            return raw;
    }
    return NULL;
}

/* The one object a returned pointer may point into: that of the cast it is
 * (perhaps offset), or of every raw argument of the call that gave it. NULL
 * when there may be more, through a phi or select or the arguments. */
static LLVMValueRef object_returned(LLVMValueRef value, LLVMValueRef raw)
{
    LLVMValueRef returned = strip_address(value);
    if (returned == raw)
        return object_of_address(raw);
    if (!is_call_site(returned))
        return NULL;
    LLVMValueRef object = NULL;
    unsigned count = arguments_handed_back(returned);
    for (unsigned i = 0; i < count; i++) {
        LLVMValueRef cast = raw_argument(returned, i);
        LLVMValueRef of = cast ? object_of_address(cast) : NULL;
        if (cast && (!of || (object && of != object)))
            return NULL;
        object = of ? of : object;
    }
    return object;
}

LLVMValueRef raw_pointer_into_object(LLVMValueRef value)
{
    return raw_pointer_source(value, raw_argument_handed_back);
}

/* A raw pointer made from a reference returned by a function that stays a
 * call (static ones were inlined: checks.c), or a pointer a call gave back
 * from one (strchr's result), is out of the pass's sight in the caller: the
 * object may move before the caller uses it. A function without polls may
 * return one: the llvm.gcroot boundary (docs/gcroot.md), whose caller roots
 * it before its next call. */
static void check_raw_pointer_return(polls_pass *pass, LLVMValueRef function, LLVMValueRef ret)
{
    LLVMValueRef value = LLVMGetNumOperands(ret) ? LLVMGetOperand(ret, 0) : NULL;
    if (!value || (function_flags(pass, function) & FUNCTION_NOPOLL))
        return;
    LLVMValueRef raw = raw_pointer_into_object(value);
    if (!raw)
        return;
    /* One object, pinned here or by the caller: it cannot move. */
    LLVMValueRef object = object_returned(value, raw);
    if (object && pins_object(function, object))
        return;
    pass_error(pass, function, ret,
               "returns a pointer into an object (a raw pointer made from a reference, or "
               "what a call gave back from one), which the caller cannot follow: "
               "the object may move before the caller uses it; return the object (and an "
               "offset)%s, or pin the object (corral_pin) in this function, or, when the "
               "caller holds the pin, say so (corral_require_pinned); a corral-nopoll "
               "function may return one to a caller that roots it at once (llvm.gcroot code)",
               has_internal_linkage(function)
                   ? " (the pass inlines a static function for this, but not this one: it calls "
                     "itself, takes ..., or calls setjmp)"
                   : ", make the function static (the pass then inlines it)");
}

/* A raw pointer made from a reference stored to memory (a struct, a global,
 * a local whose address is passed on, as `parse(&cursor)` does) or returned
 * is out of the pass's sight: the object may move while it is kept there. */
static void check_raw_pointers_kept(polls_pass *pass, LLVMValueRef function)
{
    if (is_shadow_stack_function(function))
        return; /* llvm.gcroot code: its plain pointers are in root slots the collector updates */
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if (LLVMIsAReturnInst(inst))
                check_raw_pointer_return(pass, function, inst);
            if (!LLVMIsAStoreInst(inst) || !is_raw_cast(LLVMGetOperand(inst, 0)) ||
                is_gcroot_slot(LLVMGetOperand(inst, 1)) ||
                is_frame_memory(LLVMGetOperand(inst, 1)))
                continue; /* a local: the object is pinned for the frame */
            LLVMValueRef object = object_of_address(LLVMGetOperand(LLVMGetOperand(inst, 0), 0));
            if (object && pins_object(function, object))
                continue;
            char *where = describe_value(LLVMGetOperand(inst, 1));
            pass_error(pass, function, inst,
                       "raw pointer made from a reference stored to memory (%s), where the pass "
                       "cannot follow it: the object may move while it is kept there; keep it "
                       "in a local (pass the object and an offset), or pin the object "
                       "(corral_pin) in this function, or, when the caller holds the pin, say "
                       "so (corral_require_pinned)",
                       where);
            free(where);
        }
}

void cast_returned_raw_pointers_after_polls(polls_pass *pass, LLVMValueRef function)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef ret = LLVMGetBasicBlockTerminator(block);
        if (!ret || !LLVMIsAReturnInst(ret) || LLVMGetNumOperands(ret) == 0)
            continue;
        LLVMValueRef cast = LLVMGetOperand(ret, 0);
        if (!is_raw_cast(cast) || LLVMGetPreviousInstruction(ret) == cast)
            continue;
        LLVMPositionBuilderBefore(pass->builder, ret);
        LLVMSetCurrentDebugLocation2(pass->builder, LLVMInstructionGetDebugLoc(ret));
        LLVMSetOperand(ret, 0, LLVMBuildAddrSpaceCast(pass->builder, LLVMGetOperand(cast, 0),
                                                      LLVMTypeOf(cast), "returned"));
        LLVMSetCurrentDebugLocation2(pass->builder, NULL);
        if (!LLVMGetFirstUse(cast))
            LLVMInstructionEraseFromParent(cast);
    }
}

void keep_raw_pointers_relocatable(polls_pass *pass, LLVMValueRef function,
                                   corral_polls_function_report *report)
{
    rebuild r = {.pass = pass};
    ptr_table_init(&r.candidates);
    ptr_table_init(&r.rebuilt);
    collect_candidates(function, &r.candidates, &r.order);
    if (r.order.count)
        rebuild_in_reference_space(&r);
    check_raw_pointers_kept(pass, function);
    free(r.order.items);
    ptr_table_free(&r.candidates);
    ptr_table_free(&r.rebuilt);
    if (!is_shadow_stack_function(function))
        pin_objects_for_frame(pass, function, report);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            if (is_call_site(inst) && call_is_statepoint(pass, inst))
                pin_raw_arguments(pass, function, inst);
}
