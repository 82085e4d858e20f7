/* stack_roots.c — references in a managed function's own stack memory.
 *
 * RS4GC relocates SSA values; stack memory is invisible to it. What clang
 * and the optimiser leave in memory holding references is ordinary C:
 *
 *   an address-taken local     noderef r; parse(&r);
 *   a stack array              noderef nodes[8];
 *   a struct passed in memory  struct triple t = make(); sum(t);  (> 16 bytes)
 *   a byval parameter          long sum(struct triple t)  (the caller's copy)
 *
 * Each such slot (a static alloca of a type holding references, and each
 * byval parameter of one) moves into one frame the function pushes on the
 * thread's frame-root chain (corral/shadow_stack.h), whose map lists the
 * runs of reference words in it. The collector visits and updates those
 * words like stackmap slots, so a load after any safepoint reads where the
 * object is now, including a callee's load through the slot's address.
 *
 *   entry:  frame = alloca [N x i8]         ; { next, map, slots... }
 *           %r = gep frame, 16               ; each slot, at its alignment
 *           memset(%r, 0, size)              ; a parameter: memcpy from it
 *           frame.next = head; frame.map = @corral.stack_roots.F; head = frame
 *           <entry poll>                     ; placement puts it after the push
 *   ret:    head = frame.next                ; and before each resume
 *
 * It runs after the checks (check_stack_reference_slot below) and before
 * keep_frame_walkable, which may turn a large frame into a dynamic alloca.
 * A function with a setjmp call pushes its setjmp frame later, before this
 * push, and pops it after this pop, so the chain stays last-in first-out;
 * a longjmp resets the head to what it was at its setjmp.
 *
 * A slot's words are null until the program stores to them; a word must
 * hold an object reference or null whenever a safepoint may come, as a
 * heap field must: an address inside an object stored there is rejected.
 *
 * Untyped stack memory the function stores references into (a char
 * buffer, an array of integers cast to references) is such a slot too,
 * every word of it a reference, when every store into it is of a reference,
 * null or zero (or a memset to zero, a memcpy): anything else is rejected,
 * as is memory allocated at run time (alloca(), a variable-length array).
 */
#include "pass.h"

#include "corral/abi.h"

#include <llvm-c/Target.h>

#include <stdlib.h>
#include <string.h>

#define WORD_BYTES 8
/* Beyond x86-64's stack alignment the frame would be realigned (frames.c). */
#define MAX_SLOT_ALIGNMENT 16
/* The walker's limit on the runs of one frame. */
#define MAX_RUNS (1u << 20)
/* Far beyond a thread's stack (8 MiB by default); keeps offsets 32-bit and
 * the pass's own lists of words small. */
#define MAX_SLOT_BYTES (64u << 20)

/* One slot the frame holds: an alloca, or a byval parameter copied in. */
typedef struct stack_slot {
    LLVMValueRef value;
    LLVMTypeRef type;
    uint64_t size;
    unsigned alignment;
    uint64_t offset; /* from the frame's start */
} stack_slot;

typedef VEC(stack_slot) slot_list;
typedef VEC(uint64_t) offset_list;
typedef VEC(corral_frame_roots_run) run_list;

/* The type a byval parameter (0-based) of function is a copy of, when it
 * holds references; else NULL. */
static LLVMTypeRef byval_reference_type(LLVMValueRef function, unsigned parameter)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
    LLVMAttributeRef byval = LLVMGetEnumAttributeAtIndex(function, parameter + 1, kind);
    LLVMTypeRef type = byval ? LLVMGetTypeAttributeValue(byval) : NULL;
    return type && type_contains_gc_pointer(type) ? type : NULL;
}

static unsigned parameter_alignment(LLVMValueRef function, unsigned parameter,
                                    LLVMTargetDataRef layout, LLVMTypeRef type)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("align", 5);
    LLVMAttributeRef align = LLVMGetEnumAttributeAtIndex(function, parameter + 1, kind);
    return align ? (unsigned)LLVMGetEnumAttributeValue(align)
                 : LLVMABIAlignmentOfType(layout, type);
}

/* Appends the offset of each reference word in type, at base, to words;
 * returns 0, or -1 for a reference that is not word-aligned (a packed
 * struct) or a scalable vector. */
static int reference_words(LLVMTargetDataRef layout, LLVMTypeRef type, uint64_t base,
                           offset_list *words)
{
    if (!type_contains_gc_pointer(type))
        return 0;
    switch (LLVMGetTypeKind(type)) {
    case LLVMPointerTypeKind:
        if (base % WORD_BYTES != 0)
            return -1;
        VEC_PUSH(*words, base);
        return 0;
    case LLVMStructTypeKind:
        for (unsigned i = 0; i < LLVMCountStructElementTypes(type); i++)
            if (reference_words(layout, LLVMStructGetTypeAtIndex(type, i),
                                base + LLVMOffsetOfElement(layout, type, i), words) != 0)
                return -1;
        return 0;
    case LLVMArrayTypeKind:
    case LLVMVectorTypeKind: {
        LLVMTypeRef element = LLVMGetElementType(type);
        uint64_t count = LLVMGetTypeKind(type) == LLVMArrayTypeKind ? LLVMGetArrayLength2(type)
                                                                    : LLVMGetVectorSize(type);
        uint64_t stride = LLVMABISizeOfType(layout, element);
        for (uint64_t i = 0; i < count; i++)
            if (reference_words(layout, element, base + i * stride, words) != 0)
                return -1;
        return 0;
    }
    default:
        return -1; /* a scalable vector */
    }
}

/* Calls visit for each use of address, and of the addresses derived from
 * it (GEPs, casts, phis, selects), each address once (visited). */
typedef void (*address_use_visitor)(LLVMValueRef user, LLVMValueRef address, void *context);

static void for_each_address_use(LLVMValueRef address, ptr_table *visited,
                                 address_use_visitor visit, void *context)
{
    if (ptr_table_contains(visited, address))
        return;
    ptr_table_put(visited, address, 1);
    for (LLVMUseRef use = LLVMGetFirstUse(address); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user) || LLVMIsAPHINode(user) ||
            LLVMIsASelectInst(user))
            for_each_address_use(user, visited, visit, context);
        else
            visit(user, address, context);
    }
}

/* ---- untyped stack memory holding references */

/* What the function stores through addresses derived from an alloca. */
typedef struct slot_stores {
    LLVMValueRef reference; /* the first store of a reference, or NULL */
    LLVMValueRef other;     /* the first store of anything but a reference, null or zero */
} slot_stores;

static int zeroes_or_copies(LLVMValueRef call)
{
    if (is_memory_copy_call(call))
        return 1; /* a copy of another such buffer, or of reference slots */
    if (is_pattern_fill(call))
        return 1; /* made zeroes with the slot (zero_pattern_fills) */
    return calls_function_prefixed(call, "llvm.memset.") && LLVMIsNull(LLVMGetOperand(call, 1));
}

typedef struct store_search {
    ptr_table visited;
    slot_stores found;
} store_search;

static void visit_slot_use(LLVMValueRef user, LLVMValueRef address, void *context);

/* The addresses loaded back from a local that the address was stored in
 * (noderef *blocks[8]; blocks[i] = alloca(...)): each is the address again. */
static void visit_holder_use(LLVMValueRef user, LLVMValueRef holder_address, void *context)
{
    (void)holder_address;
    store_search *search = context;
    if (LLVMIsALoadInst(user) && LLVMGetTypeKind(LLVMTypeOf(user)) == LLVMPointerTypeKind &&
        !type_is_gc_pointer(LLVMTypeOf(user)))
        for_each_address_use(user, &search->visited, visit_slot_use, search);
}

static void visit_slot_use(LLVMValueRef user, LLVMValueRef address, void *context)
{
    store_search *search = context;
    slot_stores *found = &search->found;
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == address) {
        LLVMValueRef holder = strip_address(LLVMGetOperand(user, 1));
        if (LLVMIsAAllocaInst(holder))
            for_each_address_use(holder, &search->visited, visit_holder_use, search);
    } else if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == address) {
        LLVMValueRef stored = LLVMGetOperand(user, 0);
        if (type_contains_gc_pointer(LLVMTypeOf(stored))) {
            if (!found->reference)
                found->reference = user;
        } else if (!LLVMIsNull(stored) && !found->other) {
            found->other = user;
        }
    } else if (is_call_site(user) && called_function(user) &&
               LLVMGetIntrinsicID(called_function(user)) && LLVMGetOperand(user, 0) == address &&
               !zeroes_or_copies(user) && !is_call_to(user, "llvm.lifetime.start.p0") &&
               !is_call_to(user, "llvm.lifetime.end.p0") && !found->other) {
        found->other = user; /* an intrinsic writing something else (a memset of 1s) */
    }
}

/* The first store of a reference into alloca, whose type holds none, or
 * NULL; *other is the first store of anything else into it. */
static LLVMValueRef untyped_reference_store(LLVMValueRef alloca, LLVMValueRef *other)
{
    store_search search = {0};
    if (!type_contains_gc_pointer(LLVMGetAllocatedType(alloca))) {
        ptr_table_init(&search.visited);
        for_each_address_use(alloca, &search.visited, visit_slot_use, &search);
        ptr_table_free(&search.visited);
    }
    *other = search.found.other;
    return search.found.reference;
}

/* The type the frame keeps an alloca as: its own when it holds references,
 * words of references when the function stores them into untyped memory,
 * else NULL. */
static LLVMTypeRef reference_slot_type(polls_pass *pass, LLVMValueRef alloca, uint64_t *count)
{
    LLVMTypeRef type = LLVMGetAllocatedType(alloca);
    *count = LLVMConstIntGetZExtValue(LLVMGetOperand(alloca, 0));
    if (type_contains_gc_pointer(type))
        return type;
    LLVMValueRef other;
    if (!untyped_reference_store(alloca, &other))
        return NULL;
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    *count = LLVMABISizeOfType(layout, type) * *count / WORD_BYTES;
    return LLVMPointerTypeInContext(pass->context, GC_ADDRESS_SPACE);
}

/* ---- checks, before anything changes */

/* Where the address of a slot goes: each use is checked. */
typedef struct slot_check {
    polls_pass *pass;
    LLVMValueRef function, slot;
} slot_check;

static void check_slot_use(LLVMValueRef user, LLVMValueRef address, void *context)
{
    const slot_check *check = context;
    polls_pass *pass = check->pass;
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == address) {
        LLVMValueRef stored = LLVMGetOperand(user, 0);
        if (type_contains_gc_pointer(LLVMTypeOf(stored)) && is_interior_reference(pass, stored))
            pass_error(pass, check->function, user,
                       "an address inside an object ('%s') is stored in stack slot '%%%s': "
                       "stack memory, like a heap field, holds only references to objects "
                       "(the collector updates each word as one); keep the object and an "
                       "index, or the address in a plain local",
                       value_name(stored), value_name(check->slot));
    } else if (is_call_site(user) && classify_call(pass, user) == CALL_UNMANAGED) {
        LLVMValueRef callee = called_function(user);
        pass_error(pass, check->function, user,
                   "the address of stack slot '%%%s', which holds references, is passed "
                   "to unmanaged function '%s': unmanaged C must not see references (a "
                   "collection may move them while it runs); pass handles, or declare "
                   "the function CORRAL_LEAF if it never blocks",
                   value_name(check->slot), callee ? value_name(callee) : "(indirect)");
    }
}

static void check_slot_uses(polls_pass *pass, LLVMValueRef function, LLVMValueRef slot)
{
    slot_check check = {pass, function, slot};
    ptr_table visited;
    ptr_table_init(&visited);
    for_each_address_use(slot, &visited, check_slot_use, &check);
    ptr_table_free(&visited);
}

/* A slot of count values of type: not too large, its references aligned
 * words, itself aligned within the frame's alignment. */
static void check_slot_type(polls_pass *pass, LLVMValueRef function, LLVMValueRef slot,
                            LLVMTypeRef type, uint64_t count, unsigned alignment,
                            const char *what)
{
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    LLVMValueRef at = LLVMIsAInstruction(slot) ? slot : NULL; /* a parameter: no location */
    uint64_t type_size = LLVMABISizeOfType(layout, type);
    if (type_size > MAX_SLOT_BYTES || (type_size && count > MAX_SLOT_BYTES / type_size)) {
        pass_error(pass, function, at,
                   "%s '%%%s' holding references is over %u MiB: the frame that keeps it for "
                   "the collector holds at most that; put it in the heap",
                   what, value_name(slot), MAX_SLOT_BYTES >> 20);
        return;
    }
    offset_list words = {0};
    if (reference_words(layout, type, 0, &words) != 0)
        pass_error(pass, function, at,
                   "%s '%%%s' holds a reference at an offset that is not a multiple of %d "
                   "bytes (a packed struct?) or in a scalable vector: the collector updates "
                   "references only as aligned words",
                   what, value_name(slot), WORD_BYTES);
    else if (alignment > MAX_SLOT_ALIGNMENT)
        pass_error(pass, function, at,
                   "%s '%%%s' holds references and is aligned to %u bytes: the frame keeping "
                   "it for the collector is aligned to at most %d; drop the alignment",
                   what, value_name(slot), alignment, MAX_SLOT_ALIGNMENT);
    free(words.items);
}

/* Untyped stack memory the function stores a reference into: kept as
 * words of references when nothing else is stored there. */
static void check_untyped_slot(polls_pass *pass, LLVMValueRef function, LLVMValueRef alloca,
                               LLVMValueRef reference_store, LLVMValueRef other)
{
    /* clang leaves alloca()'s memory unnamed: the store's line names it. */
    char *name = *value_name(alloca) ? xasprintf(" '%%%s'", value_name(alloca)) : xstrdup("");
    char *where = source_location_suffix(reference_store);
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    if (other)
        pass_error(pass, function, other,
                   "stack memory%s has a reference stored in it%s and something else stored "
                   "here: the collector would take every word of it for a reference; keep "
                   "references in an array of their own type",
                   name, where);
    else if (is_static_alloca(alloca) &&
             LLVMABISizeOfType(layout, LLVMGetAllocatedType(alloca)) *
                     LLVMConstIntGetZExtValue(LLVMGetOperand(alloca, 0)) % WORD_BYTES != 0)
        pass_error(pass, function, alloca,
                   "stack memory%s has a reference stored in it%s but its size is not a "
                   "multiple of %d bytes: the collector takes such memory as words of "
                   "references; declare it as an array of references",
                   name, where, WORD_BYTES);
    free(where);
    free(name);
}

/* Memory allocated at run time keeps words of references only: its map
 * is one run, whatever its length. */
static void check_dynamic_slot(polls_pass *pass, LLVMValueRef function, LLVMValueRef alloca)
{
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    LLVMTypeRef type = LLVMGetAllocatedType(alloca);
    offset_list words = {0};
    int whole_words = reference_words(layout, type, 0, &words) == 0 &&
                      words.count * WORD_BYTES == LLVMABISizeOfType(layout, type);
    free(words.items);
    if (type_contains_gc_pointer(type) && !whole_words)
        pass_error(pass, function, alloca,
                   "variable-length array '%%%s' of a type holding references and other data: "
                   "the collector keeps stack memory allocated at run time only as words of "
                   "references; keep the references in an array of their own",
                   value_name(alloca));
    else /* one element: the length is known only at run time */
        check_slot_type(pass, function, alloca, type, 1, LLVMGetAlignment(alloca),
                        "stack memory allocated at run time");
}

void check_stack_reference_slot(polls_pass *pass, LLVMValueRef function, LLVMValueRef alloca)
{
    if (!type_contains_gc_pointer(LLVMGetAllocatedType(alloca))) {
        LLVMValueRef other, reference_store = untyped_reference_store(alloca, &other);
        if (!reference_store)
            return;
        size_t errors = pass->error_count;
        check_untyped_slot(pass, function, alloca, reference_store, other);
        if (pass->error_count != errors)
            return;
    }
    if (is_static_alloca(alloca)) {
        uint64_t count;
        LLVMTypeRef type = reference_slot_type(pass, alloca, &count);
        check_slot_type(pass, function, alloca, type, count, LLVMGetAlignment(alloca),
                        "stack slot");
    } else {
        check_dynamic_slot(pass, function, alloca);
    }
    check_slot_uses(pass, function, alloca);
}

void check_byval_reference_parameters(polls_pass *pass, LLVMValueRef function)
{
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    for (unsigned i = 0; i < LLVMCountParams(function); i++) {
        LLVMTypeRef type = byval_reference_type(function, i);
        if (!type)
            continue;
        LLVMValueRef parameter = LLVMGetParam(function, i);
        check_slot_type(pass, function, parameter, type, 1,
                        parameter_alignment(function, i, layout, type), "byval parameter");
        check_slot_uses(pass, function, parameter);
    }
}

/* ---- frame-root chain entries, shared with setjmp.c */

LLVMValueRef build_frame_roots_map(polls_pass *pass, const char *name, unsigned root_count,
                                   const corral_frame_roots_run *runs, size_t run_count)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    LLVMTypeRef run_fields[] = {i32, i32};
    LLVMTypeRef run_type = LLVMStructTypeInContext(pass->context, run_fields, 2, 0);
    LLVMValueRef *run_values = xcalloc(run_count + 1, sizeof *run_values);
    for (size_t i = 0; i < run_count; i++) {
        LLVMValueRef fields[] = {LLVMConstInt(i32, runs[i].offset, 0),
                                 LLVMConstInt(i32, runs[i].words, 0)};
        run_values[i] = LLVMConstStructInContext(pass->context, fields, 2, 0);
    }
    LLVMValueRef fields[] = {LLVMConstInt(i32, root_count, 0), LLVMConstInt(i32, run_count, 0),
                             LLVMConstArray2(run_type, run_values, run_count)};
    free(run_values);
    return private_constant(pass, name, LLVMConstStructInContext(pass->context, fields, 3, 0));
}

LLVMValueRef build_frame_roots_push(polls_pass *pass, LLVMValueRef frame, LLVMValueRef map)
{
    LLVMTypeRef i8 = LLVMInt8TypeInContext(pass->context);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMValueRef head = thread_local_pointer(pass, CORRAL_ABI_FRAME_ROOTS_HEAD);
    LLVMBuildStore(pass->builder, LLVMBuildLoad2(pass->builder, ptr, head, "frame_roots_head"),
                   frame);
    LLVMValueRef map_offset = LLVMConstInt(LLVMInt64TypeInContext(pass->context), WORD_BYTES, 0);
    LLVMBuildStore(pass->builder, map,
                   LLVMBuildInBoundsGEP2(pass->builder, i8, frame, &map_offset, 1, ""));
    return LLVMBuildStore(pass->builder, frame, head);
}

void build_frame_roots_pops(polls_pass *pass, LLVMValueRef function, LLVMValueRef frame,
                            int at_resume)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMValueRef head = thread_local_pointer(pass, CORRAL_ABI_FRAME_ROOTS_HEAD);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block)) {
        LLVMValueRef terminator = LLVMGetBasicBlockTerminator(block);
        if (!terminator)
            continue;
        LLVMOpcode opcode = LLVMGetInstructionOpcode(terminator);
        if (opcode != LLVMRet && !(at_resume && opcode == LLVMResume))
            continue;
        LLVMPositionBuilderBefore(pass->builder, opcode == LLVMRet ?
                                                     function_exit_point(terminator) :
                                                     terminator);
        LLVMBuildStore(pass->builder, LLVMBuildLoad2(pass->builder, ptr, frame, "frame_next"),
                       head);
    }
}

/* ---- the frame */

/* Allocas holding references whose memory is allocated at run time. */
static void collect_dynamic_slots(LLVMValueRef function, value_list *dynamic)
{
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            LLVMValueRef other;
            if (LLVMIsAAllocaInst(inst) && !is_static_alloca(inst) &&
                (type_contains_gc_pointer(LLVMGetAllocatedType(inst)) ||
                 untyped_reference_store(inst, &other)))
                VEC_PUSH(*dynamic, inst);
        }
}

static void collect_slots(polls_pass *pass, LLVMValueRef function, slot_list *slots)
{
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    for (LLVMValueRef inst = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(function)); inst;
         inst = LLVMGetNextInstruction(inst)) {
        if (!LLVMIsAAllocaInst(inst) || !is_static_alloca(inst))
            continue;
        uint64_t count;
        LLVMTypeRef type = reference_slot_type(pass, inst, &count);
        if (!type)
            continue;
        stack_slot slot = {.value = inst, .type = type,
                           .size = LLVMABISizeOfType(layout, type) * count,
                           .alignment = LLVMGetAlignment(inst)};
        VEC_PUSH(*slots, slot);
    }
    for (unsigned i = 0; i < LLVMCountParams(function); i++) {
        LLVMTypeRef type = byval_reference_type(function, i);
        if (!type)
            continue;
        stack_slot slot = {.value = LLVMGetParam(function, i), .type = type,
                           .size = LLVMABISizeOfType(layout, type),
                           .alignment = parameter_alignment(function, i, layout, type)};
        VEC_PUSH(*slots, slot);
    }
}

static uint64_t align_up(uint64_t value, uint64_t alignment)
{
    return (value + alignment - 1) / alignment * alignment;
}

/* Places the slots after the frame's two header words; returns its size. */
static uint64_t lay_out(slot_list *slots, unsigned *frame_alignment)
{
    uint64_t offset = 2 * WORD_BYTES;
    *frame_alignment = WORD_BYTES;
    for (size_t i = 0; i < slots->count; i++) {
        stack_slot *slot = &slots->items[i];
        unsigned alignment = slot->alignment > WORD_BYTES ? slot->alignment : WORD_BYTES;
        if (alignment > *frame_alignment)
            *frame_alignment = alignment;
        slot->offset = align_up(offset, alignment);
        offset = slot->offset + slot->size;
    }
    return align_up(offset, *frame_alignment);
}

static int compare_offsets(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The runs of reference words of every slot (an array slot's count of its
 * type), merged where adjacent. */
static void collect_runs(LLVMTargetDataRef layout, const slot_list *slots, run_list *runs)
{
    offset_list words = {0};
    for (size_t i = 0; i < slots->count; i++) {
        const stack_slot *slot = &slots->items[i];
        uint64_t type_size = LLVMABISizeOfType(layout, slot->type);
        for (uint64_t at = 0; at < slot->size; at += type_size)
            reference_words(layout, slot->type, slot->offset + at, &words);
    }
    if (words.count) /* none: a slot of no size (alloca of a zero count) */
        qsort(words.items, words.count, sizeof *words.items, compare_offsets);
    for (size_t i = 0; i < words.count; i++) {
        corral_frame_roots_run *last = runs->count ? &runs->items[runs->count - 1] : NULL;
        if (last && last->offset + (uint64_t)last->words * WORD_BYTES == words.items[i])
            last->words++;
        else
            VEC_PUSH(*runs, ((corral_frame_roots_run){(uint32_t)words.items[i], 1}));
    }
    free(words.items);
}

/* Drops llvm.lifetime markers of an alloca: the frame's slots live as long
 * as the call, and nothing may reuse their memory while the map names it. */
static void erase_lifetime_markers(LLVMValueRef alloca)
{
    value_list markers = {0};
    for (LLVMUseRef use = LLVMGetFirstUse(alloca); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (is_call_to(user, "llvm.lifetime.start.p0") || is_call_to(user, "llvm.lifetime.end.p0"))
            VEC_PUSH(markers, user);
    }
    for (size_t i = 0; i < markers.count; i++)
        LLVMInstructionEraseFromParent(markers.items[i]);
    free(markers.items);
}

/* ---- stack memory allocated at run time
 *
 * Each alloca of references with a run-time length (a variable-length
 * array, alloca()) becomes an entry of its own, pushed where it is
 * allocated, its map inline since only then is the length known:
 *
 *   %mem = alloca i8, i64 (32 + size)      ; { next, map, map: {0, 1}, run: {32, words} }
 *   mem.next = head; mem.map = mem + 16; the map; memset(mem + 32, 0, size); head = mem
 *   ... the alloca's uses read mem + 32
 *
 * The chain is cut back with the memory: before each llvm.stackrestore,
 * to the head loaded right after its llvm.stacksave; at the function's
 * exits, by the pop of its frame (a function with such memory has one, if
 * empty), which pushed before all of them.
 */
#define DYNAMIC_HEADER_BYTES 32

/* Where a dynamic slot's code goes: after it, and after the frame's push
 * when it is among the entry block's leading allocas. */
static LLVMValueRef dynamic_slot_code_point(LLVMValueRef alloca, LLVMValueRef push)
{
    if (LLVMGetInstructionParent(alloca) == LLVMGetInstructionParent(push))
        for (LLVMValueRef inst = alloca; inst; inst = LLVMGetNextInstruction(inst))
            if (inst == push)
                return LLVMGetNextInstruction(push);
    return LLVMGetNextInstruction(alloca);
}

static LLVMValueRef byte_at(polls_pass *pass, LLVMValueRef base, uint64_t offset)
{
    LLVMValueRef index = LLVMConstInt(LLVMInt64TypeInContext(pass->context), offset, 0);
    return LLVMBuildInBoundsGEP2(pass->builder, LLVMInt8TypeInContext(pass->context), base,
                                 &index, 1, "");
}

static void keep_dynamic_slot(polls_pass *pass, LLVMValueRef alloca, LLVMValueRef push)
{
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(pass->context);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMBuilderRef b = pass->builder;
    erase_lifetime_markers(alloca);
    LLVMPositionBuilderBefore(b, dynamic_slot_code_point(alloca, push));
    uint64_t element_size = LLVMABISizeOfType(layout, LLVMGetAllocatedType(alloca));
    LLVMValueRef count = LLVMBuildZExtOrBitCast(b, LLVMGetOperand(alloca, 0), i64, "");
    LLVMValueRef size = LLVMBuildMul(b, count, LLVMConstInt(i64, element_size, 0), "");
    LLVMValueRef total = LLVMBuildAdd(b, size, LLVMConstInt(i64, DYNAMIC_HEADER_BYTES, 0), "");
    LLVMValueRef memory = LLVMBuildArrayAlloca(b, i8, total, "dynamic_roots");
    LLVMSetAlignment(memory, MAX_SLOT_ALIGNMENT);
    LLVMValueRef head = thread_local_pointer(pass, CORRAL_ABI_FRAME_ROOTS_HEAD);
    LLVMValueRef words = LLVMBuildUDiv(b, size, LLVMConstInt(i64, WORD_BYTES, 0), "");
    LLVMBuildStore(b, LLVMBuildLoad2(b, ptr, head, "frame_roots_head"), memory);
    LLVMBuildStore(b, byte_at(pass, memory, 16), byte_at(pass, memory, 8));     /* map */
    LLVMBuildStore(b, LLVMConstInt(i32, 0, 0), byte_at(pass, memory, 16));      /* root_count */
    LLVMBuildStore(b, LLVMConstInt(i32, 1, 0), byte_at(pass, memory, 20));      /* run_count */
    LLVMBuildStore(b, LLVMConstInt(i32, DYNAMIC_HEADER_BYTES, 0), byte_at(pass, memory, 24));
    LLVMBuildStore(b, LLVMBuildTrunc(b, words, i32, ""), byte_at(pass, memory, 28));
    LLVMValueRef data = byte_at(pass, memory, DYNAMIC_HEADER_BYTES);
    LLVMBuildMemSet(b, data, LLVMConstInt(i8, 0, 0), size, MAX_SLOT_ALIGNMENT);
    LLVMBuildStore(b, memory, head);
    LLVMReplaceAllUsesWith(alloca, data);
    LLVMSetValueName2(data, value_name(alloca), strlen(value_name(alloca)));
    LLVMInstructionEraseFromParent(alloca);
}

/* Before each stackrestore: the head as it was at its stacksave. */
static void cut_chain_at_stack_restores(polls_pass *pass, LLVMValueRef function)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(pass->context, 0);
    LLVMValueRef head = thread_local_pointer(pass, CORRAL_ABI_FRAME_ROOTS_HEAD);
    ptr_table saved_heads;
    ptr_table_init(&saved_heads);
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;
         block = LLVMGetNextBasicBlock(block))
        for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
             inst = LLVMGetNextInstruction(inst)) {
            if (!is_call_to(inst, "llvm.stackrestore.p0"))
                continue;
            LLVMValueRef save = LLVMGetOperand(inst, 0);
            if (!LLVMIsAInstruction(save) || !is_call_to(save, "llvm.stacksave.p0")) {
                pass_error(pass, function, inst,
                           "llvm.stackrestore of a value that is not an llvm.stacksave call, "
                           "in a function keeping references in stack memory allocated at run "
                           "time: the pass cannot tell which of its entries the restore frees");
                continue;
            }
            uintptr_t saved;
            if (!ptr_table_get(&saved_heads, save, &saved)) {
                LLVMPositionBuilderBefore(pass->builder, LLVMGetNextInstruction(save));
                saved = (uintptr_t)LLVMBuildLoad2(pass->builder, ptr, head, "saved_roots_head");
                ptr_table_put(&saved_heads, save, saved);
            }
            LLVMPositionBuilderBefore(pass->builder, inst);
            LLVMBuildStore(pass->builder, (LLVMValueRef)saved, head);
        }
    ptr_table_free(&saved_heads);
}

static void zero_pattern_fill_of(LLVMValueRef user, LLVMValueRef address, void *context)
{
    (void)context;
    if (is_pattern_fill(user) && LLVMGetOperand(user, 0) == address)
        zero_pattern_fill(user);
}

/* -ftrivial-auto-var-init=pattern's fill of memory that comes to hold
 * references untyped becomes zeroes, which the collector reads as null. */
static void zero_pattern_fills(LLVMValueRef alloca)
{
    ptr_table visited;
    ptr_table_init(&visited);
    for_each_address_use(alloca, &visited, zero_pattern_fill_of, NULL);
    ptr_table_free(&visited);
}

void keep_stack_references_in_frames(polls_pass *pass, LLVMValueRef function)
{
    slot_list slots = {0};
    value_list dynamic = {0};
    collect_slots(pass, function, &slots);
    collect_dynamic_slots(function, &dynamic);
    if (slots.count == 0 && dynamic.count == 0)
        return;
    for (size_t i = 0; i < slots.count; i++)
        if (LLVMIsAAllocaInst(slots.items[i].value))
            zero_pattern_fills(slots.items[i].value);
    for (size_t i = 0; i < dynamic.count; i++)
        zero_pattern_fills(dynamic.items[i]);
    LLVMTargetDataRef layout = LLVMGetModuleDataLayout(pass->module);
    unsigned frame_alignment;
    uint64_t frame_size = lay_out(&slots, &frame_alignment);
    run_list runs = {0};
    collect_runs(layout, &slots, &runs);
    if (runs.count > MAX_RUNS) {
        pass_error(pass, function, NULL,
                   "its stack slots holding references make %zu runs of reference words, "
                   "more than the collector's %u per frame; keep large arrays of structs with "
                   "references in the heap",
                   runs.count, MAX_RUNS);
        free(dynamic.items);
        free(runs.items);
        free(slots.items);
        return;
    }

    LLVMTypeRef i8 = LLVMInt8TypeInContext(pass->context);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(pass->context);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
    LLVMPositionBuilder(pass->builder, entry, LLVMGetFirstInstruction(entry));
    LLVMValueRef frame =
        LLVMBuildAlloca(pass->builder, LLVMArrayType2(i8, frame_size), "stack_roots_frame");
    LLVMSetAlignment(frame, frame_alignment);

    /* The slots, filled, then the push: all before the entry poll. */
    for (size_t i = 0; i < slots.count; i++)
        if (LLVMIsAAllocaInst(slots.items[i].value))
            erase_lifetime_markers(slots.items[i].value);
    LLVMPositionBuilderBefore(pass->builder, first_insertion_point(entry));
    for (size_t i = 0; i < slots.count; i++) {
        stack_slot *slot = &slots.items[i];
        LLVMValueRef offset = LLVMConstInt(i64, slot->offset, 0);
        LLVMValueRef address =
            LLVMBuildInBoundsGEP2(pass->builder, i8, frame, &offset, 1, value_name(slot->value));
        LLVMValueRef size = LLVMConstInt(i64, slot->size, 0);
        LLVMReplaceAllUsesWith(slot->value, address);
        if (LLVMIsAAllocaInst(slot->value)) {
            LLVMInstructionEraseFromParent(slot->value);
            LLVMBuildMemSet(pass->builder, address, LLVMConstInt(i8, 0, 0), size, slot->alignment);
        } else {
            LLVMBuildMemCpy(pass->builder, address, slot->alignment, slot->value,
                            slot->alignment, size);
        }
    }
    char *name = xasprintf("corral.stack_roots.%s", value_name(function));
    LLVMValueRef map = build_frame_roots_map(pass, name, 0, runs.items, runs.count);
    free(name);
    LLVMValueRef push = build_frame_roots_push(pass, frame, map);
    ptr_table_put(&pass->entry_code_ends, function, (uintptr_t)push);
    build_frame_roots_pops(pass, function, frame, 1);
    for (size_t i = 0; i < dynamic.count; i++)
        keep_dynamic_slot(pass, dynamic.items[i], push);
    if (dynamic.count)
        cut_chain_at_stack_restores(pass, function);
    free(dynamic.items);
    free(runs.items);
    free(slots.items);
}
