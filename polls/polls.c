/* polls.c — corral_polls_run: the pass pipeline, in order (see pass.h). */
#include "data_layout.h"
#include "pass.h"

#include "corral/abi.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* inferattrs: the C library's declarations say which arguments they keep
 * (nocapture), at -O0 too (frame_pins.c). */
#define DEFAULT_PREPARE_PIPELINE "inferattrs,always-inline,function(sroa,mem2reg)"
#define DEFAULT_LOOP_POLL_INTERVAL 1000

void corral_polls_options_init(corral_polls_options *options)
{
    memset(options, 0, sizeof *options);
    options->poll_kinds = CORRAL_POLL_DEFAULT_KINDS;
    options->loop_poll_interval = DEFAULT_LOOP_POLL_INTERVAL;
    options->poll_page_access = CORRAL_POLL_PAGE_DIRECT;
}

int corral_polls_parse_kinds(const char *text, unsigned *mask, char *error, size_t error_size)
{
    static const struct {
        const char *name;
        unsigned kinds;
    } words[] = {
        {"loop", CORRAL_POLL_LOOP},   {"return", CORRAL_POLL_RETURN},
        {"precall", CORRAL_POLL_PRECALL}, {"entry", CORRAL_POLL_ENTRY},
        {"all", CORRAL_POLL_ALL_KINDS}, {"none", 0},
        {"default", CORRAL_POLL_DEFAULT_KINDS},
    };
    unsigned result = 0;
    const char *start = text;
    for (;;) {
        const char *end = strchr(start, ',');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        size_t i = 0;
        while (i < sizeof words / sizeof words[0] &&
               !(strlen(words[i].name) == length && memcmp(words[i].name, start, length) == 0))
            i++;
        if (i == sizeof words / sizeof words[0]) {
            snprintf(error, error_size,
                     "unknown poll kind '%.*s' in '%s': expected a comma-separated list of "
                     "loop, return, precall, entry (or all, none, default)",
                     (int)length, start, text);
            return -1;
        }
        result |= words[i].kinds;
        if (!end)
            break;
        start = end + 1;
    }
    *mask = result;
    return 0;
}

/* RS4GC's own default rematerializes derived pointers; the runtime wants
 * explicit (base, derived) pairs. The option is process-wide. */
static void set_llvm_options(void)
{
    const char *argv[] = {"corral-polls", "-spp-rematerialization-threshold=0"};
    LLVMParseCommandLineOptions(2, argv, NULL);
}

static pthread_once_t llvm_options_once = PTHREAD_ONCE_INIT;

/* ---- steps */

static int has_non_integral_gc_space(const char *layout)
{
    for (const char *p = strstr(layout, "ni:"); p; p = strstr(p + 1, "ni:")) {
        if (p != layout && p[-1] != '-')
            continue;
        for (const char *q = p + 2; *q && *q != '-'; q++)
            if (*q == ':' && q[1] == '1' && (q[2] == ':' || q[2] == '-' || q[2] == '\0'))
                return 1;
    }
    return 0;
}

/* References must be non-integral: no optimization may turn them into
 * integers. A layout the pass cannot extend is an input error, not LLVM's
 * fatal error (data_layout.h). */
static void make_gc_space_non_integral(polls_pass *pass)
{
    char *problem = NULL;
    char *layout = data_layout_string(pass->module, &problem);
    if (!layout) {
        pass_error(pass, NULL, NULL, "cannot add address space 1 to the data layout: %s", problem);
        free(problem);
        return;
    }
    if (has_non_integral_gc_space(layout)) {
        free(layout);
        return;
    }
    char *updated;
    const char *ni = strstr(layout, "-ni:");
    if (strncmp(layout, "ni:", 3) == 0 || ni) {
        /* Extend the existing list: "ni:2" -> "ni:2:1". */
        const char *list = ni ? ni + 1 : layout;
        const char *list_end = strchr(list, '-');
        size_t split = (size_t)((list_end ? list_end : list + strlen(list)) - layout);
        updated = xasprintf("%.*s:1%s", (int)split, layout, layout + split);
    } else {
        updated = *layout ? xasprintf("%s-ni:1", layout) : xstrdup("ni:1");
    }
    if (data_layout_set(pass->module, updated, &problem) != 0) {
        pass_error(pass, NULL, NULL, "cannot add address space 1 to the data layout \"%s\": %s",
                   layout, problem);
        free(problem);
    }
    free(updated);
    free(layout);
}

/* sroa and mem2reg skip optnone functions, which would leave every local in
 * memory; managed code is never compiled optnone. */
static void strip_optnone(polls_pass *pass)
{
    for (LLVMValueRef function = LLVMGetFirstFunction(pass->module); function;
         function = LLVMGetNextFunction(function))
        if (!LLVMIsDeclaration(function))
            remove_function_enum_attribute(function, "optnone");
}

static void set_gc_and_frame_pointers(polls_pass *pass)
{
    for (size_t i = 0; i < pass->managed_functions.count; i++) {
        LLVMValueRef function = pass->managed_functions.items[i];
        LLVMSetGC(function, CORRAL_ABI_GC_STRATEGY);
        add_function_string_attribute(function, "frame-pointer", "all");
    }
}

/* RS4GC treats calls it recognises as library functions as leaf calls;
 * with "no-builtins" it recognises none, so a managed function named like a
 * libc one still gets its statepoint. */
static void disable_library_call_recognition(polls_pass *pass)
{
    for (size_t i = 0; i < pass->managed_functions.count; i++)
        add_function_string_attribute(pass->managed_functions.items[i], "no-builtins", "");
}

static void check_poll_distance_limit(polls_pass *pass, LLVMValueRef function,
                                      const corral_polls_function_report *report)
{
    uint64_t limit = pass->options.max_poll_distance;
    if (limit == 0 || report->nopoll || report->poll_distance <= limit)
        return;
    if (report->poll_distance == UINT64_MAX)
        return; /* already reported as a loop without a poll */
    pass_error(pass, function, NULL,
               "poll distance %llu exceeds --max-poll-distance=%llu: add poll kinds "
               "(--polls=...), lower the loop poll interval, or split the function",
               (unsigned long long)report->poll_distance, (unsigned long long)limit);
}

/* One report per managed function, in the same order, once the list is
 * complete (the callback entries are in it). */
static void start_reports(polls_pass *pass)
{
    for (size_t i = 0; i < pass->managed_functions.count; i++) {
        LLVMValueRef function = pass->managed_functions.items[i];
        corral_polls_function_report report = {.function = xstrdup(value_name(function))};
        if (is_shadow_stack_function(function))
            report.gcroot_roots = CORRAL_GCROOT_ROOTS_FRAME; /* until promoted, below */
        VEC_PUSH(pass->reports, report);
    }
}

static void place_and_check_polls(polls_pass *pass)
{
    for (size_t i = 0; i < pass->managed_functions.count; i++) {
        LLVMValueRef function = pass->managed_functions.items[i];
        corral_polls_function_report *report = &pass->reports.items[i];
        place_polls(pass, function, report);
        check_shadow_stack_polls(pass, function, report);
        analyse_poll_distance(pass, function, report);
        check_poll_distance_limit(pass, function, report);
    }
}

static int verify_module(polls_pass *pass)
{
    char *message = NULL;
    if (!LLVMVerifyModule(pass->module, LLVMReturnStatusAction, &message)) {
        LLVMDisposeMessage(message);
        return 0;
    }
    /* Only the first line: the rest is a dump of the offending IR. */
    size_t line = strcspn(message, "\n");
    pass_error(pass, NULL, NULL,
               "internal error: the pass produced invalid IR (%.*s); please report this "
               "with the input",
               (int)line, message);
    LLVMDisposeMessage(message);
    return -1;
}

static void remove_unused_declaration(polls_pass *pass, const char *name)
{
    LLVMValueRef function = LLVMGetNamedFunction(pass->module, name);
    if (function && LLVMIsDeclaration(function) && !LLVMGetFirstUse(function))
        LLVMDeleteFunction(function);
}

#define FOR_EACH_MANAGED(pass, function)                                                   \
    for (size_t index_ = 0; index_ < (pass)->managed_functions.count &&                    \
                            ((function) = (pass)->managed_functions.items[index_], 1);     \
         index_++)

/* The statepoint id that says which barriers this module is built with. */
static LLVMValueRef barrier_label(const polls_pass *pass)
{
    uint64_t id = CORRAL_ABI_STATEPOINT_ID |
                  (pass->options.write_barrier ? CORRAL_ABI_STATEPOINT_CARD_BARRIER : 0) |
                  (pass->options.satb_barrier ? CORRAL_ABI_STATEPOINT_SATB_BARRIER : 0);
    return LLVMConstInt(LLVMInt64TypeInContext(pass->context), id, 0);
}

/* Gives every statepoint but a gcroot one the id that says which barriers
 * this module was built with (corral/abi.h). Returns how many statepoints
 * the module has, gcroot ones included. */
static size_t label_statepoints(polls_pass *pass, LLVMValueRef label)
{
    size_t statepoints = 0;
    FOR_EACH_INSTRUCTION_IN_MODULE(pass->module, function, block, inst) {
        if (!is_call_site(inst) || !is_gc_statepoint_function(called_function(inst)))
            continue;
        statepoints++;
        if (LLVMConstIntGetZExtValue(LLVMGetOperand(inst, 0)) != CORRAL_ABI_GCROOT_STATEPOINT_ID)
            LLVMSetOperand(inst, 0, label);
    }
    return statepoints;
}

/* Managed code with no call site that can reach a safepoint (polls masked
 * off, corral-nopoll functions, leaves) leaves no stackmap record, so the
 * runtime could not tell which barriers it was built with (src/code_check.c):
 * a library of setters built without --satb-barrier would pass unseen. Such
 * a module gets one record of its own, from a function that is never called
 * and whose only instruction but the return is a labelled statepoint:
 *     define internal void @corral.module_barriers() gc "corral" {
 *       %t = call token @llvm.experimental.gc.statepoint.p0(i64 label, i32 0,
 *                ptr elementtype(void ()) @corral.module_barriers, i32 0 x4)
 *       ret void }
 * Codegen emits every defined function, and the record's relocation keeps
 * it through the link. */
static void mark_module_barriers(polls_pass *pass, LLVMValueRef label)
{
    LLVMTypeRef void_type = LLVMVoidTypeInContext(pass->context);
    LLVMTypeRef function_type = LLVMFunctionType(void_type, NULL, 0, 0);
    LLVMValueRef marker = LLVMAddFunction(pass->module, "corral.module_barriers", function_type);
    LLVMSetLinkage(marker, LLVMInternalLinkage);
    LLVMSetGC(marker, CORRAL_ABI_GC_STRATEGY);
    add_function_string_attribute(marker, "frame-pointer", "all");
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(pass->context, marker, "entry");
    LLVMPositionBuilderAtEnd(pass->builder, entry);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(pass->context);
    LLVMValueRef zero = LLVMConstInt(i32, 0, 0);
    LLVMValueRef args[] = {label, zero, marker, zero, zero, zero, zero};
    LLVMValueRef statepoint =
        build_intrinsic_call(pass, "llvm.experimental.gc.statepoint",
                             LLVMPointerTypeInContext(pass->context, 0), args, 7, "");
    unsigned element_type = LLVMGetEnumAttributeKindForName("elementtype", 11);
    LLVMAddCallSiteAttribute(statepoint, 3,
                             LLVMCreateTypeAttribute(pass->context, element_type, function_type));
    LLVMBuildRetVoid(pass->builder);
}

/* Invalid input IR would crash LLVM's own passes (SROA, RS4GC, the
 * verifier on its output): reject it first, naming the problem. */
static int verify_input(polls_pass *pass)
{
    char *message = NULL;
    if (!LLVMVerifyModule(pass->module, LLVMReturnStatusAction, &message)) {
        LLVMDisposeMessage(message);
        return 0;
    }
    size_t line = strcspn(message, "\n");
    pass_error(pass, NULL, NULL, "invalid input IR: %.*s", (int)line, message);
    LLVMDisposeMessage(message);
    return -1;
}

static void run_steps(polls_pass *pass)
{
    LLVMValueRef function;
    check_gcroot_calls(pass);
    if (pass->error_count || verify_input(pass) != 0)
        return;
    check_module(pass);
    if (pass->error_count)
        return;
    /* Before optimisation, which must see the pushes, pops and loop fences. */
    lower_shadow_stack_functions(pass);
    if (pass->error_count)
        return;
    make_gc_space_non_integral(pass);
    if (pass->error_count)
        return;
    strip_optnone(pass);
    const char *prepare = pass->options.prepare_pipeline ? pass->options.prepare_pipeline
                                                         : DEFAULT_PREPARE_PIPELINE;
    mark_setjmp_calls(pass, strcmp(prepare, DEFAULT_PREPARE_PIPELINE) == 0);
    null_pattern_initialised_references(pass);
    normalize_tag_offsets(pass);
    split_coerced_reference_accesses(pass);
    retype_atomic_reference_words(pass);
    if (*prepare && run_pipeline(pass, prepare) != 0)
        return;
    inline_interior_reference_helpers(pass);
    check_reference_globals(pass);
    start_managed_threads_through_runtime(pass);
    call_runtime_versions_of_stack_leavers(pass);
    lower_ref_from_int_calls(pass);
    lower_gcroot_casts(pass);
    create_poll_function(pass);
    classify_functions(pass);
    if (pass->error_count)
        return;
    find_signal_handlers(pass);
    enter_managed_callbacks_through_runtime(pass);
    if (pass->error_count)
        return;
    turn_shadow_stack_fences_into_polls(pass);
    FOR_EACH_MANAGED(pass, function)
        call_unprototyped_functions_by_their_type(pass, function);
    return_varargs_results_through_variables(pass);
    if (pass->error_count)
        return;
    set_gc_and_frame_pointers(pass);
    FOR_EACH_MANAGED(pass, function)
        check_function(pass, function);
    if (pass->error_count)
        return;
    start_reports(pass);
    /* Raw pointers first: a frame pin goes before the raw cast, which must
     * come before the call pins of its call (their unpins pop in turn). */
    FOR_EACH_MANAGED(pass, function) {
        keep_raw_pointers_relocatable(pass, function, &pass->reports.items[index_]);
        pin_variadic_references(pass, function);
    }
    if (pass->error_count)
        return;
    FOR_EACH_MANAGED(pass, function) {
        keep_references_out_of_landing_pads(pass, function);
        /* After: the pad's first call comes before its loads from the slots. */
        enter_landing_pads_through_runtime(pass, function);
        keep_stack_references_in_frames(pass, function);
        keep_frame_walkable(pass, function);
        normalize_function(pass, function);
        wrap_unmanaged_calls(pass, function);
    }
    mark_leaf_calls(pass);
    place_and_check_polls(pass);
    FOR_EACH_MANAGED(pass, function)
        cast_returned_raw_pointers_after_polls(pass, function);
    leave_managed_code_when_main_returns(pass);
    /* After placement, so polls are safepoints too; before the checks, which
     * must see what RS4GC will see. */
    if (pass->options.gcroot_mode == CORRAL_GCROOT_PROMOTED && !pass->error_count &&
        !pass->options.stop_after_placement)
        promote_gcroot_slots(pass);
    if (pass->error_count)
        return;
    FOR_EACH_MANAGED(pass, function)
        if (ptr_table_contains(&pass->gcroot_promoted_functions, function))
            pass->reports.items[index_].gcroot_roots = CORRAL_GCROOT_ROOTS_PROMOTED;
    FOR_EACH_MANAGED(pass, function) {
        sink_branch_compares(pass, function);
        split_live_aggregates(pass, function);
        check_live_across_safepoints(pass, function);
    }
    /* After placement, so no poll comes between a store and its barrier. */
    if ((pass->options.write_barrier || pass->options.satb_barrier) && !pass->error_count)
        FOR_EACH_MANAGED(pass, function)
            insert_write_barriers(pass, function, &pass->reports.items[index_]);
    if (pass->error_count || pass->options.stop_after_placement)
        return;
    /* After barriers, whose code reads the references it reloads. */
    FOR_EACH_MANAGED(pass, function) {
        sink_branch_compares(pass, function);
        keep_references_across_setjmp(pass, function);
    }
    if (pass->error_count)
        return;
    FOR_EACH_MANAGED(pass, function)
        store_varargs_results_after_polls(pass, function);
    inline_polls(pass);
    mark_gcroot_statepoints(pass);
    disable_library_call_recognition(pass);
    FOR_EACH_MANAGED(pass, function) {
        drop_sret_of_varargs_calls(pass, function);
        count_vector_registers_of_varargs_calls(pass, function);
    }
    if (pass->error_count || run_pipeline(pass, "rewrite-statepoints-for-gc") != 0)
        return;
    remove_unused_declaration(pass, "__tmp_use"); /* RS4GC's scratch declaration */
    FOR_EACH_MANAGED(pass, function)
        check_nothing_live_across_setjmp(pass, function);
    save_dynamic_frame_cfas(pass);
    LLVMValueRef label = barrier_label(pass);
    if (label_statepoints(pass, label) == 0 && pass->managed_functions.count)
        mark_module_barriers(pass, label);
    publish_external_entries(pass);
    verify_module(pass);
}

/* ---- result */

static corral_polls_result *make_result(polls_pass *pass)
{
    corral_polls_result *result = xcalloc(1, sizeof *result);
    result->input_name = xstrdup(pass->input_name);
    result->error_count = pass->error_count;
    result->diagnostic_count = pass->diagnostics.count;
    result->diagnostics = pass->diagnostics.items;
    result->function_count = pass->reports.count;
    result->functions = pass->reports.items;
    result->wrappers_created = pass->wrappers_created;
    for (size_t i = 0; i < pass->reports.count; i++) {
        const corral_polls_function_report *report = &pass->reports.items[i];
        if (report->nopoll || report->poll_distance < result->max_poll_distance)
            continue;
        if (report->poll_distance > result->max_poll_distance || !result->max_poll_distance_function) {
            result->max_poll_distance = report->poll_distance;
            result->max_poll_distance_function = report->function;
        }
    }
    return result;
}

void corral_polls_result_free(corral_polls_result *result)
{
    if (!result)
        return;
    for (size_t i = 0; i < result->diagnostic_count; i++) {
        free((char *)result->diagnostics[i].function);
        free((char *)result->diagnostics[i].message);
    }
    for (size_t i = 0; i < result->function_count; i++)
        free((char *)result->functions[i].function);
    free((void *)result->diagnostics);
    free((void *)result->functions);
    free((char *)result->input_name);
    free(result);
}

int corral_polls_run(LLVMModuleRef module, const corral_polls_options *options,
                     corral_polls_result **result)
{
    pthread_once(&llvm_options_once, set_llvm_options);
    polls_pass pass = {0};
    if (options)
        pass.options = *options;
    else
        corral_polls_options_init(&pass.options);
    pass.module = module;
    pass.context = LLVMGetModuleContext(module);
    pass.builder = LLVMCreateBuilderInContext(pass.context);
    size_t length = 0;
    const char *identifier = LLVMGetModuleIdentifier(module, &length);
    pass.input_name = pass.options.input_name ? pass.options.input_name : identifier;
    pass.strip_mined_kind = LLVMGetMDKindIDInContext(pass.context, STRIP_MINED_METADATA,
                                                     strlen(STRIP_MINED_METADATA));
    ptr_table_init(&pass.function_flags);
    ptr_table_init(&pass.wrappers);
    ptr_table_init(&pass.callback_entries);
    ptr_table_init(&pass.shadow_stack_loop_polls);
    ptr_table_init(&pass.gcroot_promoted_functions);
    ptr_table_init(&pass.entry_code_ends);

    run_steps(&pass);

    corral_polls_result *made = make_result(&pass);
    LLVMDisposeBuilder(pass.builder);
    ptr_table_free(&pass.function_flags);
    ptr_table_free(&pass.wrappers);
    ptr_table_free(&pass.callback_entries);
    VEC_FREE(pass.external_entries);
    ptr_table_free(&pass.shadow_stack_loop_polls);
    ptr_table_free(&pass.gcroot_promoted_functions);
    ptr_table_free(&pass.entry_code_ends);
    free(pass.managed_functions.items);
    free(pass.keyed_wrappers.items);
    int status = pass.error_count ? -1 : 0;
    if (result)
        *result = made;
    else
        corral_polls_result_free(made);
    return status;
}
