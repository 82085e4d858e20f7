/* pass.h — the state one run of the corral pass carries, and the steps of
 * the pipeline (each implemented in its own file). polls.c runs them in
 * order; a step that finds unsafe IR adds an error and later steps are
 * skipped, so no step ever sees IR an earlier check rejected.
 */
#ifndef CORRAL_POLLS_PASS_H
#define CORRAL_POLLS_PASS_H

#include "corral/safepoint_pass.h"
#include "corral/shadow_stack.h"
#include "ptr_table.h"
#include "util.h"

#include <llvm-c/Core.h>

/* References are pointers in this address space (corral.h, CORRAL_REF). */
#define GC_ADDRESS_SPACE 1
/* The name LLVM's PlaceSafepoints gives the poll function; we keep it. */
#define POLL_FUNCTION_NAME "gc.safepoint_poll"
/* Prefix of the GC-transition wrappers the pass creates (internal linkage). */
#define WRAPPER_PREFIX "corral.unmanaged."
/* Metadata kind on the latch branch of a strip-mined loop: the verifier
 * accepts that backedge without a poll, the distance report counts it. */
#define STRIP_MINED_METADATA "corral.strip_mined"

/* Flags per function, from annotations, options and the pass itself. */
enum function_flags {
    FUNCTION_LEAF = 1u << 0,      /* gc-leaf: a direct call, no statepoint */
    FUNCTION_UNMANAGED = 1u << 1, /* C: called through a transition wrapper */
    FUNCTION_SAFEPOINT = 1u << 2, /* runtime call that may GC: direct statepoint */
    FUNCTION_NOPOLL = 1u << 3,    /* managed, but no polls inserted */
    FUNCTION_POLL_ALL = 1u << 4,  /* managed, every poll kind */
    FUNCTION_WRAPPER = 1u << 5,   /* a transition wrapper made by the pass */
    FUNCTION_MANAGED = 1u << 6,   /* defined in the module: gets gc "coreclr" */
    FUNCTION_EXTERNAL_MANAGED = 1u << 7, /* declared here, managed code elsewhere */
    FUNCTION_NO_BARRIER = 1u << 8, /* managed, but no write barriers (measurement only) */
    FUNCTION_SIGNAL_HANDLER = 1u << 9, /* managed, installed as one: no polls, C called directly */
};

/* What a call site becomes. */
typedef enum call_kind {
    CALL_MANAGED,      /* managed callee, or indirect: statepoint */
    CALL_MANAGED_TAIL, /* musttail call of one: a plain tail jump (classify.c) */
    CALL_SAFEPOINT,    /* runtime safepoint call: direct statepoint */
    CALL_UNMANAGED,    /* external C (or its wrapper): statepoint to the wrapper */
    CALL_LEAF,         /* gc-leaf function: plain call */
    CALL_INTRINSIC,    /* LLVM intrinsic: plain call */
    CALL_INLINE_ASM,   /* inline assembly: plain call */
    CALL_POLL,         /* gc.safepoint_poll, inserted by the pass */
} call_kind;

typedef VEC(LLVMValueRef) value_list;

/* A wrapper specific to more than its callee: a varargs callee's to the
 * concrete function type of the call (key: an LLVMTypeRef), an invoke
 * site's to its caller's personality function (key: an LLVMValueRef). */
typedef struct keyed_wrapper {
    LLVMValueRef callee;
    const void *key;
    LLVMValueRef wrapper;
} keyed_wrapper;

typedef struct polls_pass {
    LLVMModuleRef module;
    LLVMContextRef context;
    LLVMBuilderRef builder;
    corral_polls_options options;
    const char *input_name;

    VEC(corral_polls_diagnostic) diagnostics;
    size_t error_count;
    VEC(corral_polls_function_report) reports;

    value_list managed_functions; /* definitions, in module order */
    ptr_table function_flags;     /* LLVMValueRef function -> enum function_flags */
    ptr_table wrappers;           /* callee -> wrapper, for non-varargs callees */
    ptr_table callback_entries;   /* managed function -> its entry from C (or 0) */
    value_list external_entries;  /* functions whose entry takes their symbol at the end */
    VEC(keyed_wrapper) keyed_wrappers;
    unsigned wrappers_created;

    LLVMValueRef poll_function; /* gc.safepoint_poll */
    LLVMValueRef poll_page;     /* corral_poll_page */
    LLVMValueRef poll_slow;     /* corral_poll_slow */
    unsigned strip_mined_kind;  /* metadata kind id of STRIP_MINED_METADATA */
    ptr_table shadow_stack_loop_polls; /* their loop polls, made from fences */
    ptr_table gcroot_promoted_functions; /* functions whose gcroot slots were promoted */
    /* function -> the last instruction of entry code its entry poll must
     * follow (stack_roots.c's push), for functions that have such code. */
    ptr_table entry_code_ends;
} polls_pass;

/* ---- setjmp.c */
/* A call of a function that returns twice (attribute or GCC's names). */
int call_returns_twice(LLVMValueRef call);
/* A direct call of a declared setjmp-like function: supported (not vfork,
 * not getcontext); a leaf call, with what lives across it kept in memory. */
int is_setjmp_call(LLVMValueRef call);
/* A declaration of longjmp, siglongjmp or their glibc aliases. */
int is_longjmp_function(LLVMValueRef function);
/* Before optimisation: setjmp calls get the returns_twice attribute;
 * unoptimised, the scalar locals of their functions stay in memory. */
void mark_setjmp_calls(polls_pass *pass, int unoptimised);
/* After placement and barriers: references live across a setjmp call go to
 * a frame of root slots; the runtime saves and restores around the call. */
void keep_references_across_setjmp(polls_pass *pass, LLVMValueRef function);
/* After RS4GC: an error for any reference still live across a setjmp call. */
void check_nothing_live_across_setjmp(polls_pass *pass, LLVMValueRef function);

/* ---- stack_roots.c */
/* check_function's checks of a stack slot holding references: allocated
 * at run time, misaligned, or its address given to unmanaged C: errors. */
void check_stack_reference_slot(polls_pass *pass, LLVMValueRef function, LLVMValueRef alloca);
/* The same for the byval parameters of a function. */
void check_byval_reference_parameters(polls_pass *pass, LLVMValueRef function);
/* Before placement and keep_frame_walkable: stack slots and byval
 * parameters holding references move into a frame on the frame-root chain
 * the collector updates (corral/shadow_stack.h). */
void keep_stack_references_in_frames(polls_pass *pass, LLVMValueRef function);
/* The frame-root chain's protocol (corral/shadow_stack.h), for this file
 * and setjmp.c. A private constant corral_frame_roots_map named name. */
LLVMValueRef build_frame_roots_map(polls_pass *pass, const char *name, unsigned root_count,
                                   const corral_frame_roots_run *runs, size_t run_count);
/* At the builder: frame.next = head, frame.map = map, head = frame (the
 * store of head, returned, ends the push). */
LLVMValueRef build_frame_roots_push(polls_pass *pass, LLVMValueRef frame, LLVMValueRef map);
/* head = frame.next before every ret of function, and every resume when
 * at_resume. */
void build_frame_roots_pops(polls_pass *pass, LLVMValueRef function, LLVMValueRef frame,
                            int at_resume);

/* ---- diagnostics.c */
/* Adds an error about function (may be NULL); at (an instruction, may be
 * NULL) appends its source location when the IR has debug info. */
__attribute__((format(printf, 4, 5))) void pass_error(polls_pass *pass, LLVMValueRef function,
                                                      LLVMValueRef at, const char *format, ...);
__attribute__((format(printf, 4, 5))) void pass_warning(polls_pass *pass, LLVMValueRef function,
                                                        LLVMValueRef at, const char *format, ...);

/* Every instruction of every function defined in the module. */
#define FOR_EACH_INSTRUCTION_IN_MODULE(module, function, block, inst)                      \
    for (LLVMValueRef function = LLVMGetFirstFunction(module); function;                   \
         function = LLVMGetNextFunction(function))                                          \
        for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(function); block;             \
             block = LLVMGetNextBasicBlock(block))                                          \
            for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;                  \
                 inst = LLVMGetNextInstruction(inst))

/* ---- ir_util.c */
int type_contains_gc_pointer(LLVMTypeRef type);
int type_contains_pointer(LLVMTypeRef type); /* any address space */
int type_is_gc_pointer(LLVMTypeRef type);
/* A first-class aggregate (struct or array) holding a reference somewhere. */
int type_is_gc_aggregate(LLVMTypeRef type);
const char *value_name(LLVMValueRef value); /* "" when unnamed */
/* "%name" or "%7" as LLVM prints the block; caller frees. */
char *block_label(LLVMBasicBlockRef block);
/* " (file.c:12)" when the instruction has a debug location, else ""; caller frees. */
char *source_location_suffix(LLVMValueRef instruction);
int is_call_site(LLVMValueRef instruction); /* call, invoke or callbr */
int is_musttail_call(LLVMValueRef instruction);
/* Where code that runs as the function leaves goes for this ret: before the
 * musttail call that precedes it (its callee's return is this function's,
 * and nothing may come between them), else before the ret. */
LLVMValueRef function_exit_point(LLVMValueRef ret);
/* The called function (through aliases), or NULL for an indirect call. */
LLVMValueRef called_function(LLVMValueRef call);
/* The landingpad that begins block (after its phis), or NULL. */
LLVMValueRef block_landing_pad(LLVMBasicBlockRef block);
/* The landingpad an invoke unwinds to when it returns a value ({ ptr, i32 },
 * as C and C++ frontends write it), where RS4GC (LLVM 19) cannot anchor the
 * unwind edge's relocations; NULL for anything else. */
LLVMValueRef value_landing_pad(LLVMValueRef instruction);
int function_has_string_attribute(LLVMValueRef function, const char *kind);
void add_function_string_attribute(LLVMValueRef function, const char *kind, const char *value);
void add_call_string_attribute(LLVMValueRef call, const char *kind, const char *value);
void remove_function_enum_attribute(LLVMValueRef function, const char *kind);
int call_has_string_attribute(LLVMValueRef call, const char *kind);
/* An addrspacecast of a reference to a raw (non-GC) pointer. */
int is_raw_cast(LLVMValueRef value);
/* What a call's result may point into: the raw cast behind an argument, or
 * NULL (raw_pointers.c decides for calls that hand a pointer back). */
typedef LLVMValueRef (*raw_call_source)(LLVMValueRef call);
/* The raw cast of a reference that value may be, `(char *)s->data` perhaps
 * offset or chosen by a phi or select (with C memory, perhaps), or, with
 * through_call, that a call's result may point into. NULL if none. */
LLVMValueRef raw_pointer_source(LLVMValueRef value, raw_call_source through_call);
/* Whether value may be such a raw pointer itself (no call followed). */
int may_be_raw_from_reference(LLVMValueRef value);
/* The pointer an address is computed from, through GEPs and bitcasts. */
LLVMValueRef strip_address(LLVMValueRef pointer);
/* The object an address (a reference, one offset from it, or a raw pointer
 * cast from such) lies in, when the IR names it: what it is computed from,
 * unless that is a phi or select of addresses that are not all object
 * starts themselves (then NULL). */
LLVMValueRef object_of_address(LLVMValueRef address);
/* k when value tags a reference by a pointer offset: a getelementptr of
 * k bytes (1..7, one of options.ref_tags) on a reference that is not
 * itself offset, and 8 - k is no reference tag (else it could be the field
 * at 8 of a reference tagged 8 - k). Else 0. */
unsigned tag_offset(const polls_pass *pass, LLVMValueRef value);
/* A new private constant global holding init (LLVM may rename it). */
LLVMValueRef private_constant(polls_pass *pass, const char *name, LLVMValueRef init);
/* The runtime's thread-local pointer variable name (declared if absent). */
LLVMValueRef thread_local_pointer(polls_pass *pass, const char *name);
/* The runtime function name (declared with type if absent), gc-leaf. */
LLVMValueRef declare_leaf_function(polls_pass *pass, const char *name, LLVMTypeRef type);
/* An llvm.experimental.gc.statepoint.* declaration (NULL: no). */
int is_gc_statepoint_function(LLVMValueRef function);
/* i64: the word clang moves a pointer in. */
int type_is_word(LLVMTypeRef type);
/* An `atomicrmw xchg`. */
int is_atomic_exchange(LLVMValueRef inst);
/* Before exchange (an atomicrmw xchg): the same exchange, same field,
 * ordering, scope, volatility and alignment, of incoming. */
LLVMValueRef build_exchange_like(polls_pass *pass, LLVMValueRef exchange, LLVMValueRef incoming);
/* A direct call of a function whose name starts with prefix (an
 * overloaded intrinsic: "llvm.memset."). */
int calls_function_prefixed(LLVMValueRef inst, const char *prefix);
/* A call of llvm.memcpy.* or llvm.memmove.*. */
int is_memory_copy_call(LLVMValueRef inst);
/* What a call writes in bulk at *destination, *length bytes: a copy (which
 * may copy references) or a fill (which writes none but null). The memory
 * intrinsics and their libc names (memcpy, memmove, mempcpy, memccpy,
 * bcopy, memset, bzero, explicit_bzero, the _chk forms). */
typedef enum bulk_write_kind { BULK_NONE, BULK_COPY, BULK_FILL } bulk_write_kind;
bulk_write_kind bulk_memory_write(LLVMValueRef inst, LLVMValueRef *destination,
                                  LLVMValueRef *length);
/* Internal or private: C's static, seen by no other file. */
int has_internal_linkage(LLVMValueRef global);
/* The function a pointer operand names, through casts; NULL if none. */
LLVMValueRef function_named_by(LLVMValueRef value);
/* An alloca of a constant count in the entry block: a fixed frame slot. */
int is_static_alloca(LLVMValueRef alloca);
/* Whether function calls the function named name (directly). */
int function_calls(LLVMValueRef function, const char *name);
/* Whether inst is a direct call (or invoke) of the function named name. */
int is_call_to(LLVMValueRef inst, const char *name);
/* Replaces every use of old by replacement, which takes old's name, and
 * erases old. */
void replace_instruction(LLVMValueRef old, LLVMValueRef replacement);
/* A call, at the builder, of the intrinsic name with one overloaded type or
 * none (NULL). */
LLVMValueRef build_intrinsic_call(polls_pass *pass, const char *name, LLVMTypeRef overload,
                                  LLVMValueRef *args, unsigned count, const char *result_name);
/* Copies the return and parameter attributes 0..argument_count (byval, sret,
 * zeroext, elementtype...) from a function or call to a function or call. */
void copy_attributes(LLVMValueRef from, int from_is_call, LLVMValueRef to, int to_is_call,
                     unsigned argument_count);
/* A call or invoke rebuilt from another takes its parameter, return and
 * function attributes, calling convention, tail-call kind and location. */
void copy_call_properties(LLVMValueRef from, LLVMValueRef to, unsigned argument_count);
/* The same for a void call rebuilt from one with a result: no return
 * attributes, no parameter "returned". */
void copy_call_properties_to_void_call(LLVMValueRef from, LLVMValueRef to,
                                       unsigned argument_count);
/* A call of callee (of type) with call's first argument_count arguments and
 * the given bundles, built before call; an invoke to the same destinations
 * when call is one. */
LLVMValueRef rebuild_call(polls_pass *pass, LLVMValueRef call, LLVMTypeRef type,
                          LLVMValueRef callee, unsigned argument_count,
                          LLVMOperandBundleRef *bundles, unsigned bundle_count);
/* The same for one index (LLVMAttributeFunctionIndex included). */
void copy_attributes_at_index(LLVMValueRef from, int from_is_call, LLVMValueRef to,
                              int to_is_call, LLVMAttributeIndex index);
/* Parameter attributes 1..parameter_count, for a function or call that no
 * longer returns its result (so no parameter is "returned"). */
void copy_parameter_attributes_of_void_version(LLVMValueRef from, int from_is_call,
                                               LLVMValueRef to, int to_is_call,
                                               unsigned parameter_count);
/* Non-debug instructions, the unit of the poll distance. */
int is_counted_instruction(LLVMValueRef instruction);
/* First instruction after the phis (and, in the entry block, the allocas). */
LLVMValueRef first_insertion_point(LLVMBasicBlockRef block);
/* Where to insert right after value is defined: an argument at the entry's
 * first insertion point, a phi after its block's phis, else the next
 * instruction. */
LLVMValueRef insertion_point_after(LLVMValueRef value);
int value_list_contains(const value_list *list, LLVMValueRef value);
/* The values a phi or select chooses between (a select's two arms): how
 * many (0 for anything else), and the i-th. */
unsigned chosen_value_count(LLVMValueRef value);
LLVMValueRef chosen_value(LLVMValueRef value, unsigned i);
/* The function's arguments and instructions for which keep is true. */
void collect_values(LLVMValueRef function, int (*keep)(LLVMValueRef), value_list *values);
/* The instructions using value, each once, but those in skip (may be NULL). */
void collect_instruction_users(LLVMValueRef value, const value_list *skip, value_list *users);
/* Builds a copy of a value right before `before` (positions the builder). */
typedef LLVMValueRef (*copy_builder)(polls_pass *pass, LLVMValueRef before, const void *context);
/* Each use of value by users gets its own copy, built right before the
 * user, or for a phi at the end of the incoming block (once per block). */
void replace_uses_with_copies(polls_pass *pass, LLVMValueRef value, const value_list *users,
                              copy_builder build, const void *context);
/* Runs an LLVMRunPasses pipeline; on failure adds an error and returns -1. */
int run_pipeline(polls_pass *pass, const char *pipeline);
/* Replaces a phi's incoming block old_block by new_block (the C API has no
 * setter, so the phi is rebuilt). Returns the phi now in place. */
LLVMValueRef phi_replace_incoming_block(polls_pass *pass, LLVMValueRef phi,
                                        LLVMBasicBlockRef old_block,
                                        LLVMBasicBlockRef new_block);
/* A !prof branch_weights node for a two-way branch. */
LLVMValueRef branch_weights(polls_pass *pass, unsigned taken, unsigned not_taken);

static inline unsigned function_flags(const polls_pass *pass, LLVMValueRef function)
{
    uintptr_t flags = 0;
    ptr_table_get(&pass->function_flags, function, &flags);
    return (unsigned)flags;
}
static inline void function_add_flags(polls_pass *pass, LLVMValueRef function, unsigned flags)
{
    ptr_table_put(&pass->function_flags, function, function_flags(pass, function) | flags);
}

/* ---- classify.c */
/* Reads annotations, options and attributes into pass->function_flags and
 * collects pass->managed_functions. */
void classify_functions(polls_pass *pass);
call_kind classify_call(const polls_pass *pass, LLVMValueRef call);
/* The call will be a statepoint after RS4GC (so it ends a poll-free path). */
int call_is_statepoint(const polls_pass *pass, LLVMValueRef call);
/* Intrinsics worth a PreCall poll: memcpy/memmove/memset of unknown length. */
int call_is_long_intrinsic(LLVMValueRef call);
/* Marks leaf, intrinsic and inline-asm calls "gc-leaf-function". */
void mark_leaf_calls(polls_pass *pass);

/* ---- varargs.c */
/* A call through a declaration without a prototype (a varargs call type)
 * of a function that is not varargs calls it by its own type; one whose
 * arguments do not match is rejected. */
void call_unprototyped_functions_by_their_type(polls_pass *pass, LLVMValueRef function);
/* Managed varargs functions returning a value return it through a
 * thread-local variable, since a statepoint cannot wrap such a call. */
void return_varargs_results_through_variables(polls_pass *pass);
/* After poll placement: a function so rewritten stores its result after
 * its return poll. */
void store_varargs_results_after_polls(polls_pass *pass, LLVMValueRef function);
/* Statepoints of varargs calls cannot carry sret (LLVM 19's verifier):
 * dropped from the call (x86-64) or from the callee and all its calls
 * (AArch64, where sret has a register of its own); rejected otherwise. */
void drop_sret_of_varargs_calls(polls_pass *pass, LLVMValueRef function);
/* x86-64: a managed varargs call passing a floating-point or vector value
 * through "..." enters its callee through a stub that sets %al, which a
 * statepoint leaves unset; such an indirect call is rejected. */
void count_vector_registers_of_varargs_calls(polls_pass *pass, LLVMValueRef function);

/* ---- call_pins.c */
/* Pins references passed through "..." of managed and indirect calls for
 * the duration of the call; rejects invoke and musttail calls that need it. */
void pin_variadic_references(polls_pass *pass, LLVMValueRef function);
/* Pins each of objects (references) around call, or reports why it cannot. */
void pin_objects_for_call(polls_pass *pass, LLVMValueRef function, LLVMValueRef call,
                          const value_list *objects);

/* ---- raw_pointers.c */
/* Computes raw pointers made from references in address space 1 up to
 * each use, so RS4GC relocates them; pins the object of one passed to a
 * call that can reach a safepoint, or one a use may hand back, until the
 * function returns (frame_pins.c). */
void keep_raw_pointers_relocatable(polls_pass *pass, LLVMValueRef function,
                                   corral_polls_function_report *report);
/* The raw pointer made from a reference that value may be or point into:
 * itself (offset, or chosen by a phi or select), or an argument of a call
 * that may give a pointer into its object back (strchr's). NULL if none. */
LLVMValueRef raw_pointer_into_object(LLVMValueRef value);
/* After poll placement: makes a returned raw pointer (into an object the
 * function pins) again after the return poll, which came between its cast
 * and the return. */
void cast_returned_raw_pointers_after_polls(polls_pass *pass, LLVMValueRef function);

/* ---- frame_pins.c */
/* Whether address is in the function's frame (an alloca, or inside one). */
int is_frame_memory(LLVMValueRef address);
/* Whether the callee of call may keep or hand back its argument index:
 * unless LLVM says it does not (nocapture: memcpy's source, strlen,
 * write, a function whose body was seen not to keep it). */
int may_capture_argument(LLVMValueRef call, unsigned index);
/* Pins, until the function returns, the object of each raw cast whose use
 * may hand back a pointer into it, and marks the cast (is_frame_pinned). */
void pin_objects_for_frame(polls_pass *pass, LLVMValueRef function,
                           corral_polls_function_report *report);
/* Whether raw (an addrspacecast to address space 0) has a frame pin: its
 * object stays in place while the function runs. */
int is_frame_pinned(LLVMValueRef raw);

/* ---- checks.c: rejections done before any transformation. */
void check_module(polls_pass *pass);
void check_function(polls_pass *pass, LLVMValueRef function);
/* An address computed inside an object (&object->field, &array[i]), seen
 * through casts, phis and selects. */
int is_interior_reference(const polls_pass *pass, LLVMValueRef value);
/* After the preparation pipeline: static functions that receive or return
 * an interior reference (&object->field), or return a raw pointer made from
 * a reference, are inlined, as a call cannot carry one; check_function and
 * the safepoint checks reject those that stay calls (recursion). */
void inline_interior_reference_helpers(polls_pass *pass);
/* A global holding references whose address goes nowhere (so it was never
 * registered as a root): an error when static, a warning otherwise. */
void check_reference_globals(polls_pass *pass);
/* After poll insertion: integers made from references, and aggregates of
 * references, must not be live across a poll or statepoint. */
void check_live_across_safepoints(polls_pass *pass, LLVMValueRef function);
/* "a poll (file.c:3)" or "the call to 'f'"; caller frees. */
char *describe_safepoint(const polls_pass *pass, LLVMValueRef call);
/* 'name', or the start of its printed form when unnamed; free() it. */
char *describe_value(LLVMValueRef value);

/* ---- normalize.c: rewrite what RS4GC mishandles into forms it handles. */
void normalize_function(polls_pass *pass, LLVMValueRef function);
/* Before the preparation pipeline: references tagged by a pointer offset
 * (--ref-tags) become bases of their own. */
void normalize_tag_offsets(polls_pass *pass);
/* Splits reference-holding aggregates live across safepoints into fields. */
void split_live_aggregates(polls_pass *pass, LLVMValueRef function);
/* Moves each icmp that only a conditional branch uses to just before it, as
 * RS4GC will: after placement and again after barriers (which split blocks). */
void sink_branch_compares(polls_pass *pass, LLVMValueRef function);

/* ---- abi_coercion.c */
/* Before optimisation: integer loads and stores of a local holding references
 * (AArch64 passes a small struct as [2 x i64]) become one typed access per
 * word, so the local promotes and the references stay visible. */
void split_coerced_reference_accesses(polls_pass *pass);
/* After optimisation: the opaque conversions split_coerced_reference_accesses
 * made become inttoptr (a new base for RS4GC). */
void lower_ref_from_int_calls(polls_pass *pass);
/* Whether inst is a call of the opaque conversion those accesses made. */
int is_ref_from_int_call(LLVMValueRef inst);

/* ---- callbacks.c */
/* After classification: the address of a managed function that may reach C
 * becomes an entry that enters managed code through the runtime. */
void enter_managed_callbacks_through_runtime(polls_pass *pass);
/* Last: each external function's entry takes the function's symbol (and
 * linkage); the function becomes internal, named corral.managed.F. */
void publish_external_entries(polls_pass *pass);
/* After poll placement: before each return of a managed main, a statepoint
 * call that leaves managed code for the atexit handlers (CORRAL_ABI_MAIN_RETURNS). */
void leave_managed_code_when_main_returns(polls_pass *pass);

/* ---- signal_handlers.c */
/* After classification: a managed function installed as a signal handler
 * (signal's argument, stored into sigaction's struct) gets no polls, and
 * its calls of C no transition wrappers; a call of polling managed code
 * from it is a warning. */
void find_signal_handlers(polls_pass *pass);

/* ---- callback_reach.c */
/* Whether the function's address may reach C: anything but a static
 * function whose address only managed code calls (a dispatch table). */
int function_address_may_reach_c(const polls_pass *pass, LLVMValueRef function);

/* ---- atomic_refs.c */
/* Before optimisation, after split_coerced_reference_accesses: clang's i64
 * atomic loads, stores, exchanges and compare-exchanges of references
 * become operations on the references. */
void retype_atomic_reference_words(polls_pass *pass);

/* ---- landing_pads.c */
/* Before the frame is laid out: references live across an invoke that
 * unwinds into a value landingpad move into frame slots. */
void keep_references_out_of_landing_pads(polls_pass *pass, LLVMValueRef function);
/* Each landing pad first calls CORRAL_ABI_LANDING_PAD_ENTERED, a statepoint
 * (its record lets the runtime find the pad's frame). */
void enter_landing_pads_through_runtime(polls_pass *pass, LLVMValueRef function);

/* ---- auto_init.c */
/* Before optimisation: clang's -ftrivial-auto-var-init=pattern word in a
 * reference becomes null, its memset of a local holding references zeroes. */
void null_pattern_initialised_references(polls_pass *pass);
/* A memset clang wrote to fill a local with its pattern (0xAA bytes, marked
 * !annotation "auto-init"), and making it fill zeroes. */
int is_pattern_fill(LLVMValueRef call);
void zero_pattern_fill(LLVMValueRef call);

/* ---- frames.c */
/* A function with dynamic allocas (every function, where the CFA is not
 * FP + 16) gets no stack realignment, so code generation never addresses
 * its slots from a base register, nor leaves a fixed frame without a size. */
void keep_frame_walkable(polls_pass *pass, LLVMValueRef function);
/* After RS4GC, where the CFA is not FP + 16: each statepoint of a function
 * with dynamic allocas carries the CFA as deopt operands (corral/abi.h). */
void save_dynamic_frame_cfas(polls_pass *pass);
/* Whether alloca is an llvm.gcroot slot (the collector updates what it holds). */
int used_by_gcroot(LLVMValueRef alloca);

/* ---- wrappers.c */
void wrap_unmanaged_calls(polls_pass *pass, LLVMValueRef function);
/* Before classification: pthread_create calls whose start routine this
 * module defines, and which does not call corral_thread_attach itself, call
 * corral_pthread_create instead. */
void start_managed_threads_through_runtime(polls_pass *pass);
/* Direct calls of pthread_exit, thrd_exit, swapcontext, setcontext and
 * getcontext call the runtime's versions, which drop the thread's managed
 * frames before an exit unwinds them or set them aside before a switch of
 * stacks. */
void call_runtime_versions_of_stack_leavers(polls_pass *pass);

/* ---- placement.c */
void create_poll_function(polls_pass *pass);
void place_polls(polls_pass *pass, LLVMValueRef function, corral_polls_function_report *report);
/* Inlines every poll and deletes the poll function if it was ours. */
void inline_polls(polls_pass *pass);

/* ---- strip_mine.c */
/* Tries to strip-mine the loop closed by the backedge latch -> header.
 * Returns 1 when it did (the poll is then in the outer loop). */
int strip_mine_loop(polls_pass *pass, LLVMValueRef function, LLVMBasicBlockRef latch,
                    LLVMBasicBlockRef header);

/* ---- barrier.c */
/* With options.write_barrier: a card-marking barrier after each reference
 * store into the heap; with options.satb_barrier: a deletion barrier before
 * each overwrite of the heap that may hit a reference. Each barrier is left
 * out where it can be proven unneeded; counts both. */
void insert_write_barriers(polls_pass *pass, LLVMValueRef function,
                           corral_polls_function_report *report);

/* ---- shadow_stack.c: functions using @llvm.gcroot (gc "shadow-stack") */
/* Before the input is verified: rejects gcroot calls LLVM's verifier would,
 * naming the function. */
void check_gcroot_calls(polls_pass *pass);
/* Before optimisation: lowers each such function's roots onto the
 * thread-local shadow stack, fences its loops, and clears its gc. */
void lower_shadow_stack_functions(polls_pass *pass);
/* After classification: each loop fence becomes a poll (or goes, when the
 * function takes no loop polls); place_polls adds no loop polls there. */
void turn_shadow_stack_fences_into_polls(polls_pass *pass);
int is_shadow_stack_function(LLVMValueRef function);
/* The calls of llvm.gcroot in function, in block order, into calls. */
void collect_gcroot_calls(LLVMValueRef function, value_list *calls);
/* function's gcroot slots become the roots of a shadow-stack frame, pushed
 * at entry and popped at each ret and resume; its gcroot calls go. Before
 * optimisation in shadow-stack mode; in promoted mode for a function whose
 * roots cross an invoke (gcroot_promoted.c). */
void lower_gcroot_slots_to_frame(polls_pass *pass, LLVMValueRef function);
/* After placement: drops entry/return polls across which a plain pointer
 * that may point into the heap is live; such a loop poll is an error. */
void check_shadow_stack_polls(polls_pass *pass, LLVMValueRef function,
                              corral_polls_function_report *report);

/* ---- gcroot_promoted.c: --gcroot=promoted */
/* After placement: each gcroot slot becomes SSA references threaded through
 * every safepoint (RS4GC relocates them); the gcroot calls go. */
void promote_gcroot_slots(polls_pass *pass);
/* After inlining polls: their statepoints get CORRAL_ABI_GCROOT_STATEPOINT_ID. */
void mark_gcroot_statepoints(polls_pass *pass);

/* ---- gcroot_boundary.c: references between gcroot code and managed code */
/* Before optimisation: each plain pointer made a reference (addrspacecast or
 * inttoptr to address space 1) in a gcroot function becomes an opaque call,
 * so optimisation cannot keep the plain pointer live in its place. */
void make_gcroot_casts_opaque(polls_pass *pass, LLVMValueRef function);
/* After optimisation: those calls become casts again, where they are. */
void lower_gcroot_casts(polls_pass *pass);

/* ---- distance.c */
/* Verifies every cycle holds a poll or statepoint and computes the poll
 * distance into report. */
void analyse_poll_distance(polls_pass *pass, LLVMValueRef function,
                           corral_polls_function_report *report);

#endif /* CORRAL_POLLS_PASS_H */
