/* test_opt.c — corral-opt on hand-written IR (tests/polls/ir), checked by
 * reading the IR it writes: gc strategy, poll function, statepoints,
 * transition wrappers, leaf calls, each poll kind where it belongs and
 * nowhere else, strip-mining, nopoll, poll distances, and every error. */
#include "ir_text.h"

#define POLL_CALL "call void @gc.safepoint_poll()"
#define POLL_LOAD "load volatile i64, ptr @corral_poll_page"

/* Runs corral-opt with args on an input of tests/polls/ir; returns the
 * written IR (or NULL) and the tool's messages in *result. External
 * functions keep their symbols (--keep-external-symbols), so the checks
 * find each function's code under its own name; opt_ir_entries does not. */
static char *opt_ir_with(const char *args, const char *input, command_result *result,
                         int keep_external_symbols)
{
    const char *output = scratch_path("out.ll");
    remove(output);
    *result = run_command("%s %s %s %s/%s -o %s", CORRAL_OPT,
                          keep_external_symbols ? "--keep-external-symbols" : "", args,
                          POLLS_IR_DIR, input, output);
    return result->status == 0 ? read_file(output) : NULL;
}

static char *opt_ir(const char *args, const char *input, command_result *result)
{
    return opt_ir_with(args, input, result, 1);
}

static char *opt_ok(const char *args, const char *input)
{
    command_result result;
    char *ir = opt_ir(args, input, &result);
    if (!ir)
        diag("corral-opt %s %s failed (%d):\n%s", args, input, result.status, result.output);
    command_result_free(&result);
    return ir;
}

/* The attribute group line of a function's define line ("#N"). */
static int has_function_attribute(const char *ir, const char *function, const char *attribute)
{
    char *body = ir_function(ir, function);
    if (!body)
        return 0;
    const char *hash = strstr(body, ") #");
    int group = hash ? atoi(hash + 3) : -1;
    free(body);
    char needle[64];
    snprintf(needle, sizeof needle, "attributes #%d = {", group);
    const char *line = strstr(ir, needle);
    const char *end = line ? strchr(line, '\n') : NULL;
    const char *hit = line ? strstr(line, attribute) : NULL;
    return hit && hit < end;
}

static void test_calls(void)
{
    char *ir = opt_ok("", "calls.ll");
    ok(ir != NULL, "calls.ll: corral-opt succeeds");
    char *caller = ir_function(ir, "caller");
    like_str(ir, "-ni:1\"", "datalayout marks address space 1 non-integral");
    like_str(caller, "gc \"coreclr\"", "a defined function gets gc \"coreclr\"");
    ok(has_function_attribute(ir, "caller", "\"frame-pointer\"=\"all\""),
       "a managed function keeps its frame pointer");
    ok(!strstr(ir, "@gc.safepoint_poll"), "the poll function was inlined and removed");
    like_str(caller, POLL_LOAD, "the inlined poll loads the polling page (volatile)");
    like_str(ir, "@corral_poll_page = external hidden global",
             "the poll page is hidden (dso_local): one PC-relative compare");
    /* 1668248064: CORRAL_ABI_STATEPOINT_ID, built with no barrier. */
    like_str(caller, "statepoint.p0(i64 1668248064, i32 0, ptr elementtype(void ()) @corral_poll_slow",
             "the poll's slow path is a statepoint");
    like_str(caller, "elementtype(ptr addrspace(1) (ptr addrspace(1))) @managed_callee",
             "a managed call is a statepoint");
    like_str(caller, "gc.relocate", "references live across calls are relocated");
    like_str(caller, "@corral.unmanaged.puts, i32 1", "puts is called through a wrapper statepoint");
    like_str(ir, "define internal i32 @corral.unmanaged.printf(ptr %0, i32 %1)",
             "varargs printf gets a wrapper for its (ptr, i32) call");
    like_str(ir, "define internal i32 @corral.unmanaged.printf.1(ptr %0, ptr %1, double %2)",
             "and another for its (ptr, ptr, double) call");
    is_int(count_of(ir, "define internal i32 @corral.unmanaged.printf"), 2,
           "two printf calls with one signature share a wrapper");
    char *wrapper = ir_function(ir, "corral.unmanaged.puts");
    ok(appears_before(wrapper, "@llvm.returnaddress(i32 0)", "@llvm.frameaddress.p0(i32 0)") &&
           appears_before(wrapper, "@llvm.frameaddress.p0(i32 0)", "@corral_transition_to_unmanaged(") &&
           appears_before(wrapper, "@corral_transition_to_unmanaged(", " i32 @puts(") &&
           appears_before(wrapper, " i32 @puts(", "@corral_transition_to_managed()"),
       "the wrapper anchors, goes unmanaged, calls, comes back (abi.h order)");
    ok(wrapper && !strstr(wrapper, "gc \"") && !strstr(wrapper, "statepoint"),
       "the wrapper is plain code (no gc, no statepoint)");
    ok(has_function_attribute(ir, "corral.unmanaged.puts", "noinline") &&
           has_function_attribute(ir, "corral.unmanaged.puts", "\"frame-pointer\"=\"all\""),
       "the wrapper is noinline and keeps its frame pointer");
    like_str(caller, "call i64 @strlen(ptr @text)", "strlen (default leaf) is a plain call");
    ok(!strstr(caller, "@strlen, i32"), "strlen gets no statepoint");
    like_str(caller, "call void @annotated_leaf(ptr addrspace(1)",
             "a corral_leaf declaration is called directly, even with a reference");
    like_str(caller, "@corral.unmanaged.annotated_unmanaged", "corral_unmanaged goes through a wrapper");
    like_str(caller, "elementtype(void ()) @annotated_safepoint",
             "corral_safepoint is a direct statepoint");
    like_str(caller, "elementtype(void ()) @corral_collect",
             "runtime safepoint names are direct statepoints unannotated");
    like_str(caller, "elementtype(void ()) %callback", "an indirect call is a managed statepoint");
    like_str(caller, "call void @llvm.memcpy.p1.p1.i64(", "an intrinsic stays a plain call");
    free(wrapper);
    free(caller);
    free(ir);
}

static void test_call_lists(void)
{
    char *ir = opt_ok("--leaf=puts --unmanaged=strlen", "calls.ll");
    char *caller = ir_function(ir, "caller");
    like_str(caller, "call i32 @puts(ptr @text)", "--leaf=puts makes puts a direct call");
    like_str(caller, "@corral.unmanaged.strlen", "--unmanaged=strlen wraps strlen");
    free(caller);
    free(ir);
    ir = opt_ok("--no-default-leaves", "calls.ll");
    like_str(ir, "@corral.unmanaged.strlen", "--no-default-leaves: strlen is unmanaged");
    free(ir);
}

static void test_poll_page_access(void)
{
    char *ir = opt_ok("--poll-page=got", "calls.ll");
    like_str(ir, "@corral_poll_page = external global", "--poll-page=got keeps default visibility");
    free(ir);
    const char *asm_path = scratch_path("calls.s");
    command_result result = run_command("%s --emit=asm %s/calls.ll -o %s", CORRAL_OPT, POLLS_IR_DIR, asm_path);
    char *text = read_file(asm_path);
    like_str(text, "cmpq\t$0, corral_poll_page(%rip)", "the poll is one cmpq against the page");
    free(text);
    command_result_free(&result);
    result = run_command("%s --poll-page=got --emit=asm %s/calls.ll -o %s", CORRAL_OPT, POLLS_IR_DIR, asm_path);
    text = read_file(asm_path);
    like_str(text, "corral_poll_page@GOTPCREL(%rip)", "--poll-page=got loads the page address from the GOT");
    free(text);
    command_result_free(&result);
}

static void test_object_output(void)
{
    const char *object = scratch_path("calls.o");
    command_result result = run_command("%s -c %s/calls.ll -o %s", CORRAL_OPT, POLLS_IR_DIR, object);
    is_int(result.status, 0, "-c writes an object");
    command_result_free(&result);
    char *bytes = read_file(object);
    ok(bytes && memcmp(bytes, "\177ELF", 4) == 0, "the object is ELF");
    free(bytes);
    result = run_command("grep -a -c '[.]llvm_stackmaps' %s", object);
    ok(atoi(result.output) > 0, "the object has a .llvm_stackmaps section");
    command_result_free(&result);
}

/* ---- poll kinds, checked before inlining (--stop-after=placement) */

static char *placed(const char *kinds, const char *input)
{
    char args[256];
    snprintf(args, sizeof args, "--stop-after=placement --polls=%s", kinds);
    return opt_ok(args, input);
}

static int polls_in(const char *ir, const char *function)
{
    char *body = ir_function(ir, function);
    int count = count_of(body, POLL_CALL);
    free(body);
    return count;
}

static int first_instruction_is_poll(const char *ir, const char *function)
{
    char *body = ir_function(ir, function);
    char *first = line_after(body, "{");
    if (first && strchr(first, ':') && !strstr(first, POLL_CALL)) { /* a block label */
        char *next = line_after(body, first);
        free(first);
        first = next;
    }
    int yes = first && strstr(first, POLL_CALL) != NULL;
    free(first);
    free(body);
    return yes;
}

/* Every poll sits right before a ret. */
static int polls_only_before_returns(const char *ir, const char *function)
{
    char *body = ir_function(ir, function);
    int good = 1;
    for (const char *p = body ? strstr(body, POLL_CALL) : NULL; p; p = strstr(p + 1, POLL_CALL)) {
        const char *next = strchr(p, '\n');
        good &= next && strncmp(next + 1, "  ret ", 6) == 0;
    }
    free(body);
    return good;
}

static void test_entry_polls(void)
{
    char *ir = placed("entry,loop", "kinds.ll");
    is_int(polls_in(ir, "straight"), 1, "entry: one poll in a straight-line function");
    ok(first_instruction_is_poll(ir, "straight"), "entry: it is the first instruction");
    is_int(polls_in(ir, "two_returns"), 1, "entry: one poll whatever the number of returns");
    ok(first_instruction_is_poll(ir, "two_returns"), "entry: at the top of the entry block");
    free(ir);
}

static void test_return_polls(void)
{
    char *ir = placed("return,loop", "kinds.ll");
    is_int(polls_in(ir, "straight"), 1, "return: one poll for one ret");
    ok(polls_only_before_returns(ir, "straight"), "return: the poll is right before ret");
    is_int(polls_in(ir, "two_returns"), 2, "return: one poll per ret");
    ok(polls_only_before_returns(ir, "two_returns"), "return: each right before its ret");
    ok(!first_instruction_is_poll(ir, "straight"), "return: no entry poll");
    free(ir);
}

static void test_precall_polls(void)
{
    char *ir = placed("precall,loop", "kinds.ll");
    char *body = ir_function(ir, "leaf_call");
    is_int(polls_in(ir, "leaf_call"), 2, "precall: a leaf call and a memset of unknown size");
    char *before_strlen = line_before(body, "call i64 @strlen");
    char *before_memset = line_before(body, "i64 %n, i1 false)");
    char *before_small = line_before(body, "i64 16, i1 false)");
    ok(before_strlen && strstr(before_strlen, POLL_CALL), "precall: a poll right before strlen");
    ok(before_memset && strstr(before_memset, POLL_CALL), "precall: a poll before memset(n)");
    ok(before_small && !strstr(before_small, POLL_CALL), "precall: none before memset(16)");
    is_int(polls_in(ir, "straight"), 0, "precall: nothing where there is no leaf call");
    free(before_strlen);
    free(before_memset);
    free(before_small);
    free(body);
    free(ir);
}

static void test_loop_polls(void)
{
    char *ir = placed("loop", "kinds.ll");
    is_int(polls_in(ir, "straight") + polls_in(ir, "two_returns") + polls_in(ir, "leaf_call"), 0,
           "loop: no polls in loop-free functions");
    is_int(polls_in(ir, "list_length"), 1, "loop: one poll in a list walk");
    char *body = ir_function(ir, "list_length");
    /* The compare the branch takes moves to the branch, as RS4GC will move it. */
    char *before_branch = line_before(body, "%end = icmp eq ptr addrspace(1) %next, null");
    ok(before_branch && strstr(before_branch, POLL_CALL) &&
           appears_before(body, "%end = icmp", "br i1 %end, label %done, label %loop"),
       "loop: the poll is at the latch's end, before the compare of its branch");
    free(before_branch);
    free(body);
    free(ir);
    ir = placed("default", "kinds.ll");
    is_int(polls_in(ir, "list_length"), 2, "default kinds are loop and return");
    ok(polls_only_before_returns(ir, "straight") && polls_in(ir, "straight") == 1,
       "default: a return poll, no entry poll");
    free(ir);
}

static void test_loop_without_polls(void)
{
    command_result result;
    char *ir = opt_ir("--polls=return", "kinds.ll", &result);
    ok(ir == NULL && result.status == 1, "a loop without polls is an error (exit 1)");
    like_str(result.output,
             "corral-opt: error: " POLLS_IR_DIR "/kinds.ll: list_length: loop with header %loop "
             "has a path around it with no poll and no statepoint",
             "the verifier names the function and the loop header");
    free(ir);
    command_result_free(&result);
    ir = opt_ir("--polls=return --allow-unpolled-loops", "kinds.ll", &result);
    ok(ir != NULL && strstr(result.output, "corral-opt: warning: ") &&
           strstr(result.output, "list_length: loop with header %loop"),
       "--allow-unpolled-loops turns the error into a warning");
    free(ir);
    command_result_free(&result);
}

static void test_strip_mining(void)
{
    char *ir = placed("loop,return", "stripmine.ll");
    char *sum = ir_function(ir, "sum");
    like_str(sum, "!corral.strip_mined", "a counted loop is strip-mined");
    like_str(sum, "@llvm.umin.i64(i64 %count", "its chunk limit is min(bound, i + K)");
    like_str(sum, "@llvm.uadd.sat.i64(i64 %i.next, i64 1000)", "K is 1000 by default");
    is_int(polls_in(ir, "sum"), 2, "one poll per chunk plus the return poll");
    char *latch_branch = line_before(sum, "!corral.strip_mined");
    ok(latch_branch && strstr(latch_branch, "%corral.chunk.test = icmp eq i64 %i.next, %corral.limit"),
       "the inner loop tests the chunk limit instead of the bound");
    char *chunk_exit = line_after(sum, "corral.chunk.exit:");
    ok(chunk_exit && strstr(chunk_exit, "%done = icmp eq i64 %i.next, %count"),
       "the original exit test moved out of the inner loop");
    char *stride = ir_function(ir, "stride");
    like_str(stride, "@llvm.smin.i32(i32 %n", "a signed loop uses signed min");
    like_str(stride, "@llvm.sadd.sat.i32(i32 %i.next, i32 3000)", "and K x stride (3 x 1000)");
    is_int(polls_in(ir, "short_loop"), 1, "a loop of 64 constant iterations gets no loop poll");
    char *short_loop = ir_function(ir, "short_loop");
    ok(short_loop && strstr(short_loop, "!corral.strip_mined") && !strstr(short_loop, "corral.chunk"),
       "it is marked bounded, not rewritten");
    free(short_loop);
    free(chunk_exit);
    free(latch_branch);
    free(stride);
    free(sum);
    free(ir);

    ir = opt_ok("--stop-after=placement --loop-poll-interval=1", "stripmine.ll");
    ok(!strstr(ir, "corral.strip_mined"), "--loop-poll-interval=1: no strip-mining");
    sum = ir_function(ir, "sum");
    char *before = line_before(sum, "%done = icmp eq i64 %i.next, %count");
    ok(before && strstr(before, POLL_CALL), "--loop-poll-interval=1: a poll on every iteration");
    free(before);
    free(sum);
    free(ir);

    ir = placed("loop", "kinds.ll");
    ok(!strstr(ir, "corral.strip_mined"), "a list walk is not a counted loop: not strip-mined");
    free(ir);

    ir = opt_ok("", "stripmine.ll");
    ok(ir && strstr(ir, "corral.chunk.poll") && strstr(ir, POLL_LOAD),
       "strip-mined loops survive the whole pipeline");
    free(ir);
}

static void test_nopoll(void)
{
    char *ir = placed("all", "nopoll.ll");
    ok(ir != NULL, "nopoll functions with spin loops are accepted");
    is_int(polls_in(ir, "attribute_spin"), 0, "\"corral-nopoll\" attribute: no polls");
    is_int(polls_in(ir, "annotated_spin"), 0, "corral_nopoll annotation: no polls");
    free(ir);
    ir = placed("none", "nopoll.ll");
    is_int(polls_in(ir, "everything"), 2,
           "\"corral-poll-all\" gets entry/precall (one poll) and return polls with --polls=none");
    ok(first_instruction_is_poll(ir, "everything"), "poll-all: the entry poll is first");
    free(ir);
}

static uint64_t reported_distance(const char *output, const char *function)
{
    char needle[128];
    snprintf(needle, sizeof needle, ": %s: poll distance ", function);
    const char *hit = output ? strstr(output, needle) : NULL;
    return hit ? strtoull(hit + strlen(needle), NULL, 10) : UINT64_MAX;
}

static void test_distance(void)
{
    command_result result;
    char *ir = opt_ir("--polls=none --report-poll-distance --stop-after=placement", "distance.ll", &result);
    is_int(reported_distance(result.output, "straight"), 3, "distance: add, mul, ret = 3");
    is_int(reported_distance(result.output, "split_by_call"), 3,
           "distance: a call splits the run (add, call | add, add, ret) = 3");
    is_int(reported_distance(result.output, "diamond"), 7,
           "distance: the longer arm of a diamond (br | 3 adds, br | phi, ret) = 7");
    like_str(result.output, "module: max poll distance 7 in diamond", "distance: the module maximum");
    free(ir);
    command_result_free(&result);

    ir = opt_ir("--polls=return --report-poll-distance --stop-after=placement", "distance.ll", &result);
    is_int(reported_distance(result.output, "straight"), 3, "distance with a return poll: add, mul, poll = 3");
    free(ir);
    command_result_free(&result);

    ir = opt_ir("--report-poll-distance --stop-after=placement", "stripmine.ll", &result);
    is_int(reported_distance(result.output, "sum"), 10000,
           "distance of a strip-mined loop: 1000 x its 10 instructions (3 phis, 6, br)");
    is_int(reported_distance(result.output, "short_loop"), 512,
           "distance of a bounded loop: 64 iterations x 8 instructions");
    free(ir);
    command_result_free(&result);

    ir = opt_ir("--polls=none --max-poll-distance=5", "distance.ll", &result);
    ok(ir == NULL && result.status == 1, "--max-poll-distance=5: exceeding it is an error");
    like_str(result.output, "distance.ll: diamond: poll distance 7 exceeds --max-poll-distance=5",
             "the error names the function and both numbers");
    ok(!strstr(result.output, "straight:"), "functions within the limit are not reported");
    free(ir);
    command_result_free(&result);
}

/* Whether function's IR in ir contains text (no IR: no). */
static int function_contains(const char *ir, const char *function, const char *text)
{
    char *body = ir_function(ir, function);
    int found = body && strstr(body, text);
    free(body);
    return found;
}

/* Tagged values (corral/tagged.h): what the pass keeps, accepts and refuses. */
static void test_tagged_values(void)
{
    char *ir = opt_ok("", "tagged.ll");
    ok(function_contains(ir, "tag_int", "%value.relocated"),
       "an immediate made by inttoptr is a base, kept in the stackmap");
    ok(ir && strstr(ir, "@tag_bits(") && strstr(ir, "@tag_bits_later") && strstr(ir, "@payload") &&
           strstr(ir, "@tag_then_bits"),
       "tag bits and a payload through corral_untag_int's asm may live across a call");
    free(ir);
    ir = opt_ok("--ref-tags=1", "tag_offsets.ll");
    ok(function_contains(ir, "tag", "inttoptr i64") &&
           function_contains(ir, "tag", "%tagged.relocated") &&
           !function_contains(ir, "tag", "%r.relocated"),
       "with --ref-tags=1 a +1 offset is a tagged base of its own; the untagged one is not kept");
    ok(function_contains(ir, "field", "getelementptr i8, ptr addrspace(1) %tagged") &&
           function_contains(ir, "field", "(%tagged, %car)"),
       "a +7 offset on a tagged reference stays a derived pointer (the field at 8)");
    free(ir);
    command_result refused;
    ir = opt_ir("", "tag_offsets.ll", &refused);
    ok(!ir && refused.output &&
           strstr(refused.output, "tag: interior reference (a pointer into an object, such as "
                                  "&object->field) passed to 'use'"),
       "without --ref-tags the +1 offset is an interior pointer, refused as an argument");
    free(ir);
    command_result_free(&refused);
    refused = run_command("%s --ref-tags=0 %s/tag_offsets.ll -o %s", CORRAL_OPT, POLLS_IR_DIR,
                          scratch_path("x.ll"));
    ok(refused.status == 1 && strstr(refused.output, "--ref-tags=0: expected tags 1 to 7"),
       "--ref-tags=0 is refused, saying what is expected");
    command_result_free(&refused);
}

static void test_rewrites(void)
{
    char *ir = opt_ok("", "aggregate_split.ll");
    char *pair = ir_function(ir, "pair");
    ok(pair && strstr(pair, "extractvalue { ptr addrspace(1), i64 } %b, 0") &&
           strstr(pair, "gc.relocate"),
       "a struct holding a reference is split, its reference relocated");
    free(pair);
    free(ir);
    ir = opt_ok("", "casts.ll");
    char *fresh = ir_function(ir, "fresh");
    like_str(fresh, "inttoptr i64", "raw memory becomes a reference through inttoptr (a base)");
    like_str(fresh, "%r.relocated", "and that reference is relocated");
    char *swap = ir_function(ir, "swap");
    like_str(swap, "atomicrmw xchg ptr addrspace(1) %slot, i64", "a reference exchange runs on i64");
    ok(ir && strstr(ir, "@offset_in_object"), "the difference of two addresses may live across a call");
    free(swap);
    free(fresh);
    free(ir);

    /* clang's i64 atomics on a reference field run on the references, so a
     * compare-exchange loop's operands are relocated at its call. */
    ir = opt_ok("-O2 --write-barrier", "atomic_refs.ll");
    char *push = ir_function(ir, "push");
    ok(push && output_matches(push, "cmpxchg weak ptr addrspace\\(1\\) %[^,]*, ptr addrspace\\(1\\) "
                                    "%expected[^,]*\\.relocated, ptr addrspace\\(1\\) %c\\.relocated ") &&
           strstr(push, "load atomic ptr addrspace(1), ptr addrspace(1) %next monotonic") &&
           !strstr(push, "ptrtoint ptr addrspace(1) %c") && !strstr(push, "phi i64"),
       "atomics: a compare-exchange loop runs on references, relocated at the call in it; "
       "no integer of one is live there");
    char *exchanged = ir_function(ir, "swap");
    ok(exchanged && strstr(exchanged, "atomicrmw xchg ptr addrspace(1)") &&
           appears_before(exchanged, "atomicrmw xchg", "inttoptr i64"),
       "atomics: an exchange of a reference is done on i64 just around itself");
    char *copied = ir_function(ir, "copy");
    ok(copied && strstr(copied, "load atomic ptr addrspace(1), ptr addrspace(1) %next1 seq_cst") &&
           strstr(copied, "store atomic ptr addrspace(1) %0, ptr addrspace(1) %next seq_cst") &&
           appears_before(copied, "store atomic ptr", "%barrier.field = ptrtoint"),
       "atomics: a load into a store copies the reference, and the store gets its barrier");
    free(copied);
    free(exchanged);
    free(push);
    free(ir);

    /* -ftrivial-auto-var-init=pattern: the pattern word is never a reference. */
    ir = opt_ok("-O0 --managed=fill,sum", "auto_init.ll");
    char *picked = ir_function(ir, "pick");
    char *initialised = ir_function(ir, "locals");
    ok(picked && strstr(picked, "phi ptr addrspace(1) [ %object1, %new ], [ null, %entry ]") &&
           !strstr(picked, "-6148914691236517206"),
       "auto-init: an uninitialised reference meets an allocated one as null in the phi");
    ok(ir && strstr(ir, "@__const.locals.pair = private unnamed_addr constant %struct.pair "
                        "{ ptr addrspace(1) null, ptr addrspace(1) null, i64 -6148914691236517206 }"),
       "auto-init: the constant a struct is copied from holds null references, its integer kept");
    ok(initialised &&
           strstr(initialised, "@llvm.memset.p0.i64(ptr align 16 %array1, i8 0, i64 320") &&
           strstr(initialised, "@llvm.memset.p0.i64(ptr align 16 %text, i8 -86, i64 64") &&
           !strstr(initialised, "%array1, i8 -86"),
       "auto-init: an array of references is zeroed, a char buffer keeps the pattern");
    free(initialised);
    free(picked);
    free(ir);

    /* Calls that may unwind into a C cleanup: what crosses them is kept in the frame. */
    ir = opt_ok("-O0", "landing_pads.ll");
    char *argument = ir_function(ir, "argument");
    char *result = ir_function(ir, "result");
    ok(argument && strstr(argument, "store ptr addrspace(1) %p, ptr %p.unwind_slot") &&
           output_matches(argument, "landingpad \\{ ptr, i32 \\}\n[^\n]*cleanup\n"
                                    "[^\n]*%pad_stack_pointer = call ptr @llvm.stacksave.p0\\(\\)\n"
                                    "[^\n]*gc.statepoint[^\n]*@corral_landing_pad_entered, "
                                    "i32 1, i32 0, ptr %pad_stack_pointer[^\n]*\n"
                                    "[^\n]*load ptr addrspace\\(1\\), ptr %p.unwind_slot") &&
           !output_matches(argument, "gc.relocate[^\n]*%pad"),
       "landing pads: the pad first calls the runtime with its stack pointer; an argument "
       "live across the call is stored in its slot and loaded in the pad, with no relocation "
       "anchored on the landingpad");
    ok(result && output_matches(result, "store ptr addrspace\\(1\\) %made[0-9]*, ptr "
                                        "%made.unwind_slot") &&
           strstr(result, "%offset = sub i64 %interior, %base") &&
           output_matches(result, "getelementptr i8, ptr addrspace\\(1\\) %[0-9]+, i64 %offset\n"
                                  "[^\n]*store i64 1, ptr addrspace\\(1\\) %rebased") &&
           output_matches(result, "invoke.split:[^\n]*\n[^\n]*load ptr addrspace\\(1\\), ptr "
                                  "%made.unwind_slot[^\n]*\n[^\n]*br label %join"),
       "landing pads: an invoke's result is stored at its normal destination, its field kept "
       "as an offset, and a phi after the next call takes the reference loaded on that edge");
    char *pad_phi = ir_function(ir, "pad_phi");
    ok(pad_phi && strstr(pad_phi, "store ptr addrspace(1) %a, ptr %who.unwind_slot") &&
           output_matches(pad_phi, "@corral_landing_pad_entered, i32 1, i32 0, ptr "
                                   "%pad_stack_pointer, i32 0, i32 0\\)\n[^\n]*%who = load "
                                   "ptr addrspace\\(1\\), ptr %who.unwind_slot"),
       "landing pads: a phi in the pad is a slot stored before each call, loaded after the "
       "pad's runtime call, which has nothing live across it");
    char *stepping = ir_function(ir, "stepping");
    ok(stepping && strstr(stepping, "store ptr addrspace(1) %array, ptr %array.unwind_slot") &&
           output_matches(stepping, "%rebased[0-9]* = getelementptr i8, ptr addrspace\\(1\\) "
                                    "%[0-9]+, i64 %offset\n[^\n]*%word = load i64, ptr "
                                    "addrspace\\(1\\) %rebased"),
       "landing pads: a pointer stepping through an array is kept as its offset from the "
       "array, which is kept in a slot");
    free(stepping);
    free(pad_phi);
    free(result);
    free(argument);
    free(ir);

    /* Stack memory holding references: one frame on the frame-root chain. */
    ir = opt_ok("--polls=all", "stack_roots.ll");
    char *slots = ir_function(ir, "slots");
    ok(ir && strstr(ir, "@corral.stack_roots.slots = private constant { i32, i32, [3 x { i32, "
                        "i32 }] } { i32 0, i32 3, [3 x { i32, i32 }] [{ i32, i32 } { i32 16, "
                        "i32 1 }, { i32, i32 } { i32 32, i32 4 }, { i32, i32 } { i32 72, i32 1 }] }"),
       "stack slots: the map lists the reference words of a local, an array and a struct "
       "(not its integer word, not an array of integers)");
    ok(slots && strstr(slots, "%stack_roots_frame = alloca [80 x i8], align 16") &&
           strstr(slots, "%plain = alloca [2 x i64]") && !strstr(slots, "%slot = alloca") &&
           !strstr(slots, "llvm.lifetime") &&
           output_matches(slots, "memset.p0.i64[(]ptr align 16 %array[0-9]*, i8 0, i64 32"),
       "stack slots: each moves into the frame at its alignment, null, and loses its lifetime "
       "markers; memory of no reference stays where it was");
    ok(slots && appears_before(slots, "store ptr %stack_roots_frame, ptr @corral_frame_roots_head",
                               "@corral_poll_page") &&
           appears_before(slots, "%frame_next = load ptr, ptr %stack_roots_frame",
                          "gc.safepoint_poll.exit:") &&
           strstr(slots, "store ptr %frame_next, ptr @corral_frame_roots_head"),
       "stack slots: the frame is pushed before the entry poll and popped before the return");
    char *third = ir_function(ir, "third");
    ok(third && output_matches(third, "memcpy.p0.p0.i64[(]ptr align 8 %t[0-9]+, ptr align 8 %t, "
                                      "i64 24") &&
           output_matches(third, "getelementptr %struct.triple, ptr %t[0-9]+, i64 0, i32 2") &&
           strstr(ir, "{ i32 0, i32 1, [1 x { i32, i32 }] [{ i32, i32 } { i32 16, i32 3 }] }"),
       "stack slots: a byval parameter is copied into the frame at entry and read there");
    free(third);
    free(slots);
    free(ir);

    /* Stack memory of references allocated at run time, and untyped memory. */
    ir = opt_ok("", "stack_roots_dynamic.ll");
    char *rounds = ir_function(ir, "rounds"), *untyped = ir_function(ir, "untyped");
    ok(rounds && output_matches(rounds, "%dynamic_roots = alloca i8, i64 %[0-9]+, align 16") &&
           appears_before(rounds, "store i32 32, ptr", "@llvm.memset.p0.i64(ptr align 16 %vla") &&
           appears_before(rounds, "@llvm.memset.p0.i64(ptr align 16 %vla",
                          "store ptr %dynamic_roots, ptr @corral_frame_roots_head") &&
           appears_before(rounds, "store ptr %dynamic_roots, ptr @corral_frame_roots_head",
                          "@fill, i32 1, i32 0, ptr %vla"),
       "run-time stack memory: an entry of its own with its map inline, null, pushed before "
       "its first use");
    ok(rounds && appears_before(rounds, "%saved = call ptr @llvm.stacksave.p0()",
                                "%saved_roots_head = load ptr, ptr @corral_frame_roots_head") &&
           appears_before(rounds, "store ptr %saved_roots_head, ptr @corral_frame_roots_head",
                          "call void @llvm.stackrestore.p0(ptr %saved)") &&
           strstr(rounds, "store ptr %frame_next, ptr @corral_frame_roots_head"),
       "run-time stack memory: each stackrestore cuts the chain back to its stacksave's head, "
       "the function's (empty) frame at its return");
    ok(untyped && strstr(ir, "@corral.stack_roots.untyped = private constant { i32, i32, [1 x "
                             "{ i32, i32 }] } { i32 0, i32 1, [1 x { i32, i32 }] [{ i32, i32 } "
                             "{ i32 16, i32 4 }] }") &&
           !strstr(untyped, "%buffer = alloca"),
       "untyped stack memory holding only references: kept in the frame as words of them");
    free(untyped);
    free(rounds);
    free(ir);

    /* musttail calls of managed code: tail jumps with the poll before them. */
    ir = opt_ok("", "musttail.ll");
    char *even = ir_function(ir, "even"), *odd = ir_function(ir, "odd");
    ok(even && odd && !strstr(ir, "elementtype(i64 (ptr addrspace(1), i64)) @odd") &&
           !strstr(ir, "elementtype(i64 (ptr addrspace(1), i64)) @even") &&
           output_matches(even, "%r = musttail call i64 @odd[(]ptr addrspace[(]1[)] %[.a-z0-9]+, "
                                "i64 %m[)] #[0-9]+\n  ret i64 %r") &&
           output_matches(odd, "%r = musttail call i64 @even[(]ptr addrspace[(]1[)] %[.a-z0-9]+, "
                               "i64 %n[)] #[0-9]+\n  ret i64 %r"),
       "musttail: a call of managed code stays a tail call, not a statepoint");
    ok(even && odd && appears_before(even, "@corral_poll_slow", "musttail call") &&
           appears_before(odd, "@corral_poll_slow", "musttail call") &&
           strstr(odd, "%a.relocated = call coldcc ptr addrspace(1) @llvm.experimental.gc.relocate"),
       "musttail: the return poll goes before the tail call, whose arguments it relocates");
    char *dispatch = ir_function(ir, "dispatch"), *framed = ir_function(ir, "framed");
    ok(dispatch && output_matches(dispatch, "musttail call i64 %handler[(]ptr %handler, ptr "
                                            "addrspace[(]1[)] %[.a-z0-9]+, i64 %n[)]"),
       "musttail: an indirect tail call stays one too");
    ok(framed && appears_before(framed, "store ptr %frame_next, ptr @corral_frame_roots_head",
                                "musttail call"),
       "musttail: a frame of stack references leaves the chain before the tail call");
    free(framed);
    free(dispatch);
    free(odd);
    free(even);
    free(ir);

    /* setjmp: what lives across it is kept in root slots of a frame. */
    ir = opt_ok("", "setjmp_kept.ll");
    char *kept = ir_function(ir, "kept");
    ok(kept && strstr(kept, "store ptr %setjmp_frame, ptr @corral_frame_roots_head") &&
           strstr(kept, "store ptr addrspace(1) %arg, ptr %") &&
           appears_before(kept, "@make,", "store ptr addrspace(1) %made1, ptr %"),
       "setjmp: the function pushes a frame; each object is stored where it is defined");
    ok(kept && appears_before(kept, "call void @corral_setjmp_save(ptr %setjmp_state)",
                              "call i32 @_setjmp(ptr %buf) #") &&
           appears_before(kept, "call i32 @_setjmp(ptr %buf) #",
                          "call void @corral_setjmp_returned(ptr %setjmp_state, i32 %"),
       "setjmp: a direct call, between the runtime's save and restore");
    ok(kept && strstr(kept, "%arg.kept = load ptr addrspace(1), ptr %") &&
           strstr(kept, "%field.offset = sub i64 %") &&
           strstr(kept, "%field.kept = getelementptr i8, ptr addrspace(1) %") &&
           strstr(kept, ", i64 %field.offset"),
       "setjmp: after it, each reference is loaded again, an address as its object plus the "
       "offset measured where it was made");
    const char *exit_block = kept ? strstr(kept, "gc.safepoint_poll.exit:") : NULL;
    ok(exit_block && strstr(exit_block, ", ptr @corral_frame_roots_head") &&
           appears_before(exit_block, ", ptr @corral_frame_roots_head", "ret i64 %v"),
       "setjmp: the frame is popped at the return, after the return poll");
    ok(ir && strstr(ir, "attributes #") && strstr(ir, "returns_twice \"gc-leaf-function\""),
       "setjmp: the call is marked returns_twice and gc-leaf");
    ok(ir && strstr(ir, "call void @longjmp(ptr %buf, i32 1) #"), "longjmp: a direct call, no wrapper");
    char *plain = ir_function(ir, "plain");
    ok(plain && !strstr(plain, "setjmp_frame") && strstr(plain, "@corral_setjmp_save"),
       "setjmp with no reference across it: no frame, still the save and restore");
    free(plain);
    free(kept);
    free(ir);
    /* The base phi of an address stepped around a loop with setjmp is
     * itself live across the call: kept too (else the check after RS4GC
     * stops with an internal error). */
    ir = opt_ok("", "setjmp_loop.ll");
    ok(ir && strstr(ir, "%p.base = phi ptr addrspace(1) [ %object, %entry ], [ %p.base.kept, %") &&
           strstr(ir, "store ptr addrspace(1) %p.base, ptr %"),
       "setjmp: a base phi live across the call around a loop gets a root slot of its own");
    free(ir);
    ir = opt_ok("", "setjmp_chosen.ll");
    ok(ir && strstr(ir, "%field.base = select i1 %c, ptr addrspace(1) %a, ptr addrspace(1) %b") &&
           strstr(ir, "store ptr addrspace(1) %field.base, ptr %") &&
           strstr(ir, "%field.kept = getelementptr i8, ptr addrspace(1) %"),
       "setjmp: an address chosen between objects keeps a select of their bases in its slot");
    free(ir);

    /* A compare before setjmp that only a branch after it uses: RS4GC moves it
     * to the branch, so the pass must keep its reference across the call. */
    ir = opt_ok("", "setjmp_compare.ll");
    char *compare_first = ir_function(ir, "compare_then_setjmp");
    char *compare_apart = ir_function(ir, "compare_in_another_block");
    ok(compare_first && compare_apart &&
           appears_before(compare_first, "call i32 @_setjmp", "%object.kept = load ptr addrspace(1)") &&
           strstr(compare_first, "icmp eq ptr addrspace(1) %object.kept, null") &&
           appears_before(compare_apart, "call i32 @_setjmp", "%object.kept = load ptr addrspace(1)") &&
           strstr(compare_apart, "icmp eq ptr addrspace(1) %object.kept, null"),
       "setjmp: a reference compared before the call for a branch after it is kept and "
       "compared where the branch is, as RS4GC would move the compare");
    free(compare_first);
    free(compare_apart);
    free(ir);

    /* A reference undefined on some paths (read before it is set) is null:
     * the pass stores references and their bases into root slots around
     * setjmp, and an undef there is whatever a register held. */
    ir = opt_ok("", "setjmp_undef_phi.ll");
    char *undefined = ir_function(ir, "set_in_loop");
    ok(undefined && strstr(undefined, "%cur = phi ptr addrspace(1) [ null, %entry ]") &&
           strstr(undefined, "%derived = phi ptr addrspace(1) [ null, %entry ]") &&
           !strstr(undefined, "undef") && !strstr(undefined, "poison"),
       "an undef or poison reference becomes null, so no root slot holds one");
    free(undefined);
    free(ir);

    /* Vectors of references live across setjmp, built from scalars (the
     * vectorizer's splats): built again after the call from kept lanes. */
    ir = opt_ok("", "setjmp_vector.ll");
    char *vectors = ir_function(ir, "splat_across");
    ok(vectors && appears_before(vectors, "call i32 @_setjmp", "%a.kept = load ptr addrspace(1)") &&
           appears_before(vectors, "call i32 @_setjmp", "%b.kept = load ptr addrspace(1)") &&
           strstr(vectors, "%splat.rebuilt = insertelement <2 x ptr addrspace(1)> %") &&
           strstr(vectors, "%pair.0.rebuilt = insertelement <2 x ptr addrspace(1)> <ptr "
                           "addrspace(1) null, ptr addrspace(1) poison>, ptr addrspace(1) "
                           "%b.kept, i32 1") &&
           !strstr(vectors, "%splat = ") && !strstr(vectors, "%ins = "),
       "setjmp: a splat and an insertelement chain of references live across the call are "
       "built again after it from their lanes, kept in root slots (a null lane stays null)");
    free(vectors);
    free(ir);

    /* Static helpers that take or return an interior reference are inlined,
     * even noinline (clang -O0 marks every function so). */
    ir = opt_ok("", "interior_helpers.ll");
    char *helpers = ir_function(ir, "use_helpers");
    ok(ir && helpers && !strstr(ir, "@max_slot") && !strstr(ir, "@bump") &&
           strstr(helpers, "%best.next.i = select i1 %more.i"),
       "static functions that return or receive an interior reference are inlined");
    ok(ir && !strstr(ir, "@bytes_of") && function_contains(ir, "first_byte_later", "gc.relocate"),
       "a static function returning a raw pointer made from a reference is inlined, and the "
       "pointer follows the object across the call");
    free(helpers);
    free(ir);

    ir = opt_ok("", "pthread_create.ll");
    ok(ir && function_contains(ir, "start_managed", "@corral.unmanaged.corral_pthread_create,") &&
           function_contains(ir, "start_c", "@corral.unmanaged.corral_pthread_create_any,") &&
           function_contains(ir, "start_self_attaching", "@corral.unmanaged.pthread_create,"),
       "pthread_create of a start routine the module defines calls corral_pthread_create; of "
       "one defined elsewhere, corral_pthread_create_any; of one attaching itself, "
       "pthread_create");
    free(ir);

    /* Managed functions passed to unmanaged C get an entry through the runtime. */
    command_result callbacks;
    ir = opt_ir("", "callbacks.ll", &callbacks);
    char *entry = ir ? ir_function(ir, "corral.callback.compare") : NULL;
    ok(ir && count_of(ir, "ptr @corral.callback.compare, i32 0, i32 0)") == 2 &&
           count_of(ir, "define internal i32 @corral.callback.compare(") == 1 &&
           function_contains(ir, "sort", "ptr @corral.callback.narrow, i32 0") &&
           strstr(ir, "define internal zeroext i8 @corral.callback.narrow(i8 signext %0, double %1)"),
       "callbacks: a managed function passed to unmanaged C is passed as its entry (made once; "
       "the argument attributes kept)");
    ok(entry && strstr(entry, "elementtype(i32 ()) @corral_callback_needs_entry") &&
           strstr(entry, "call ptr @corral_call_managed(ptr @corral.callback_body.compare, ptr %frame)") &&
           strstr(entry, "musttail call i32 @compare(ptr %0, ptr %1)") && !strstr(entry, POLL_LOAD),
       "callbacks: the entry, without polls, runs the function through corral_call_managed "
       "when the runtime asks, else tail-calls it; its question is a statepoint (its record)");
    ok(ir && function_contains(ir, "sort", "ptr @handler, i32 0") &&
           function_contains(ir, "sort", "ptr @attaching, i32 0") &&
           function_contains(ir, "sort", "ptr @variadic, i32 0") &&
           callbacks.output &&
           strstr(callbacks.output, "managed function 'variadic' is passed to unmanaged function "
                                    "'register_hook'") &&
           strstr(callbacks.output, "(it is a varargs function)"),
       "callbacks: a signal handler and a routine that attaches itself are passed as written; "
       "a varargs function too, with a warning naming it");
    free(entry);
    free(ir);
    command_result_free(&callbacks);

    /* Signal handlers: no polls, C called directly, no entry. */
    command_result handlers;
    ir = opt_ir("", "signal_handlers.ll", &handlers);
    char *on_signal = ir ? ir_function(ir, "on_signal") : NULL;
    char *on_action = ir ? ir_function(ir, "on_action") : NULL;
    char *on_global = ir ? ir_function(ir, "on_global") : NULL;
    char *on_helper = ir ? ir_function(ir, "on_helper") : NULL;
    ok(on_signal && on_action && on_global && on_helper && !strstr(on_signal, POLL_LOAD) &&
           !strstr(on_action, POLL_LOAD) && !strstr(on_global, POLL_LOAD) &&
           !strstr(on_helper, POLL_LOAD) && strstr(on_signal, "call i64 @write(i32 1") &&
           strstr(on_action, "call i64 @write(i32 2") &&
           strstr(on_helper, "call i64 @write(i32 3") && !strstr(ir, "corral.callback.") &&
           function_contains(ir, "ordinary", "@corral.unmanaged.write,"),
       "signal handlers (signal's argument, stored into sigaction's struct on the stack or in a "
       "global, passed to a helper that installs it): no polls, C called directly, no entry; "
       "other code keeps both");
    free(on_helper);
    ok(handlers.output &&
           strstr(handlers.output, "signal handler 'on_global' calls managed function 'helper', "
                                   "which polls"),
       "a signal handler calling managed code that polls is warned about, by name");
    free(on_signal);
    free(on_action);
    free(on_global);
    free(ir);
    command_result_free(&handlers);

    /* Addresses C finds in memory get the entry too; a static dispatch table
     * that only managed code calls through keeps its functions. */
    ir = opt_ok("", "callbacks_in_memory.ll");
    ok(ir && strstr(ir, "@ops = internal constant { ptr, ptr } { ptr @corral.callback.each, "
                        "ptr @corral.callback.finish }") &&
           function_contains(ir, "use_ops", "icmp eq ptr %e, @corral.callback.each") &&
           function_contains(ir, "fill_hooks", "store ptr @corral.callback.hook, ptr @hooks") &&
           function_contains(ir, "exported_address", "ret ptr @corral.callback.exported"),
       "callbacks in memory: a struct of callbacks handed to C, a table filled at run time, "
       "the address of a function that is not static: each address is the entry, compared as "
       "such");
    ok(ir && strstr(ir, "@table = internal constant [2 x ptr] [ptr @op_add, ptr @op_sub]") &&
           !strstr(ir, "@corral.callback.op_") && !strstr(ir, "@corral.callback.local_only") &&
           function_contains(ir, "dispatch", "elementtype(i64 (i64, i64)) @op_add,") &&
           function_contains(ir, "through_local", "elementtype(i64 (i64)) @exported,"),
       "callbacks in memory: a static dispatch table only managed code calls through, and a "
       "local function pointer, keep the functions; direct calls keep them too");
    free(ir);

    /* External functions C may call by name: the entry takes the symbol. */
    command_result exported;
    ir = opt_ir_with("", "external_entries.ll", &exported, 0);
    char *api = ir ? ir_function(ir, "api") : NULL;
    ok(api && strstr(ir, " i64 @api(i64 %0) ") && !strstr(ir, "define internal i64 @api(") &&
           strstr(api, "elementtype(i32 ()) @corral_callback_needs_entry") &&
           strstr(api, "musttail call i64 @corral.managed.api(i64 %0)") &&
           strstr(ir, "define internal i64 @corral.managed.api(i64 %x)") &&
           function_contains(ir, "corral.managed.user", "elementtype(i64 (i64)) @corral.managed.api,"),
       "an external function's entry takes its symbol; the function, now internal, is what "
       "managed code calls");
    ok(ir && strstr(ir, "define ptr addrspace(1) @takes_ref(") &&
           strstr(ir, "define weak i64 @weak_api(") &&
           strstr(ir, "define i64 @in_comdat(i64 %x) #0 comdat") && strstr(ir, "define i32 @main(") &&
           !strstr(ir, "corral.managed.takes_ref") && !strstr(ir, "corral.managed.weak_api") &&
           !strstr(ir, "corral.managed.in_comdat") && !strstr(ir, "corral.managed.main") &&
           !strstr(ir, "corral.callback.helper"),
       "not for a function taking references, a weak one, one in a comdat, main, or a "
       "static one");
    free(api);
    free(ir);
    command_result_free(&exported);
    ir = opt_ok("", "external_entries.ll");
    ok(ir && strstr(ir, "define i64 @api(i64 %x)") && !strstr(ir, "corral.managed."),
       "--keep-external-symbols: every function keeps its symbol");
    free(ir);

    /* main leaves managed code as it returns, for the atexit handlers and
     * destructors; the C library calls the constructors and destructors. */
    ir = opt_ok("", "exit_paths.ll");
    char *main_body = ir ? ir_function(ir, "main") : NULL;
    const char *leave = "elementtype(void ()) @corral_main_returns,";
    int each_before_ret = main_body != NULL;
    for (const char *at = main_body ? strstr(main_body, leave) : NULL; at; at = strstr(at + 1, leave))
        each_before_ret &= strncmp(strchr(at, '\n') + 1, "  ret i32 ", 10) == 0;
    ok(main_body && count_of(main_body, leave) == 2 && each_before_ret &&
           strstr(main_body, "musttail call i32 @tail_main(i32 %argc)") &&
           count_of(ir, "@corral_main_returns") == 3, /* the two calls and the declaration */
       "main: a statepoint calling corral_main_returns right before each return, after its "
       "return poll; not before a musttail call's return, nor in other functions");
    ok(ir && strstr(ir, "{ i32 65535, ptr @corral.callback.at_load, ptr null }") &&
           strstr(ir, "{ i32 65535, ptr @corral.callback.at_exit, ptr null }") &&
           strstr(ir, "@llvm.used = appending global [1 x ptr] [ptr @kept]"),
       "the constructor and destructor tables hold the functions' entries; llvm.used keeps "
       "its function");
    ok(ir && function_contains(ir, "ends_thread", "@corral.unmanaged.corral_pthread_exit,") &&
           function_contains(ir, "ends_thread", "@corral.unmanaged.corral_thrd_exit,") &&
           !function_contains(ir, "ends_thread", "@pthread_exit") &&
           !function_contains(ir, "ends_thread", "@thrd_exit"),
       "pthread_exit and thrd_exit are the runtime's, which drop the managed frames first");
    char *switches = ir ? ir_function(ir, "switches_stacks") : NULL;
    ok(switches && strstr(switches, "@corral_getcontext, i32 1, i32 0, ptr %save") &&
           strstr(switches, "@corral_swapcontext, i32 2, i32 0, ptr %save, ptr %target") &&
           strstr(switches, "@corral_setcontext, i32 1, i32 0, ptr %target") &&
           !strstr(switches, "corral.unmanaged.") && !strstr(switches, "@getcontext") &&
           !strstr(switches, "@swapcontext") && !strstr(switches, "@setcontext") &&
           !strstr(switches, "returns_twice"),
       "getcontext, swapcontext and setcontext are the runtime's, statepoints without a GC "
       "transition, which set a stack's managed frames aside; getcontext no longer returns "
       "twice");
    free(switches);
    free(main_body);
    free(ir);

    command_result threads;
    ir = opt_ir("", "thrd_create.ll", &threads);
    char *adapter = ir ? ir_function(ir, "corral.thrd_start.worker") : NULL;
    ok(ir && function_contains(ir, "start_managed", "@corral.unmanaged.corral_thrd_create,") &&
           function_contains(ir, "start_managed_again", "@corral.unmanaged.corral_thrd_create,") &&
           strstr(ir, "ptr @corral.thrd_start.worker") && adapter &&
           strstr(adapter, "@worker") && strstr(adapter, "inttoptr") &&
           function_contains(ir, "start_c", "@corral.unmanaged.corral_thrd_create_any,") &&
           function_contains(ir, "start_null", "@corral.unmanaged.thrd_create,"),
       "thrd_create of a start routine the module defines calls corral_thrd_create with a "
       "managed adapter returning its int; of one defined elsewhere, corral_thrd_create_any; "
       "of null, thrd_create");
    ok(ir && function_contains(ir, "spawn_chosen", "@corral.unmanaged.corral_thrd_create_any,") &&
           function_contains(ir, "pthread_spawn_chosen",
                             "@corral.unmanaged.corral_pthread_create_any,"),
       "a start routine chosen at run time goes to the runtime's decider");
    ok(threads.output &&
           strstr(threads.output, "thrd_create's start routine wrong_type does not have the type "
                                  "int (void *)") &&
           !strstr(threads.output, "chosen at run time"),
       "a defined start routine of the wrong type is named in a warning, a chosen one is not");
    if (threads.output && !strstr(threads.output, "wrong_type"))
        diag("output:\n%s", threads.output);
    free(adapter);
    free(ir);
    command_result_free(&threads);

    /* A statepoint of a varargs callee cannot carry sret (LLVM 19). */
    ir = opt_ok("", "varargs_sret.ll");
    ok(ir && strstr(ir, "define void @make(ptr sret(%struct.L) align 8 %out") &&
           strstr(ir, "@make, i32 3, i32 0, ptr align 8 %l,") &&
           strstr(ir, "%callee, i32 3, i32 0, ptr align 8 %l,"),
       "x86-64: varargs calls returning a struct in memory drop sret, the callee keeps it");
    free(ir);
    ir = opt_ok("", "varargs_sret_aarch64.ll");
    ok(ir && strstr(ir, "define internal void @make(ptr align 8 %out") &&
           strstr(ir, "@make, i32 3, i32 0, ptr align 8 %l,"),
       "AArch64: a static such callee and its calls drop sret together (x8)");
    free(ir);

    ir = opt_ok("", "varargs_pins.ll");
    char *pass_refs = ir_function(ir, "pass_refs");
    ok(pass_refs && appears_before(pass_refs, "@corral_pin_for_call(ptr addrspace(1) %a)",
                                   "@llvm.experimental.gc.statepoint") &&
           appears_before(pass_refs, "@corral_pin_for_call(ptr addrspace(1) %b)",
                          "@llvm.experimental.gc.statepoint"),
       "references passed through ... are pinned before the call");
    ok(pass_refs && appears_before(pass_refs, "@llvm.experimental.gc.statepoint",
                                   "@corral_unpin_after_call(ptr addrspace(1) %a.relocated)") &&
           strstr(pass_refs, "@corral_unpin_after_call(ptr addrspace(1) %b.relocated)"),
       "and unpinned after it, through their relocated values");
    ok(pass_refs && !strstr(pass_refs, "pin_for_call(ptr addrspace(1) null"), "null is not pinned");
    free(pass_refs);
    free(ir);

    ir = opt_ok("", "raw_pointers.ll");
    char *raw = ir_function(ir, "raw");
    ok(raw && appears_before(raw, "@llvm.experimental.gc.statepoint",
                             "addrspacecast ptr addrspace(1) %2 to ptr") &&
           strstr(raw, "getelementptr i8, ptr addrspace(1) %r, i64 16"),
       "a raw pointer live across a call is a derived reference there, cast after it");
    char *bytes = ir_function(ir, "bytes_to_c");
    ok(bytes && appears_before(bytes, "@corral_pin_for_call(ptr addrspace(1) %b)",
                               "@corral.unmanaged.write") &&
           strstr(bytes, "@corral_unpin_after_call(ptr addrspace(1) %b.relocated)"),
       "a raw pointer passed to unmanaged C pins its object for the call");
    char *loop = ir_function(ir, "loop_phi");
    ok(loop && strstr(loop, "%p1 = phi ptr addrspace(1) [ %b, %entry ]") &&
           strstr(loop, "%p1.relocated"),
       "a raw pointer phi in a loop becomes a reference phi, relocated");
    char *trip = ir_function(ir, "round_trip");
    ok(trip && !strstr(trip, "addrspacecast") && !strstr(trip, "inttoptr"),
       "a raw pointer cast back to a reference is folded away");
    free(trip);
    free(loop);
    free(bytes);
    free(raw);
    free(ir);

    /* A use that may hand back a pointer into the object pins it for the frame. */
    ir = opt_ok("", "frame_pins.ll");
    static const char *const handed_back[] = {"comma_after_gc",    "end_after_gc",
                                              "select_with_c_memory", "phi_with_c_memory",
                                              "phi_across_setjmp", "cursor_local"};
    for (size_t i = 0; i < sizeof handed_back / sizeof handed_back[0]; i++) {
        char *body = ir_function(ir, handed_back[i]);
        ok(body && strstr(body, "alloca [2 x i64]") &&
               appears_before(body, "@llvm.memset.p0.i64(ptr align 8 %frame_pins, i8 -1, i64 16",
                              "@corral_pin_for_frame(ptr %frame_pins, i32 0, ptr addrspace(1) %") &&
               appears_before(body, "@corral_pin_for_frame", "!corral.frame_pinned") &&
               appears_before(body, "@corral_unpin_frame(ptr %frame_pins)", "ret ") &&
               !strstr(body, "@corral_pin_for_call"),
           "%s: the object is pinned from the raw pointer until the return", handed_back[i]);
        free(body);
    }
    char *mixed_pins = ir_function(ir, "varargs_and_raw");
    ok(mixed_pins &&
           appears_before(mixed_pins, "@corral_pin_for_frame",
                          "@corral_pin_for_call(ptr addrspace(1) %s)") &&
           appears_before(mixed_pins, "@corral_pin_for_call", "@llvm.experimental.gc.statepoint") &&
           appears_before(mixed_pins, "@llvm.experimental.gc.statepoint",
                          "@corral_unpin_after_call"),
       "a frame pin comes before the pins of its call, whose unpin then pops in turn");
    free(mixed_pins);
    char *each_round = ir_function(ir, "offsets_of_each_round");
    ok(each_round && count_of(each_round, "@corral_pin_for_frame(") == 1 &&
           !strstr(each_round, "!corral.frame_pinned"),
       "a loop's object is pinned each round by one site, its casts not marked pinned for the "
       "frame, and the offsets taken while it is pinned may live across calls and rounds");
    free(each_round);
    char *invariant = ir_function(ir, "same_object_each_round");
    ok(invariant && count_of(invariant, "@corral_pin_for_frame(") == 1 &&
           appears_before(invariant, "@corral_pin_for_frame(", "loop:") &&
           !strstr(invariant, "@corral_pin_for_call"),
       "the same object in every round of a loop is pinned once, before the loop");
    free(invariant);
    char *nothing = ir_function(ir, "nothing_handed_back");
    ok(nothing && !strstr(nothing, "frame_pin") &&
           strstr(nothing, "@corral_pin_for_call(ptr addrspace(1) %s)"),
       "a nocapture argument, an unused result and an integer result pin nothing for the "
       "frame (the unmanaged call still pins for the call)");
    free(nothing);
    free(ir);
    command_result frame_report;
    free(opt_ir("--report-poll-distance", "frame_pins.ll", &frame_report));
    ok(frame_report.output && strstr(frame_report.output, "end_after_gc: 1 frame pins") &&
           !strstr(frame_report.output, "nothing_handed_back: 1 frame pins"),
       "--report-poll-distance counts each function's frame pins");
    command_result_free(&frame_report);

    ir = opt_ok("", "invoke_unmanaged.ll");
    char *catcher = ir_function(ir, "catcher");
    like_str(catcher, "@corral.unmanaged.invoke.may_throw, i32 1",
             "an invoke of unmanaged C goes through an invoking wrapper");
    like_str(catcher, "@corral.unmanaged.may_throw, i32 1", "a plain call through the plain one");
    char *wrapper = ir_function(ir, "corral.unmanaged.invoke.may_throw");
    ok(wrapper && strstr(wrapper, "personality ptr @__gxx_personality_v0") &&
           appears_before(wrapper, "landingpad", "@corral_transition_to_managed()") &&
           appears_before(wrapper, "cleanup", "resume"),
       "whose unwind path makes the thread MANAGED before resuming the exception");
    free(wrapper);
    free(catcher);
    free(ir);

    ir = opt_ok("", "dynamic_frame.ll");
    char *vla = ir_function(ir, "vla");
    ok(vla && !strstr(vla, "align 64") && strstr(vla, "@llvm.ptrmask.p0.i64(ptr"),
       "a 64-byte aligned local beside a VLA is aligned by hand");
    ok(has_function_attribute(ir, "vla", "\"no-realign-stack\""),
       "and the dynamically sized frame is never realigned");
    ok(!has_function_attribute(ir, "fixed", "\"no-realign-stack\""),
       "a fixed-size frame keeps its realignment");
    ok(vla && !strstr(vla, "sponentry"), "x86-64 finds a dynamic frame's CFA at RBP + 16");
    free(vla);
    free(ir);

    ir = opt_ok("", "struct_return_aarch64.ll");
    ok(ir && !strstr(ir, "alloca") && !strstr(ir, "corral.ref_from_int"),
       "AArch64: structs of references moved as [2 x i64] through their slots leave no slot");
    char *optimised = ir_function(ir, "make_pair_optimised");
    const char *poll = optimised ? strstr(optimised, "@corral_poll_page") : NULL;
    const char *first_ptrtoint = optimised ? strstr(optimised, "ptrtoint") : NULL;
    ok(poll && first_ptrtoint && poll < first_ptrtoint,
       "the return poll comes before the ptrtoints that build the returned [2 x i64]");
    free(optimised);
    char *caller = ir_function(ir, "use_pair");
    like_str(caller, "inttoptr i64", "the caller makes references from the returned words");
    free(caller);
    free(ir);

    ir = opt_ok("", "dynamic_frame_aarch64.ll");
    vla = ir_function(ir, "vla");
    char *fixed = ir_function(ir, "fixed");
    like_str(vla, "%corral.cfa = call ptr @llvm.sponentry.p0()",
             "AArch64: a dynamic frame takes its CFA at entry");
    size_t statepoints = 0, with_cfa = 0;
    for (const char *at = vla; at && (at = strstr(at, "@llvm.experimental.gc.statepoint.p0(")); at++)
        statepoints++;
    for (const char *at = vla; at && (at = strstr(at, "\"deopt\"(i32 1128677665, ptr %corral.cfa)")); at++)
        with_cfa++;
    ok(statepoints == 4 && with_cfa == 4,
       "and each of its statepoints carries it after the marker (%zu of %zu)", with_cfa,
       statepoints);
    like_str(vla, "%table = alloca i8, i64 %",
             "600 bytes of fixed locals move below the fixed frame (no base register)");
    like_str(vla, "%small = alloca i64, align 8", "a small local stays in the fixed frame");
    ok(fixed && !strstr(fixed, "sponentry") && !strstr(fixed, "align 64") &&
           has_function_attribute(ir, "fixed", "\"no-realign-stack\""),
       "a fixed frame saves no CFA, but is aligned by hand and never realigned (its "
       "stackmap keeps a size)");
    free(fixed);
    free(vla);
    free(ir);
}

static void test_linking(void)
{
    const char *output = scratch_path("linked.ll");
    command_result result = run_command("%s %s/link_a.ll %s/link_b.ll -o %s", CORRAL_OPT, POLLS_IR_DIR,
                                  POLLS_IR_DIR, output);
    char *ir = read_file(output);
    is_int(result.status, 0, "two inputs link into one module");
    like_str(ir, "elementtype(i64 (i64)) @corral.managed.from_b",
             "a call into the other file is a direct statepoint (to the function, not the "
             "entry that took its symbol for C)");
    ok(ir && !strstr(ir, "corral.unmanaged.from_b"), "and needs no wrapper");
    free(ir);
    command_result_free(&result);
}

/* One gcroot function in both modes (docs/gcroot.md). */
static void test_gcroot_modes(void)
{
    char *ir = opt_ok("", "gcroot_modes.ll");
    char *shadow = ir_function(ir, "keep_across");
    ok(shadow && strstr(shadow, "store volatile ptr %gc_frame, ptr @corral_shadow_stack_head") &&
           !strstr(shadow, "gc-live"),
       "shadow-stack mode: the frame is pushed on the chain, no stackmap roots");
    free(shadow);
    free(ir);
    ir = opt_ok("--gcroot=promoted", "gcroot_modes.ll");
    char *promoted = ir_function(ir, "keep_across");
    ok(promoted && !strstr(promoted, "corral_shadow_stack_head") && !strstr(promoted, "alloca") &&
           !strstr(ir, "llvm.gcroot"),
       "promoted mode: no shadow stack, no slots, no gcroot calls");
    ok(promoted && strstr(promoted, "@corral.unmanaged.work, i32 1, i32 0, i64 %i.0, i32 0, i32 0) "
                                    "[ \"gc-live\"(ptr addrspace(1) %root") &&
           strstr(promoted, "@corral_poll_slow, i32 0, i32 0, i32 0, i32 0) #4 [ \"gc-live\"("),
       "the root is a stackmap root of the call and of the loop poll");
    ok(promoted && strstr(promoted, "inttoptr i64") && !strstr(promoted, "addrspacecast"),
       "made a reference by inttoptr (a base of its own), never an addrspacecast");
    ok(promoted && strstr(promoted, "statepoint.p0(i64 1734570612,") &&
           !strstr(promoted, "statepoint.p0(i64 1668248"),
       "every statepoint carries the gcroot id the walker counts");
    char *dead = ir_function(ir, "dead_in_loop");
    ok(dead && strstr(dead, "@corral.unmanaged.work") && !strstr(dead, "gc-live"),
       "a root no load reads after a safepoint is no root there (it would keep its object)");
    free(dead);
    free(promoted);
    free(ir);
    command_result result;
    ir = opt_ir("--gcroot=sometimes", "gcroot_modes.ll", &result);
    ok(!ir && result.status == 1 &&
           strstr(result.output, "--gcroot=sometimes: expected shadow-stack or promoted"),
       "an unknown gcroot mode is named");
    command_result_free(&result);
    /* Fine on the shadow stack (the contract is the frontend's), refused promoted. */
    static const char *const promoted_only[][2] = {
        {"bad_gcroot_held.ll", "held: pointer 'kept' from gcroot slot 'node' is held in a "
                               "register across the call to 'corral.unmanaged.g'"},
    };
    for (size_t i = 0; i < sizeof promoted_only / sizeof promoted_only[0]; i++) {
        free(opt_ok("", promoted_only[i][0]));
        ir = opt_ir("--gcroot=promoted", promoted_only[i][0], &result);
        ok(!ir && result.status == 1 && strstr(result.output, promoted_only[i][1]),
           "%s: accepted on the shadow stack; promoted: %s", promoted_only[i][0],
           promoted_only[i][1]);
        if (ir || !strstr(result.output, promoted_only[i][1]))
            diag("status %d, output:\n%s", result.status, result.output);
        free(ir);
        command_result_free(&result);
    }
}

/* gcroot code its frontend optimised (gcroot_optimised.ll), in both modes. */
static void test_gcroot_optimised(void)
{
    static const char *const modes[] = {"-O2", "-O2 --gcroot=promoted"};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        char *ir = opt_ok(modes[i], "gcroot_optimised.ll");
        char *inlined = ir_function(ir, "inlined_root");
        ok(inlined && strstr(inlined, "@corral.unmanaged.work") && !strstr(inlined, "unreachable") &&
               !strstr(inlined, "llvm.lifetime"),
           "%s: a root slot with a lifetime.start is read as the null it starts as, not as undef",
           modes[i]);
        char *copy = ir_function(ir, "returns_root");
        ok(copy && !strstr(copy, "%unused") && !strstr(copy, "@corral_poll_slow"),
           "%s: a gcroot function copied by dead-argument elimination still drops the return "
           "poll across the root it returns", modes[i]);
        free(inlined);
        free(copy);
        free(ir);
    }
}

/* gcroot functions whose roots promoted mode cannot keep in registers keep
 * them in a shadow-stack frame (docs/gcroot.md): roots across an invoke,
 * which RS4GC cannot relocate into a landingpad { ptr, i32 }
 * (gcroot_invoke.ll), and slots used otherwise than by loads and stores
 * (gcroot_unpromotable.ll). The others are promoted. */
static void test_gcroot_frames(void)
{
    static const char *const modes[] = {"", "--gcroot=promoted", "-O2 --gcroot=promoted"};
    static const char *const framed[][2] = {
        {"gcroot_invoke.ll", "catcher"},   {"gcroot_unpromotable.ll", "filled"},
        {"gcroot_unpromotable.ll", "late_slot"}, {"gcroot_unpromotable.ll", "sunk"},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        for (size_t f = 0; f < sizeof framed / sizeof framed[0]; f++) {
            /* At -O2 the pipeline before the pass loads each slot and selects. */
            if (strstr(modes[i], "-O2") && strcmp(framed[f][1], "sunk") == 0)
                continue;
            char *ir = opt_ok(modes[i], framed[f][0]);
            char *function = ir_function(ir, framed[f][1]);
            ok(function &&
                   strstr(function, "store volatile ptr %gc_frame, ptr @corral_shadow_stack_head") &&
                   !strstr(function, "gc.relocate"),
               "%s: %s: %s keeps its roots in a shadow-stack frame",
               *modes[i] ? modes[i] : "shadow-stack mode", framed[f][0], framed[f][1]);
            free(function);
            free(ir);
        }
        if (i > 0) {
            char *ir = opt_ok(modes[i], "gcroot_invoke.ll");
            char *rethrower = ir_function(ir, "rethrower");
            ok(rethrower && !strstr(rethrower, "corral_shadow_stack_head") &&
                   strstr(rethrower, "\"gc-live\"(ptr addrspace(1)") &&
                   strstr(rethrower, "statepoint.p0(i64 1734570612,"),
               "%s: roots dead across the invokes are promoted (stackmap roots, gcroot id)",
               modes[i]);
            free(rethrower);
            free(ir);
        }
    }
    /* The fallback is not silent: the report says where each function's roots went. */
    command_result result =
        run_command("%s --gcroot=promoted --report-poll-distance %s/gcroot_invoke.ll -o %s",
                    CORRAL_OPT, POLLS_IR_DIR, scratch_path("x.ll"));
    ok(result.status == 0 &&
           strstr(result.output, ": catcher: gcroot roots in a shadow-stack frame") &&
           strstr(result.output, ": rethrower: gcroot roots promoted to stack-map references"),
       "--report-poll-distance says which gcroot functions kept a frame under --gcroot=promoted");
    if (result.status != 0 || !strstr(result.output, "catcher: gcroot roots"))
        diag("status %d, output:\n%s", result.status, result.output);
    command_result_free(&result);
}

/* A reference made in a gcroot function, inlined into managed code that
 * keeps it across a call: the reference, not the plain pointer, crosses it. */
static void test_gcroot_boundary(void)
{
    static const char *const modes[] = {"-O2", "-O2 --gcroot=promoted"};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        char *ir = opt_ok(modes[i], "gcroot_boundary.ll");
        char *caller = ir_function(ir, "caller");
        ok(caller && strstr(caller, "@work, i32 0, i32 0, i32 0, i32 0) [ \"gc-live\"(ptr addrspace(1)") &&
               !strstr(ir, "corral.gcroot.reference"),
           "%s: a reference from gcroot code inlined into managed code is a root of its next call",
           modes[i]);
        free(caller);
        free(ir);
    }
}

typedef struct bad_case {
    const char *file;
    const char *expected; /* after "corral-opt: error: DIR/" */
} bad_case;

/* corral-opt ARGS FILE fails with "corral-opt: error: DIR/MESSAGE". */
static void expect_rejected(const char *args, const char *file, const char *message)
{
    command_result result;
    char *ir = opt_ir(args, file, &result);
    char expected[512];
    snprintf(expected, sizeof expected, "corral-opt: error: %s/%s", POLLS_IR_DIR, message);
    ok(ir == NULL && result.status == 1 && strstr(result.output, expected),
       "%s%s%s is rejected: %s", file, *args ? " " : "", args, message);
    if (!(result.output && strstr(result.output, expected)))
        diag("status %d, output:\n%s", result.status, result.output);
    free(ir);
    command_result_free(&result);
}

static void test_bad_ir(void)
{
    static const bad_case cases[] = {
        {"bad_alloca.ll", "bad_alloca.ll: escapes: the address of stack slot '%slot', which holds references, is passed to unmanaged function 'use_slot'"},
        {"bad_array_alloca.ll", "bad_array_alloca.ll: stack_array: the address of stack slot '%array', which holds references, is passed to unmanaged function 'use_array'"},
        {"bad_vla_references.ll", "bad_vla_references.ll: vla: variable-length array '%array' of a type holding references and other data"},
        {"bad_untyped_mixed.ll", "bad_untyped_mixed.ll: mixed: stack memory '%buffer' has a reference stored in it and something else stored here"},
        {"bad_huge_stack_slot.ll", "bad_huge_stack_slot.ll: huge: stack slot '%array' holding references is over 64 MiB"},
        {"bad_interior_in_slot.ll", "bad_interior_in_slot.ll: cursor: an address inside an object ('field') is stored in stack slot '%slot'"},
        {"bad_callback_reference.ll", "bad_callback_reference.ll: hook: managed function 'visit', passed to unmanaged function 'register_hook' (which may call it), takes or returns references, which C cannot hold"},
        {"bad_unmanaged_arg.ll", "bad_unmanaged_arg.ll: leak: reference passed to unmanaged function 'external' (argument 2)"},
        {"bad_unmanaged_return.ll", "bad_unmanaged_return.ll: take: unmanaged function 'make' returns a reference"},
        {"bad_safepoint_arg.ll", "bad_safepoint_arg.ll: collect_with: reference passed to runtime safepoint call 'corral_collect'"},
        {"bad_gc.ll", "bad_gc.ll: other_collector: uses gc \"statepoint-example\", which corral does not know"},
        {"bad_gc_newline.ll", "bad_gc_newline.ll: two_lines: uses gc \"first\\nsecond\", which corral does not know"},
        {"bad_gcroot_not_alloca.ll", "bad_gcroot_not_alloca.ll: root_of_field: llvm.gcroot of 'field', which is not an alloca"},
        {"bad_gcroot_gc.ll", "bad_gcroot_gc.ll: wrong_strategy: calls llvm.gcroot but uses gc \"coreclr\""},
        {"bad_gcroot_type.ll", "bad_gcroot_type.ll: integer_root: llvm.gcroot of alloca 'word' of type i64"},
        {"bad_ptrtoint.ll", "bad_ptrtoint.ll: hash: integer '%address', made from a reference, is live across the call to 'g'"},
        {"bad_late_inttoptr.ll", "bad_late_inttoptr.ll: late: integer '%word', made from a reference, is live across the call to 'g'"},
        {"bad_integer_aggregate.ll", "bad_integer_aggregate.ll: pack: integer '%pair', made from a reference, is live across the call to 'corral.unmanaged.g'"},
        {"bad_untag_int.ll", "bad_untag_int.ll: unbox: integer '%n', made from a reference, is live across the call to 'g': the object may move there; recompute it from the reference after the call, or pin the object; for a tagged immediate's payload use corral_untag_int"},
        {"bad_aggregate.ll", "bad_aggregate.ll: big: aggregate value '%all' holding references is live across the call to 'g'"},
        {"bad_returns_twice.ll", "bad_returns_twice.ll: jump: call to 'vfork' returns twice, and only a direct call of a declared setjmp-like function"},
        {"bad_setjmp_vector.ll", "bad_setjmp_vector.ll: loaded: vector of references '%pair' is live across the call to '_setjmp', which returns again after a longjmp; the pass keeps references there in memory the collector updates, and vectors only when built from known scalars"},
        {"bad_varargs.ll", "bad_varargs.ll: log_value: a managed varargs function that returns a value must be static"},
        {"bad_musttail.ll", "bad_musttail.ll: tail: musttail call to unmanaged function 'callee': it can reach a safepoint, and the GC transition around it must run when it returns"},
        {"bad_musttail_varargs.ll", "bad_musttail_varargs.ll: forward: musttail call to varargs function 'callee': the pass rewrites managed varargs calls"},
        {"bad_indirect_varargs.ll", "bad_indirect_varargs.ll: call_through: indirect call of a varargs function that returns a value"},
        {"bad_varargs_invoke.ll", "bad_varargs_invoke.ll: pass_refs: invoke of 'sum' with a reference through \"...\" or a raw pointer into an object among its arguments is not supported"},
        {"bad_varargs_sret_aarch64.ll", "bad_varargs_sret_aarch64.ll: through: call of a varargs function returning a struct in memory (sret), through a pointer: a statepoint cannot pass its result pointer in x8 on AArch64"},
        {"bad_varargs_vector.ll", "bad_varargs_vector.ll: pass_vector: variadic argument 2 of 'sum' holds references inside a vector"},
        {"bad_definition_mark.ll", "bad_definition_mark.ll: defined_leaf: a managed definition cannot be marked leaf"},
        {"bad_poll_slow.ll", "bad_poll_slow.ll: corral_poll_slow: the runtime's poll slow path must be declared"},
        {"bad_interior_phi.ll", "bad_interior_phi.ll: last_slot: returns an interior reference (a pointer into an object, such as &object->field): the caller would take it for the start of an object; return the object and an offset, or make the function static"},
        {"bad_interior_recursive.ll", "bad_interior_recursive.ll: nth_field: returns an interior reference (a pointer into an object, such as &object->field): the caller would take it for the start of an object; return the object and an offset (the pass inlines a static function for this, but not this one: it calls itself, takes ..., or calls setjmp)"},
        {"bad_landingpad_reference.ll", "bad_landingpad_reference.ll: catcher: reference '%field' is live across the call to 'corral.unmanaged.invoke.may_throw', which may unwind into a landing pad"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_rejected("", cases[i].file, cases[i].expected);
    /* Globals holding references that nothing registered as roots. */
    command_result globals;
    char *unused = opt_ir("", "bad_unregistered_global.ll", &globals);
    ok(!unused && globals.status == 1 && globals.output &&
           strstr(globals.output, "error: " POLLS_IR_DIR "/bad_unregistered_global.ll: global "
                                  "'cache' holds references but its address is never passed to "
                                  "anything, so it is never registered "
                                  "(corral_global_root_add(&cache))") &&
           strstr(globals.output, "error: " POLLS_IR_DIR "/bad_unregistered_global.ll: global "
                                  "'pair' holds references") &&
           strstr(globals.output, "warning: " POLLS_IR_DIR "/bad_unregistered_global.ll: global "
                                  "'shared' holds references") &&
           strstr(globals.output, "unless C code elsewhere registers it") &&
           !strstr(globals.output, "'registered'") && !strstr(globals.output, "'handed_over'"),
       "a global holding references whose address goes nowhere: an error when static, a "
       "warning when external; none once its address is passed to a call");
    ok(globals.output &&
           strstr(globals.output, "error: " POLLS_IR_DIR "/bad_unregistered_global.ll: "
                                  "thread-local global 'per_thread' holds references") &&
           strstr(globals.output, "register each thread's instance before storing a reference "
                                  "there and remove it before the thread exits") &&
           !strstr(globals.output, "'per_thread_registered'"),
       "a thread-local global holding references: the same, through this thread's address");
    if (globals.output && !strstr(globals.output, "'cache' holds references"))
        diag("output:\n%s", globals.output);
    free(unused);
    command_result_free(&globals);
    /* A raw pointer from a reference kept in memory the pass cannot follow. */
    command_result stores;
    char *stored =
        opt_ir("--leaf=corral_pin,corral_require_pinned", "bad_raw_pointer_store.ll", &stores);
    ok(!stored && stores.status == 1 && stores.output &&
           strstr(stores.output, "bad_raw_pointer_store.ll: parse_text: raw pointer made from a "
                                 "reference stored to memory ('%cursor'), where the pass cannot "
                                 "follow it") &&
           strstr(stores.output, "or, when the caller holds the pin, say so "
                                 "(corral_require_pinned)") &&
           !strstr(stores.output, "parse_pinned") && !strstr(stores.output, "parse_caller_pinned"),
       "a raw pointer from a reference stored to memory is rejected, unless the function "
       "pins the object or requires its caller's pin");
    if (stores.output && !strstr(stores.output, "parse_text: raw pointer"))
        diag("output:\n%s", stores.output);
    free(stored);
    command_result_free(&stores);
    /* Returned: the caller holds a C pointer, unless the object is pinned. */
    command_result returns;
    char *returned = opt_ir("--leaf=corral_pin,corral_require_pinned",
                            "bad_raw_pointer_return.ll", &returns);
    ok(!returned && returns.status == 1 && returns.output &&
           strstr(returns.output, "bad_raw_pointer_return.ll: text_of: returns a pointer "
                                  "into an object (a raw pointer made from a reference, or "
                                  "what a call gave back from one), which the caller cannot "
                                  "follow") &&
           strstr(returns.output, "bad_raw_pointer_return.ll: text_or_none: returns a") &&
           strstr(returns.output, "bad_raw_pointer_return.ll: after_comma: returns a") &&
           strstr(returns.output, "bad_raw_pointer_return.ll: either_text: returns a") &&
           strstr(returns.output, "make the function static (the pass then inlines it)"),
       "a raw pointer from a reference returned by an external function is rejected, also "
       "through a select with C memory or with another object, and strchr's result on one");
    if (returns.output && !strstr(returns.output, "after_comma: returns"))
        diag("output:\n%s", returns.output);
    free(returned);
    command_result_free(&returns);
    returned = opt_ir("--leaf=corral_pin,corral_require_pinned", "raw_pointer_return.ll", &returns);
    char *pinned_return = returned ? ir_function(returned, "text_of_pinned") : NULL;
    ok(pinned_return &&
           appears_before(pinned_return, "@corral_poll_slow", "%returned = addrspacecast") &&
           strstr(pinned_return, "ret ptr %returned") &&
           count_of(pinned_return, "addrspacecast ptr addrspace(1)") == 1,
       "one into an object its caller pins is accepted, and made again after the return poll");
    ok(returned && !strstr(returns.output ? returns.output : "", "new_object_for_gcroot"),
       "and one a corral-nopoll function returns (the llvm.gcroot boundary), memcpy's "
       "destination and strdup's copy made from one, and strchr's result on a pinned one");
    if (!pinned_return)
        diag("output:\n%s", returns.output ? returns.output : "");
    free(pinned_return);
    free(returned);
    command_result_free(&returns);
    expect_rejected("", "bad_frame_pin_loop.ll",
                    "bad_frame_pin_loop.ll: address_into_the_next_round: raw pointer '%address', "
                    "made from a reference, is live across the call to 'corral.unmanaged.g': the "
                    "object may move there; recompute it from the reference after the call, or "
                    "pin the object; a frame pin holds only the object of the loop's current "
                    "round, so move the code that keeps pointers into it into a function of its "
                    "own, called once per object");
    expect_rejected("", "bad_frame_pin_musttail.ll",
                    "bad_frame_pin_musttail.ll: musttail_keep: musttail call of 'keep' with a raw "
                    "pointer into an object it may keep");
    /* A whole program may rewrite an external one, but not a weak one. */
    expect_rejected("--whole-program", "bad_weak_varargs.ll",
                    "bad_weak_varargs.ll: log_value: a managed varargs function that returns a "
                    "value must be static, or not weak in a whole program");
    char *ir = opt_ok("--whole-program", "bad_varargs.ll");
    ok(ir && strstr(ir, "define internal void @log_value(i32 %n, ...)") &&
           strstr(ir, "@corral.varargs_result.log_value = internal thread_local global i32 0") &&
           strstr(ir, "store i32 %n, ptr @corral.varargs_result.log_value") &&
           strstr(ir, "ptr elementtype(void (i32, ...)) @log_value, i32 2") &&
           strstr(ir, "load i32, ptr @corral.varargs_result.log_value"),
       "--whole-program: an external varargs function with a result passes it through a "
       "thread-local variable");
    free(ir);
    /* Bad gcroot IR reads the same in both modes. */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strncmp(cases[i].file, "bad_gcroot_", 11) == 0)
            expect_rejected("--gcroot=promoted", cases[i].file, cases[i].expected);
}


static void test_bad_inputs(void)
{
    const char *text = scratch_path("notes.txt");
    FILE *file = fopen(text, "w");
    fputs("this is not LLVM IR\n", file);
    fclose(file);
    command_result result = run_command("%s %s -o %s", CORRAL_OPT, text, scratch_path("x.ll"));
    ok(result.status == 1 && strstr(result.output, "notes.txt: not valid LLVM IR or bitcode"),
       "a text file that is not IR: clear error, exit 1");
    command_result_free(&result);

    const char *bitcode = scratch_path("whole.bc");
    const char *truncated = scratch_path("truncated.bc");
    result = run_command("%s --stop-after=placement %s/kinds.ll --emit=bc -o %s && head -c 300 %s > %s",
                      CORRAL_OPT, POLLS_IR_DIR, bitcode, bitcode, truncated);
    command_result_free(&result);
    result = run_command("%s %s -o %s", CORRAL_OPT, truncated, scratch_path("x.ll"));
    ok(result.status == 1 && strstr(result.output, "truncated.bc: not valid LLVM IR or bitcode"),
       "truncated bitcode: clear error, exit 1");
    ok(!strstr(result.output, "Stack dump") && !strstr(result.output, "PLEASE submit"),
       "and no LLVM crash report");
    command_result_free(&result);

    /* Found by fuzz_corral_opt: this bitcode crashes LLVM 19's reader itself (kept out
     * of tests/polls/ir, which seeds the fuzzer: the in-process reader would crash). */
    result = run_command("%s %s/stress/fuzz_findings/bitcode_reader_segv.bc -o %s", CORRAL_OPT,
                      TESTS_DIR, scratch_path("x.ll"));
    ok(result.status == 1 &&
           strstr(result.output, "bitcode_reader_segv.bc: malformed bitcode: LLVM's "
                                 "bitcode reader crashes on it"),
       "bitcode that crashes LLVM's reader: clear error, exit 1");
    if (result.status != 1)
        diag("status %d, output:\n%s", result.status, result.output);
    command_result_free(&result);

    /* Found by fuzz_corral_opt: text IR that crashes LLVM 19's own parser, or
     * not, as the bytes past the constraint string happen to be. */
    result = run_command("%s %s/stress/fuzz_findings/inline_asm_constraint_abort.ll -o %s",
                         CORRAL_OPT, TESTS_DIR, scratch_path("x.ll"));
    if (!ok(result.status == 1 &&
                (strstr(result.output, "inline_asm_constraint_abort.ll: malformed LLVM IR: LLVM "
                                       "19's IR parser crashes on it") ||
                 strstr(result.output, "inline_asm_constraint_abort.ll: not valid LLVM IR")) &&
                !strstr(result.output, "Stack dump"),
            "text IR that crashes LLVM's parser: clear error, exit 1, no crash report"))
        diag("status %d, output:\n%s", result.status, result.output);
    command_result_free(&result);

    result = run_command("%s %s/no-such-file.ll -o %s", CORRAL_OPT, POLLS_IR_DIR, scratch_path("x.ll"));
    ok(result.status == 1 && strstr(result.output, "no-such-file.ll: cannot read"),
       "a missing input: clear error");
    command_result_free(&result);

    const char *empty = scratch_path("empty.ll");
    fclose(fopen(empty, "w"));
    result = run_command("%s %s -o %s", CORRAL_OPT, empty, scratch_path("x.ll"));
    ok(result.status == 1 && strstr(result.output, "empty.ll: empty file"), "an empty input: clear error");
    command_result_free(&result);

    result = run_command("%s --polls=loop,sometimes %s/kinds.ll", CORRAL_OPT, POLLS_IR_DIR);
    ok(result.status == 1 && strstr(result.output, "unknown poll kind 'sometimes'"),
       "an unknown poll kind is named");
    command_result_free(&result);

    result = run_command("%s --frobnicate %s/kinds.ll", CORRAL_OPT, POLLS_IR_DIR);
    ok(result.status == 1 && strstr(result.output, "unknown option '--frobnicate'"),
       "an unknown option is named");
    command_result_free(&result);

    const char *processed = scratch_path("processed.ll");
    result = run_command("%s %s/calls.ll -o %s && %s %s -o %s", CORRAL_OPT, POLLS_IR_DIR, processed,
                      CORRAL_OPT, processed, scratch_path("again.ll"));
    ok(result.status == 1 && strstr(result.output, "already contains gc.statepoint calls"),
       "running the pass twice is refused");
    command_result_free(&result);
}

int main(void)
{
    scratch_dir_make("polls-test");
    test_calls();
    test_call_lists();
    test_poll_page_access();
    test_object_output();
    test_entry_polls();
    test_return_polls();
    test_precall_polls();
    test_loop_polls();
    test_loop_without_polls();
    test_strip_mining();
    test_nopoll();
    test_distance();
    test_rewrites();
    test_tagged_values();
    test_linking();
    test_gcroot_modes();
    test_gcroot_boundary();
    test_gcroot_optimised();
    test_gcroot_frames();
    test_bad_ir();
    test_bad_inputs();
    scratch_dir_remove();
    return done_testing();
}
