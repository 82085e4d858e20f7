/* setjmp.c — setjmp in managed code: what its second return needs.
 *
 * longjmp resumes a function after its setjmp call with the registers
 * setjmp saved and the frame as it is now. A collection in between may have
 * moved any object, so a reference the function holds across the call, in a
 * register or a statepoint's spill slot, would be stale there; RS4GC cannot
 * relocate at a setjmp (a statepoint returns once), and the frames longjmp
 * skipped leave their entries on the runtime's per-thread stacks. So:
 *
 *   1. before optimisation, the calls are marked returns_twice (corralc
 *      compiles with -fno-builtin, so clang did not), which keeps LLVM's
 *      optimisers and code generator careful around them; unoptimised,
 *      scalar locals of such functions stay in memory, as with clang -O0;
 *   2. setjmp and longjmp are called directly, never through a GC-transition
 *      wrapper (classify.c): setjmp must save this frame, not a wrapper's,
 *      and longjmp must not leave the thread UNMANAGED;
 *   3. after placement and barriers, each reference live across a setjmp
 *      call is kept in a root slot of a frame the function pushes on the
 *      thread's frame-root chain (corral/shadow_stack.h's layout; the
 *      collector updates the slots): stored where it is defined, loaded again
 *      before each use. A derived reference keeps its object there and its
 *      address is recomputed (its GEPs cloned) at each use;
 *   4. corral_setjmp_save before each call and corral_setjmp_returned after
 *      it, which at the second return drops what longjmp skipped (corral/abi.h).
 *
 *   entry:  frame = { head, @map, null... }; head = &frame
 *           %b = call ptr addrspace(1) @make()   ; store %b, frame.roots[0]
 *           call @corral_setjmp_save(%state)
 *           %r = call i32 @_setjmp(%buf)
 *           call @corral_setjmp_returned(%state, %r, "f")
 *           ... use %b                           ; %b.kept = load frame.roots[0]
 *   ret:    head = frame.next
 *
 * A vector of references live across the call (the loop vectorizer's
 * splats, hoisted above it: a computed goto's dispatch block, shared by every
 * interpreter loop of the function, can lead from after a setjmp back to a
 * loop before it) is built again before each use from the scalars in its
 * lanes, which are then kept as above; one whose lanes are not known
 * without reading it is an error.
 *
 * Values other than references live across the call (integers, raw
 * pointers made from references, aggregates) are checked like those live
 * across a safepoint: liveness.c counts a setjmp call as one.
 */
#include "liveness.h"
#include "pass.h"

#include "corral/abi.h"

#include <stdlib.h>
#include <string.h>

/* Whether name, less a leading "_" or "__" (glibc's aliases), is one of
 * names. */
static int is_libc_name(const char *name, const char *const *names, size_t count)
{
    for (int i = 0; i < 2 && *name == '_'; i++)
        name++;
    return string_in(name, names, count);
}

/* The names GCC and clang treat as returns_twice: corralc passes
 * -fno-builtin, so clang marks none of them itself. swapcontext,
 * setcontext and makecontext return at most once. */
static int is_returns_twice_name(const char *name)
{
    static const char *const names[] = {"setjmp", "sigsetjmp", "savectx", "qsetjmp",
                                        "vfork", "getcontext",
                                        /* __builtin_setjmp: no returns_twice attribute */
                                        "llvm.eh.sjlj.setjmp"};
    return is_libc_name(name, names, sizeof names / sizeof names[0]);
}

/* Those that return twice otherwise than setjmp does: vfork's child runs on
 * the parent's stack, getcontext pairs with a switch of stacks (a direct
 * call becomes the runtime's, which returns once: wrappers.c). */
static int is_unsupported_returns_twice_name(const char *name)
{
    static const char *const names[] = {"vfork", "getcontext"};
    return is_libc_name(name, names, sizeof names / sizeof names[0]);
}

int call_returns_twice(LLVMValueRef call)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("returns_twice", strlen("returns_twice"));
    LLVMValueRef callee = called_function(call);
    return LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind) ||
           (callee && LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, kind)) ||
           (callee && is_returns_twice_name(value_name(callee)));
}

int is_setjmp_call(LLVMValueRef call)
{
    LLVMValueRef callee = LLVMIsACallInst(call) ? called_function(call) : NULL;
    return callee && LLVMIsDeclaration(callee) && call_returns_twice(call) &&
           !is_unsupported_returns_twice_name(value_name(callee));
}

int is_longjmp_function(LLVMValueRef function)
{
    static const char *const names[] = {"longjmp", "siglongjmp", "longjmp_chk"};
    return LLVMIsDeclaration(function) &&
           is_libc_name(value_name(function), names, sizeof names / sizeof names[0]);
}

static void add_returns_twice(polls_pass *pass, LLVMValueRef call)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("returns_twice", strlen("returns_twice"));
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(pass->context, kind, 0));
}

/* Unoptimised, clang keeps every local in memory, so one changed between
 * setjmp and longjmp reads its new value at the second return (C leaves it
 * indeterminate unless volatile; GCC's torture suite expects it). The
 * preparation still promotes locals to registers, which references need:
 * loads and stores of those holding no pointer become volatile instead, so
 * they stay in memory. Pointers are promoted, for the checks to see them. */
static void keep_scalar_locals_in_memory(LLVMValueRef function)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            LLVMValueRef address = LLVMIsALoadInst(inst)    ? LLVMGetOperand(inst, 0)
                                   : LLVMIsAStoreInst(inst) ? LLVMGetOperand(inst, 1)
                                                            : NULL;
            LLVMValueRef local = address ? strip_address(address) : NULL;
            if (local && LLVMIsAAllocaInst(local) &&
                !type_contains_pointer(LLVMGetAllocatedType(local)))
                LLVMSetVolatile(inst, 1);
        }
}

/* The supported setjmp calls of function, in order (no argument is one). */
static void collect_setjmp_calls(LLVMValueRef function, value_list *calls)
{
    collect_values(function, is_setjmp_call, calls);
}

void mark_setjmp_calls(polls_pass *pass, int unoptimised)
{
    for (LLVMValueRef function = LLVMGetFirstFunction(pass->module); function;
         function = LLVMGetNextFunction(function)) {
        value_list calls = {0};
        collect_setjmp_calls(function, &calls);
        for (size_t i = 0; i < calls.count; i++)
            add_returns_twice(pass, calls.items[i]);
        if (calls.count > 0 && unoptimised)
            keep_scalar_locals_in_memory(function);
        free(calls.items);
    }
}

/* A reference live across a setjmp call, kept as the base it lies in,
 * whose root slot holds it, and its distance from that base (an integer,
 * which does not change when the object moves). */
typedef struct kept_reference {
    LLVMValueRef value;
    LLVMValueRef base;
    unsigned slot;
    LLVMValueRef offset; /* NULL when value is the base */
} kept_reference;

typedef VEC(kept_reference) kept_list;

typedef struct setjmp_frame {
    LLVMTypeRef type; /* { ptr next, ptr map, [N x ptr addrspace(1)] roots } */
    LLVMValueRef alloca;
    LLVMValueRef after_push; /* the first instruction after the push */
    value_list bases;        /* slot i keeps bases.items[i] */
} setjmp_frame;

static int base_needs_slot(LLVMValueRef base)
{
    return LLVMIsAInstruction(base) || LLVMIsAArgument(base);
}

static unsigned slot_of(setjmp_frame *frame, LLVMValueRef base)
{
    for (size_t i = 0; i < frame->bases.count; i++)
        if (frame->bases.items[i] == base)
            return (unsigned)i;
    VEC_PUSH(frame->bases, base);
    return (unsigned)(frame->bases.count - 1);
}

/* The base of an address, as RS4GC finds it: through GEPs and bitcasts to
 * an object; a phi or select of addresses inside objects gets a twin that
 * chooses between their bases (memo: value -> base, cycles included). */
static LLVMValueRef base_of(polls_pass *pass, LLVMValueRef value, ptr_table *memo)
{
    value = strip_address(value);
    uintptr_t known = 0;
    if (ptr_table_get(memo, value, &known))
        return (LLVMValueRef)known;
    int phi = LLVMIsAPHINode(value) != NULL;
    if ((!phi && !LLVMIsASelectInst(value)) || object_of_address(value) == value) {
        ptr_table_put(memo, value, (uintptr_t)value);
        return value;
    }
    LLVMTypeRef ref = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    char *name = xasprintf("%s.base", value_name(value));
    LLVMValueRef base;
    if (phi) {
        LLVMBasicBlockRef block = LLVMGetInstructionParent(value);
        LLVMPositionBuilder(pass->builder, block, LLVMGetFirstInstruction(block));
        base = LLVMBuildPhi(pass->builder, ref, name);
        ptr_table_put(memo, value, (uintptr_t)base);
        ptr_table_put(memo, base, (uintptr_t)base);
        unsigned count = LLVMCountIncoming(value);
        for (unsigned i = 0; i < count; i++) {
            LLVMValueRef in = base_of(pass, LLVMGetIncomingValue(value, i), memo);
            LLVMBasicBlockRef from = LLVMGetIncomingBlock(value, i);
            LLVMAddIncoming(base, &in, &from, 1);
        }
    } else {
        LLVMValueRef if_true = base_of(pass, LLVMGetOperand(value, 1), memo);
        LLVMValueRef if_false = base_of(pass, LLVMGetOperand(value, 2), memo);
        LLVMPositionBuilderBefore(pass->builder, value);
        base = LLVMBuildSelect(pass->builder, LLVMGetOperand(value, 0), if_true, if_false, name);
        ptr_table_put(memo, value, (uintptr_t)base);
        ptr_table_put(memo, base, (uintptr_t)base);
    }
    free(name);
    return base;
}

/* Where what is defined may be stored or measured: right after it, but
 * arguments after the frame's push. */
static LLVMValueRef after_definition(LLVMValueRef value, LLVMValueRef after_push)
{
    return LLVMIsAArgument(value) ? after_push : insertion_point_after(value);
}

/* Insertelement and shufflevector chains a lane is followed through: the
 * vectorizer's splats take two. */
#define LANE_SEARCH_DEPTH 16

/* The scalar in lane `lane` of a vector built from scalars (insertelement,
 * shufflevector, constants), or NULL when only reading the vector tells. */
static LLVMValueRef lane_of(LLVMValueRef vector, unsigned lane, unsigned depth)
{
    LLVMTypeRef element = LLVMGetElementType(LLVMTypeOf(vector));
    if (depth > LANE_SEARCH_DEPTH)
        return NULL;
    if (LLVMIsAPoisonValue(vector))
        return LLVMGetPoison(element);
    if (LLVMIsAUndefValue(vector))
        return LLVMGetUndef(element);
    if (LLVMIsAConstant(vector) && !LLVMIsAConstantExpr(vector))
        return LLVMGetAggregateElement(vector, lane);
    if (LLVMIsAInsertElementInst(vector)) {
        LLVMValueRef index = LLVMGetOperand(vector, 2);
        if (!LLVMIsAConstantInt(index))
            return NULL;
        if (LLVMConstIntGetZExtValue(index) == lane)
            return LLVMGetOperand(vector, 1);
        return lane_of(LLVMGetOperand(vector, 0), lane, depth + 1);
    }
    if (LLVMIsAShuffleVectorInst(vector)) {
        int from = LLVMGetMaskValue(vector, lane);
        if (from == LLVMGetUndefMaskElem())
            return LLVMGetPoison(element);
        LLVMValueRef first = LLVMGetOperand(vector, 0);
        unsigned width = LLVMGetVectorSize(LLVMTypeOf(first));
        return (unsigned)from < width ? lane_of(first, (unsigned)from, depth + 1)
                                      : lane_of(LLVMGetOperand(vector, 1), (unsigned)from - width,
                                                depth + 1);
    }
    return NULL;
}

/* A vector's lanes, each a scalar or a constant. */
typedef struct vector_lanes {
    LLVMValueRef vector;
    LLVMValueRef *lanes;
    unsigned count;
} vector_lanes;

/* The vector again before `before`, from its lanes (a copy_builder). */
static LLVMValueRef build_from_lanes(polls_pass *pass, LLVMValueRef before, const void *context)
{
    const vector_lanes *vector = context;
    LLVMPositionBuilderBefore(pass->builder, before);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    LLVMValueRef built = LLVMGetPoison(LLVMTypeOf(vector->vector));
    char *name = xasprintf("%s.rebuilt", value_name(vector->vector));
    for (unsigned i = 0; i < vector->count; i++)
        built = LLVMBuildInsertElement(pass->builder, built, vector->lanes[i],
                                       LLVMConstInt(i32, i, 0), i + 1 == vector->count ? name : "");
    free(name);
    return built;
}

/* Erases a vector-building instruction nothing uses any more, and then
 * those that built its operands. */
static void erase_unused_vector_chain(LLVMValueRef value)
{
    if (!(LLVMIsAInsertElementInst(value) || LLVMIsAShuffleVectorInst(value)) ||
        LLVMGetFirstUse(value))
        return;
    LLVMValueRef first = LLVMGetOperand(value, 0);
    LLVMValueRef second = LLVMIsAShuffleVectorInst(value) ? LLVMGetOperand(value, 1) : NULL;
    LLVMInstructionEraseFromParent(value);
    erase_unused_vector_chain(first);
    if (second && second != first)
        erase_unused_vector_chain(second);
}

/* Builds each vector of references live across a setjmp call again before
 * each of its uses, when its lanes are known scalars; the others are left
 * for find_kept_references to refuse. */
static void rebuild_vectors_across_setjmp(polls_pass *pass, LLVMValueRef function)
{
    safepoint_map map;
    safepoint_map_build_at(&map, pass, function, SAFEPOINTS_SETJMP_ONLY);
    value_list vectors = {0};
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            LLVMTypeRef type = LLVMTypeOf(inst);
            if (LLVMGetTypeKind(type) == LLVMVectorTypeKind && type_contains_gc_pointer(type) &&
                live_across_safepoint(&map, inst))
                VEC_PUSH(vectors, inst);
        }
    safepoint_map_free(&map);
    for (size_t v = 0; v < vectors.count; v++) {
        LLVMValueRef vector = vectors.items[v];
        vector_lanes lanes = {vector, NULL, LLVMGetVectorSize(LLVMTypeOf(vector))};
        lanes.lanes = xcalloc(lanes.count, sizeof *lanes.lanes);
        unsigned known = 0;
        while (known < lanes.count && (lanes.lanes[known] = lane_of(vector, known, 0)))
            known++;
        if (known == lanes.count) {
            value_list users = {0};
            collect_instruction_users(vector, NULL, &users);
            replace_uses_with_copies(pass, vector, &users, build_from_lanes, &lanes);
            free(users.items);
            erase_unused_vector_chain(vector);
        }
        free(lanes.lanes);
    }
    free(vectors.items);
}

/* The references of function live across one of its setjmp calls; errors
 * for those it cannot keep. */
static void find_kept_references(polls_pass *pass, LLVMValueRef function, kept_list *kept)
{
    safepoint_map map;
    safepoint_map_build_at(&map, pass, function, SAFEPOINTS_SETJMP_ONLY);
    value_list candidates = {0};
    for (LLVMValueRef arg = LLVMGetFirstParam(function); arg; arg = LLVMGetNextParam(arg))
        VEC_PUSH(candidates, arg);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst))
            VEC_PUSH(candidates, inst);
    for (size_t i = 0; i < candidates.count; i++) {
        LLVMValueRef value = candidates.items[i];
        LLVMTypeRef type = LLVMTypeOf(value);
        int vector = LLVMGetTypeKind(type) == LLVMVectorTypeKind && type_contains_gc_pointer(type);
        if (!type_is_gc_pointer(type) && !vector)
            continue;
        LLVMValueRef setjmp_call = live_across_safepoint(&map, value);
        if (!setjmp_call)
            continue;
        if (vector) {
            char *what = describe_value(value);
            char *where = describe_safepoint(pass, setjmp_call);
            pass_error(pass, function, LLVMIsAInstruction(value) ? value : NULL,
                       "vector of references %s is live across %s, which returns again after a "
                       "longjmp; the pass keeps references there in memory the collector "
                       "updates, and vectors only when built from known scalars "
                       "(insertelement, shufflevector), which it builds again after the call",
                       what, where);
            free(what);
            free(where);
            continue;
        }
        VEC_PUSH(*kept, ((kept_reference){value, NULL, 0, NULL}));
    }
    free(candidates.items);
    safepoint_map_free(&map);
}

/* The bases of the kept references, built where needed (memo as base_of). */
static void build_bases(polls_pass *pass, kept_list *kept, ptr_table *memo)
{
    for (size_t i = 0; i < kept->count; i++)
        kept->items[i].base = base_of(pass, kept->items[i].value, memo);
}

/* Slots of the kept references' bases; those whose base is a constant are
 * dropped (it does not move). */
static void assign_slots(polls_pass *pass, LLVMValueRef function, setjmp_frame *frame,
                         kept_list *kept)
{
    size_t count = 0;
    for (size_t i = 0; i < kept->count; i++) {
        kept_reference reference = kept->items[i];
        if (!base_needs_slot(reference.base))
            continue;
        if (LLVMIsATerminatorInst(reference.base)) {
            char *what = describe_value(reference.value);
            pass_error(pass, function, reference.base,
                       "reference %s, live across a setjmp call, lies in an object made by an "
                       "invoke or callbr, whose result the pass cannot store where it is made",
                       what);
            free(what);
            continue;
        }
        reference.slot = slot_of(frame, reference.base);
        kept->items[count++] = reference;
    }
    kept->count = count;
}

static LLVMValueRef slot_address(polls_pass *pass, const setjmp_frame *frame, unsigned slot)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    LLVMValueRef index[] = {LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, 2, 0),
                            LLVMConstInt(i32, slot, 0)};
    return LLVMBuildInBoundsGEP2(pass->builder, frame->type, frame->alloca, index, 3, "");
}

/* The frame, null roots, pushed after the entry block's allocas; popped
 * before every ret (a frame left by longjmp is dropped by the setjmp it
 * lands at, corral_setjmp_returned). */
static void push_and_pop_frame(polls_pass *pass, LLVMValueRef function, setjmp_frame *frame)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMTypeRef ref = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    unsigned count = (unsigned)frame->bases.count;
    LLVMTypeRef fields[] = {ptr, ptr, LLVMArrayType2(ref, count)};
    frame->type = LLVMStructTypeInContext(pass->context, fields, 3, 0);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    LLVMPositionBuilder(pass->builder, entry, LLVMGetFirstInstruction(entry));
    frame->alloca = LLVMBuildAlloca(pass->builder, frame->type, "setjmp_frame");

    LLVMPositionBuilderBefore(pass->builder, first_insertion_point(entry));
    for (unsigned i = 0; i < count; i++)
        LLVMBuildStore(pass->builder, LLVMConstNull(ref), slot_address(pass, frame, i));
    char *name = xasprintf("corral.setjmp_roots.%s", value_name(function));
    LLVMValueRef map = build_frame_roots_map(pass, name, count, NULL, 0);
    free(name);
    frame->after_push = LLVMGetNextInstruction(build_frame_roots_push(pass, frame->alloca, map));
    build_frame_roots_pops(pass, function, frame->alloca, 0);
}

/* value - base in bytes, where value is defined (no safepoint comes
 * between: both are the same object's addresses there). A base defined
 * earlier is read back from its slot, since a setjmp call may come between
 * (its store precedes: it follows the base's definition); one chosen by a
 * phi of the same block is the same point, and is used as it is. */
static LLVMValueRef measure_offset(polls_pass *pass, const setjmp_frame *frame,
                                   const kept_reference *kept, LLVMValueRef after_push,
                                   value_list *own_uses)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMTypeRef ref = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    LLVMPositionBuilderBefore(pass->builder, after_definition(kept->value, after_push));
    LLVMValueRef address = LLVMBuildPtrToInt(pass->builder, kept->value, i64, "");
    VEC_PUSH(*own_uses, address);
    LLVMValueRef base = kept->base;
    int same_point = LLVMIsAPHINode(kept->value) && LLVMIsAPHINode(base) &&
                     LLVMGetInstructionParent(kept->value) == LLVMGetInstructionParent(base);
    if (!same_point)
        base = LLVMBuildLoad2(pass->builder, ref, slot_address(pass, frame, kept->slot), "");
    LLVMValueRef base_address = LLVMBuildPtrToInt(pass->builder, base, i64, "");
    if (same_point)
        VEC_PUSH(*own_uses, base_address);
    char *name = xasprintf("%s.offset", value_name(kept->value));
    LLVMValueRef offset = LLVMBuildSub(pass->builder, address, base_address, name);
    free(name);
    return offset;
}

/* Each base into its slot where it is defined; each derived reference's
 * offset measured where it is defined. */
static void store_bases(polls_pass *pass, const setjmp_frame *frame, kept_list *kept,
                        value_list *own_uses)
{
    LLVMValueRef after_push = frame->after_push;
    for (size_t i = 0; i < frame->bases.count; i++) {
        LLVMValueRef base = frame->bases.items[i];
        LLVMPositionBuilderBefore(pass->builder, after_definition(base, after_push));
        VEC_PUSH(*own_uses,
                 LLVMBuildStore(pass->builder, base, slot_address(pass, frame, (unsigned)i)));
    }
    for (size_t i = 0; i < kept->count; i++) {
        kept_reference *reference = &kept->items[i];
        if (reference->value != reference->base)
            reference->offset =
                measure_offset(pass, frame, reference, after_push, own_uses);
    }
}

/* What a reload needs: the frame and the reference. */
typedef struct reload_context {
    const setjmp_frame *frame;
    const kept_reference *kept;
} reload_context;

/* The reference again, before `before`: its base loaded from the slot, and
 * the offset added (a copy_builder). */
static LLVMValueRef reload(polls_pass *pass, LLVMValueRef before, const void *context)
{
    const reload_context *at = context;
    const kept_reference *kept = at->kept;
    LLVMPositionBuilderBefore(pass->builder, before);
    LLVMTypeRef ref = LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
    char *name = xasprintf("%s.kept", value_name(kept->value));
    LLVMValueRef base = LLVMBuildLoad2(pass->builder, ref,
                                       slot_address(pass, at->frame, kept->slot),
                                       kept->offset ? "" : name);
    if (kept->offset) {
        LLVMTypeRef i8 = LLVMInt8TypeInContext(pass->context);
        LLVMValueRef offset = kept->offset;
        base = LLVMBuildGEP2(pass->builder, i8, base, &offset, 1, name);
    }
    free(name);
    return base;
}

/* Every use of the reference but the slot's own store and its offset's
 * measure reads it again. */
static void reload_at_uses(polls_pass *pass, const setjmp_frame *frame,
                           const kept_reference *kept, const value_list *own_uses)
{
    value_list users = {0};
    collect_instruction_users(kept->value, own_uses, &users);
    reload_context context = {frame, kept};
    replace_uses_with_copies(pass, kept->value, &users, reload, &context);
    free(users.items);
}

static LLVMValueRef function_name_constant(polls_pass *pass, LLVMValueRef function)
{
    char *global_name = xasprintf("corral.setjmp_function.%s", value_name(function));
    LLVMValueRef global = LLVMGetNamedGlobal(pass->module, global_name);
    if (!global) {
        const char *name = value_name(function);
        LLVMValueRef text = LLVMConstStringInContext2(pass->context, name, strlen(name), 0);
        global = private_constant(pass, global_name, text);
        LLVMSetUnnamedAddress(global, LLVMGlobalUnnamedAddr);
    }
    free(global_name);
    return global;
}

/* corral_setjmp_save(state) before the call, corral_setjmp_returned(state,
 * result != 0, name) after it. */
static void save_and_restore_around(polls_pass *pass, LLVMValueRef function, LLVMValueRef call,
                                    LLVMValueRef state)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    LLVMTypeRef void_type = LLVMVoidTypeInContext(pass->context);
    LLVMTypeRef save_params[] = {ptr};
    LLVMTypeRef save_type = LLVMFunctionType(void_type, save_params, 1, 0);
    LLVMTypeRef returned_params[] = {ptr, i32, ptr};
    LLVMTypeRef returned_type = LLVMFunctionType(void_type, returned_params, 3, 0);
    LLVMValueRef save = declare_leaf_function(pass, CORRAL_ABI_SETJMP_SAVE, save_type);
    LLVMValueRef returned = declare_leaf_function(pass, CORRAL_ABI_SETJMP_RETURNED, returned_type);

    LLVMPositionBuilderBefore(pass->builder, call);
    LLVMValueRef save_args[] = {state};
    add_call_string_attribute(LLVMBuildCall2(pass->builder, save_type, save, save_args, 1, ""),
                              "gc-leaf-function", "");
    LLVMPositionBuilderBefore(pass->builder, LLVMGetNextInstruction(call));
    LLVMTypeRef result_type = LLVMTypeOf(call);
    LLVMValueRef again = LLVMConstInt(i32, 1, 0); /* no result: restore always (harmless) */
    if (LLVMGetTypeKind(result_type) == LLVMIntegerTypeKind)
        again = LLVMBuildZExt(pass->builder,
                              LLVMBuildICmp(pass->builder, LLVMIntNE, call,
                                            LLVMConstNull(result_type), ""),
                              i32, "");
    LLVMValueRef returned_args[] = {state, again, function_name_constant(pass, function)};
    add_call_string_attribute(
        LLVMBuildCall2(pass->builder, returned_type, returned, returned_args, 3, ""),
        "gc-leaf-function", "");
}

void keep_references_across_setjmp(polls_pass *pass, LLVMValueRef function)
{
    value_list calls = {0};
    collect_setjmp_calls(function, &calls);
    if (calls.count == 0)
        return;

    setjmp_frame frame = {0};
    kept_list kept = {0};
    size_t errors = pass->error_count;
    rebuild_vectors_across_setjmp(pass, function);
    find_kept_references(pass, function, &kept);
    if (pass->error_count == errors && kept.count > 0) {
        /* A base built for a phi or select may be live across the setjmp
         * call too, and so may a base its incoming values now need: look
         * again until building bases builds nothing new. */
        ptr_table memo;
        ptr_table_init(&memo);
        size_t built;
        do {
            built = memo.count;
            build_bases(pass, &kept, &memo);
            kept.count = 0;
            find_kept_references(pass, function, &kept);
        } while (memo.count != built && pass->error_count == errors);
        build_bases(pass, &kept, &memo);
        ptr_table_free(&memo);
    }
    if (pass->error_count == errors)
        assign_slots(pass, function, &frame, &kept);
    if (pass->error_count == errors) {
        if (frame.bases.count > 0) {
            value_list own_uses = {0}; /* slot stores and offset measures */
            push_and_pop_frame(pass, function, &frame);
            store_bases(pass, &frame, &kept, &own_uses);
            for (size_t i = 0; i < kept.count; i++)
                reload_at_uses(pass, &frame, &kept.items[i], &own_uses);
            free(own_uses.items);
        }
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
        LLVMPositionBuilder(pass->builder, entry, LLVMGetFirstInstruction(entry));
        LLVMTypeRef state_type = LLVMArrayType2(LLVMInt64TypeInContext(pass->context),
                                                CORRAL_ABI_SETJMP_STATE_BYTES / 8);
        LLVMValueRef state = LLVMBuildAlloca(pass->builder, state_type, "setjmp_state");
        for (size_t i = 0; i < calls.count; i++)
            save_and_restore_around(pass, function, calls.items[i], state);
    }
    free(kept.items);
    free(frame.bases.items);
    free(calls.items);
}

void check_nothing_live_across_setjmp(polls_pass *pass, LLVMValueRef function)
{
    value_list calls = {0};
    collect_setjmp_calls(function, &calls);
    int calls_setjmp = calls.count > 0;
    free(calls.items);
    if (!calls_setjmp)
        return;
    kept_list left = {0};
    find_kept_references(pass, function, &left);
    for (size_t i = 0; i < left.count; i++) {
        char *what = describe_value(left.items[i].value);
        pass_error(pass, function, LLVMIsAInstruction(left.items[i].value) ? left.items[i].value : NULL,
                   "internal error: reference %s is live across a setjmp call after RS4GC, "
                   "where no collection would update it (please report this IR)",
                   what);
        free(what);
    }
    free(left.items);
}
