/* test_barrier_opt.c — corral-opt --write-barrier on tests/polls/ir/barrier.ll:
 * a card barrier after every reference store into the heap, none where the
 * pass can prove it unneeded (a constant, an object allocated since the last
 * safepoint), one again after a safepoint; the counts in the report; and no
 * barrier at all without the switch. --satb-barrier: a deletion barrier
 * before every overwrite of the heap (null stores, xchg, cmpxchg, memcpy,
 * memset included) but those into a fresh object, with the bytes it
 * overwrites; alone or with the card barrier; passed on by corralc. */
#include "corral/abi.h"
#include "ir_text.h"

#define CARD_MARK "store atomic i8 1, ptr"
#define OUTSIDE_CALL "call void @corral_write_barrier_outside_heap("
#define RANGE_CALL "call void @corral_write_barrier_range("
#define SATB_CALL "call void @corral_satb_log_range("
/* The table's satb_active word, CORRAL_ABI_BARRIER_SATB_ACTIVE. */
#define SATB_ACTIVE_LOAD "load i64, ptr getelementptr (i8, ptr @corral_barrier, i64 32)"

static char *opt_ir(const char *args, command_result *result)
{
    const char *output = scratch_path("out.ll");
    remove(output);
    *result = run_command("%s %s %s/barrier.ll -o %s", CORRAL_OPT, args, POLLS_IR_DIR, output);
    return result->status == 0 ? read_file(output) : NULL;
}

/* opt_ir, checked: NULL (the failure reported, with corral-opt's output,
 * and result freed) when corral-opt failed. */
static char *opt_ir_ok(const char *args, command_result *result)
{
    char *ir = opt_ir(args, result);
    ok(ir != NULL, "barrier.ll: corral-opt %s succeeds (its output verifies)", args);
    if (!ir) {
        diag("%s", result->output);
        command_result_free(result);
    }
    return ir;
}

static int occurrences_in(const char *ir, const char *function, const char *needle)
{
    char *body = ir_function(ir, function);
    int count = body ? count_of(body, needle) : -1;
    free(body);
    return count;
}

static int marks_in(const char *ir, const char *function)
{
    return occurrences_in(ir, function, CARD_MARK);
}

static int deletion_barriers_in(const char *ir, const char *function)
{
    return occurrences_in(ir, function, SATB_CALL);
}

/* "FILE: F: N KIND barriers, M elided" from the report (KIND: write or
 * deletion). */
static int reported_kind(const char *output, const char *function, const char *kind,
                         int *elided)
{
    char needle[128], format[64];
    snprintf(needle, sizeof needle, ": %s: ", function);
    snprintf(format, sizeof format, "%%d %s barriers, %%d elided", kind);
    for (const char *at = strstr(output, needle); at; at = strstr(at + 1, needle)) {
        int inserted;
        if (sscanf(at + strlen(needle), format, &inserted, elided) == 2)
            return inserted;
    }
    return -1;
}

static int reported(const char *output, const char *function, int *elided)
{
    return reported_kind(output, function, "write", elided);
}

/* How many calls starting with call in body end their arguments with
 * tail (on the same line). */
static int calls_over(const char *body, const char *call, const char *tail)
{
    int count = 0;
    for (const char *at = body ? strstr(body, call) : NULL; at; at = strstr(at + 1, call)) {
        const char *end = strchr(at, '\n');
        const char *found = strstr(at, tail);
        count += found && (!end || found < end);
    }
    return count;
}

/* The branch on satb_active in body is marked unlikely: its !prof node
 * weighs 1 against 2000. */
static int satb_branch_unlikely(const char *ir, const char *body)
{
    const char *branch = body ? strstr(body, "label %corral.satb.log, label %corral.satb.done, !prof !")
                              : NULL;
    int node;
    if (!branch || sscanf(strstr(branch, "!prof !"), "!prof !%d", &node) != 1)
        return 0;
    char weights[96];
    snprintf(weights, sizeof weights, "!%d = !{!\"branch_weights\", i32 1, i32 2000}", node);
    return strstr(body, "icmp ne i64 %satb.active, 0") && strstr(ir, weights);
}

/* No statepoint between the deletion barrier's call and the store. */
static int no_safepoint_between(const char *body, const char *first, const char *then)
{
    const char *from = body ? strstr(body, first) : NULL;
    const char *to = from ? strstr(from, then) : NULL;
    if (!to)
        return 0;
    const char *statepoint = strstr(from, "@llvm.experimental.gc.statepoint");
    return !statepoint || statepoint > to;
}

/* Every statepoint call carries the id that says which barriers the module
 * was built with (CORRAL_ABI_STATEPOINT_ID, corral/abi.h), which the runtime
 * checks when the stackmaps are registered (src/code_check.c). */
static void check_statepoint_ids(const char *ir, unsigned long barriers, const char *what)
{
    char labelled[64];
    snprintf(labelled, sizeof labelled, "gc.statepoint.p0(i64 %lu,",
             (unsigned long)CORRAL_ABI_STATEPOINT_ID | barriers);
    int calls = count_of(ir, "gc.statepoint.p0(i64 ") - count_of(ir, "gc.statepoint.p0(i64 immarg");
    ok(calls > 0 && count_of(ir, labelled) == calls, "%s: all %d statepoints have id %#lx", what,
       calls, (unsigned long)CORRAL_ABI_STATEPOINT_ID | barriers);
}

static void test_barriers(void)
{
    command_result result;
    char *ir = opt_ir_ok("--write-barrier --report-poll-distance", &result);
    if (!ir)
        return;
    like_str(ir, "@corral_barrier = external hidden global",
             "the barrier table is hidden: PC-relative loads");
    int elided = -1;
    char *body = ir_function(ir, "store_field");
    is_int(count_of(body, CARD_MARK), 1, "a field store gets one card mark");
    like_str(body, "lshr i64 %barrier.offset, 9", "the card is the heap offset over 512");
    ok(appears_before(body, "store ptr addrspace(1) %v", CARD_MARK),
       "the card is marked after the store");
    like_str(body, OUTSIDE_CALL "ptr addrspace(1) %o, ptr addrspace(1) %f)",
             "outside the heap: the slow path gets the object and the field");
    ok(!strstr(body, "ptr elementtype(void (ptr addrspace(1), ptr addrspace(1))) @corral_write_barrier_outside_heap, i32"),
       "the slow path is no statepoint (gc-leaf)");
    free(body);

    is_int(marks_in(ir, "store_null"), 0, "a null store: no barrier");
    is_int(marks_in(ir, "store_integer"), 0, "an integer store: no barrier");
    is_int(marks_in(ir, "store_fresh"), 0, "a store into a fresh allocation: elided");
    is_int(marks_in(ir, "store_after_call"), 1, "a safepoint after the allocation: a barrier");
    is_int(marks_in(ir, "store_fresh_inlined"), 0,
           "both stores into the inlined allocation (TLAB bump or slow path): elided");
    is_int(marks_in(ir, "store_fresh_headerless"), 0,
           "both stores into a headerless type's inlined allocation (its typed cursor): elided");
    is_int(marks_in(ir, "fresh_then_call"), 1, "elided before a call, a barrier after it");
    is_int(marks_in(ir, "fresh_across_loop"), 2,
           "an allocation carried round a polled loop, or past its exit: barriers");
    is_int(reported(result.output, "fresh_across_loop", &elided), 2,
           "report: fresh_across_loop 2 barriers");
    is_int(elided, 1, "report: the store into this iteration's allocation is elided");
    is_int(marks_in(ir, "exchange"), 1, "atomicrmw xchg of a reference: a barrier");
    is_int(marks_in(ir, "compare_exchange"), 1, "cmpxchg of a reference: a barrier");
    is_int(marks_in(ir, "compare_exchange_null_word"), 0,
           "cmpxchg of the word 0: no card mark (it writes no reference)");
    body = ir_function(ir, "copy");
    is_int(body ? count_of(body, RANGE_CALL) : -1, 1, "memcpy into the heap: one range barrier");
    like_str(body, RANGE_CALL "ptr addrspace(1) %to, ptr addrspace(1) %to, i64 %bytes)",
             "the range barrier covers the destination and its length");
    free(body);
    body = ir_function(ir, "libc_copy");
    is_int(body ? count_of(body, RANGE_CALL) : -1, 3,
           "libc's memcpy, memmove and bcopy into the heap: a range barrier each");
    is_int(body ? count_of(body, RANGE_CALL "ptr addrspace(1) %o, ptr addrspace(1) ") : -1, 3,
           "each naming the object");
    is_int(calls_over(body, RANGE_CALL, ", i64 %bytes)"), 3,
           "each over the copy's length (bcopy's third operand)");
    free(body);
    is_int(occurrences_in(ir, "libc_copy_c", RANGE_CALL), 0,
           "libc's memcpy into C memory: no barrier");
    is_int(occurrences_in(ir, "libc_copy_select", RANGE_CALL "ptr addrspace(1) null, "), 1,
           "memcpy into a select of an object's bytes and C memory: a barrier naming no object");
    is_int(marks_in(ir, "store_pair"), 2, "a 16-byte store marks the cards of both words");
    is_int(marks_in(ir, "store_pair_constant_field"), 1,
           "a 16-byte store to a constant address: no second barrier after a folded address");

    is_int(reported(result.output, "store_field", &elided), 1, "report: store_field 1 barrier");
    is_int(elided, 0, "report: store_field 0 elided");
    is_int(reported(result.output, "store_fresh_inlined", &elided), 0,
           "report: store_fresh_inlined 0 barriers");
    is_int(elided, 2, "report: store_fresh_inlined 2 elided");
    is_int(reported(result.output, "fresh_then_call", &elided), 1,
           "report: fresh_then_call 1 barrier");
    is_int(elided, 1, "report: fresh_then_call 1 elided");
    is_int(reported(result.output, "store_null", &elided), 0, "report: store_null 0 barriers");
    is_int(elided, 1, "report: store_null 1 elided");
    ok(!strstr(ir, "corral_satb_log_range") && !strstr(ir, SATB_ACTIVE_LOAD),
       "--write-barrier alone: no deletion barrier");
    ok(!strstr(result.output, "deletion barriers"), "and no deletion counts in the report");
    check_statepoint_ids(ir, CORRAL_ABI_STATEPOINT_CARD_BARRIER, "--write-barrier");
    free(ir);
    command_result_free(&result);
}

static void check_satb_store_null(const char *ir)
{
    char *body = ir_function(ir, "store_null");
    is_int(count_of(body, SATB_CALL), 1, "a null store into an older object: a deletion barrier");
    like_str(body, SATB_ACTIVE_LOAD, "it loads the table's satb_active word (offset 32)");
    ok(satb_branch_unlikely(ir, body), "and branches on it, marked unlikely");
    like_str(body, SATB_CALL "ptr addrspace(1) %o, ptr addrspace(1) %f, i64 8)",
             "the slow path gets the object, the field and the 8 bytes overwritten");
    ok(appears_before(body, SATB_CALL, "store ptr addrspace(1) null, ptr addrspace(1) %f"),
       "the deletion barrier comes before the store");
    ok(no_safepoint_between(body, SATB_CALL, "store ptr addrspace(1) null"),
       "with no statepoint between the log and the store");
    ok(!strstr(body, "ptr elementtype(void (ptr addrspace(1), ptr addrspace(1), i64)) @corral_satb_log_range"),
       "the slow path is no statepoint (gc-leaf)");
    free(body);
}

static void check_satb_ranges_and_atomics(const char *ir)
{
    char *body = ir_function(ir, "copy");
    is_int(count_of(body, SATB_CALL "ptr addrspace(1) %to, ptr addrspace(1) %to, i64 %bytes)"), 2,
           "memcpy and memset into the heap: a deletion barrier each, over their length");
    ok(appears_before(body, SATB_CALL, "call void @llvm.memcpy") &&
           appears_before(body, "call void @llvm.memcpy", SATB_CALL) &&
           appears_before(body, "call void @llvm.memcpy", "call void @llvm.memset"),
       "each before its copy or fill");
    free(body);
    body = ir_function(ir, "fill");
    is_int(count_of(body, SATB_CALL), 1, "a memset alone: a deletion barrier");
    char *widen = line_before(body, SATB_CALL);
    like_str(widen, "zext i32 %bytes to i64", "its i32 length widened to i64");
    free(widen);
    free(body);
    body = ir_function(ir, "libc_copy");
    is_int(calls_over(body, SATB_CALL "ptr addrspace(1) %o, ", ", i64 %bytes)"), 5,
           "libc's memcpy, memmove, bcopy, bzero and memset into the heap: a deletion barrier "
           "each, naming the object, over the length (bzero's second operand)");
    free(body);
    body = ir_function(ir, "exchange");
    is_int(count_of(body, SATB_CALL), 1, "atomicrmw xchg of a reference: a deletion barrier");
    ok(appears_before(body, SATB_CALL, "atomicrmw xchg"), "before the exchange");
    free(body);
    body = ir_function(ir, "compare_exchange");
    like_str(body, SATB_CALL "ptr addrspace(1) %o, ptr addrspace(1) %f, i64 8)",
             "cmpxchg of a reference: a deletion barrier over its 8 bytes");
    ok(appears_before(body, SATB_CALL, "cmpxchg ptr addrspace(1) %f"), "before the cmpxchg");
    free(body);
    body = ir_function(ir, "compare_exchange_null_word");
    like_str(body, SATB_CALL "ptr addrspace(1) %o, ptr addrspace(1) %f, i64 8)",
             "cmpxchg of the word 0 (clang's null) into the heap: a deletion barrier");
    free(body);
    body = ir_function(ir, "store_pair");
    like_str(body, SATB_CALL "ptr addrspace(1) %o, ptr addrspace(1) %f, i64 16)",
             "a 16-byte store: one deletion barrier over both words");
    free(body);
    body = ir_function(ir, "store_raw");
    like_str(body, SATB_CALL "ptr addrspace(1) %o, ptr addrspace(1) %",
             "a store through a raw pointer into the heap: a deletion barrier naming the object, "
             "field as a reference");
    free(body);
}

static void check_satb_elision(const char *ir, const char *output)
{
    int elided = -1;
    is_int(deletion_barriers_in(ir, "store_fresh"), 0,
           "a store into a fresh allocation: no deletion barrier");
    is_int(deletion_barriers_in(ir, "store_fresh_inlined"), 0,
           "nor into the inlined allocation (TLAB bump or slow path)");
    is_int(deletion_barriers_in(ir, "store_after_call"), 1,
           "a safepoint after the allocation: a deletion barrier");
    is_int(deletion_barriers_in(ir, "store_global"), 0, "a store into a global: none");
    is_int(deletion_barriers_in(ir, "store_integer"), 0, "an integer store: none");
    is_int(deletion_barriers_in(ir, "store_in_loop"), 1,
           "a store opening a loop block, into its phi: a deletion barrier");

    is_int(reported_kind(output, "store_null", "deletion", &elided), 1,
           "report: store_null 1 deletion barrier");
    is_int(elided, 0, "report: store_null none elided (the old value matters)");
    is_int(reported_kind(output, "store_fresh_inlined", "deletion", &elided), 0,
           "report: store_fresh_inlined 0 deletion barriers");
    is_int(elided, 2, "report: store_fresh_inlined 2 elided");
    is_int(reported_kind(output, "fresh_across_loop", "deletion", &elided), 2,
           "report: fresh_across_loop 2 deletion barriers");
    is_int(elided, 1, "report: fresh_across_loop 1 elided");
    is_int(reported_kind(output, "copy", "deletion", &elided), 2, "report: copy 2 deletion barriers");
    is_int(reported_kind(output, "store_global", "deletion", &elided), 0,
           "report: store_global 0 deletion barriers");
    is_int(elided, 0, "report: store_global none elided (no heap store to count)");
}

static void test_satb_barrier(void)
{
    command_result result;
    char *ir = opt_ir_ok("--satb-barrier --report-poll-distance", &result);
    if (!ir)
        return;
    like_str(ir, "@corral_barrier = external hidden global [5 x i64]",
             "the barrier table is five words");
    like_str(ir, "declare void @corral_satb_log_range(ptr addrspace(1), ptr addrspace(1), i64)",
             "the slow path is declared");
    ok(!strstr(ir, CARD_MARK) && !strstr(ir, "corral_write_barrier"),
       "--satb-barrier alone: no card barrier");
    ok(!strstr(result.output, "write barriers"), "and no card counts in the report");
    check_statepoint_ids(ir, CORRAL_ABI_STATEPOINT_SATB_BARRIER, "--satb-barrier");
    check_satb_store_null(ir);
    check_satb_ranges_and_atomics(ir);
    check_satb_elision(ir, result.output);
    free(ir);
    command_result_free(&result);
}

static void test_both_barriers(void)
{
    command_result result;
    char *ir = opt_ir_ok("--satb-barrier --write-barrier --report-poll-distance", &result);
    if (!ir)
        return;
    char *body = ir_function(ir, "store_field");
    ok(appears_before(body, SATB_CALL, "store ptr addrspace(1) %v, ptr addrspace(1) %f") &&
           appears_before(body, "store ptr addrspace(1) %v, ptr addrspace(1) %f", CARD_MARK),
       "both: the deletion barrier before the store, the card mark after");
    free(body);
    is_int(deletion_barriers_in(ir, "store_null"), 1, "both: a null store gets a deletion barrier");
    is_int(marks_in(ir, "store_null"), 0, "and no card mark");
    body = ir_function(ir, "copy");
    is_int(count_of(body, SATB_CALL), 2, "both: memcpy and memset get deletion barriers");
    is_int(count_of(body, RANGE_CALL), 1, "and only memcpy a range barrier");
    free(body);
    is_int(marks_in(ir, "store_in_loop"), 1, "both, in a loop block: a card mark");
    int elided = -1;
    is_int(reported(result.output, "store_null", &elided), 0, "report: store_null 0 write barriers");
    is_int(elided, 1, "report: store_null 1 card barrier elided");
    is_int(reported_kind(result.output, "store_null", "deletion", &elided), 1,
           "report: store_null 1 deletion barrier too");
    check_statepoint_ids(ir, CORRAL_ABI_STATEPOINT_CARD_BARRIER | CORRAL_ABI_STATEPOINT_SATB_BARRIER,
                         "both barriers");
    free(ir);
    command_result_free(&result);
}

/* corralc takes --satb-barrier (off by default) and passes it to corral-opt. */
static void test_corralc_passes_satb_barrier(void)
{
    const char *output = scratch_path("corralc.ll");
    remove(output);
    command_result result = run_command("cd %s && %s --satb-barrier --emit-llvm %s/barrier.ll -o %s",
                                        scratch_dir, CORRALC, POLLS_IR_DIR, output);
    char *ir = result.status == 0 ? read_file(output) : NULL;
    ok(ir && count_of(ir, SATB_CALL) > 0, "corralc --satb-barrier: deletion barriers");
    if (!ir)
        diag("%s", result.output);
    free(ir);
    command_result_free(&result);
    remove(output);
    result = run_command("cd %s && %s --emit-llvm %s/barrier.ll -o %s", scratch_dir, CORRALC,
                         POLLS_IR_DIR, output);
    ir = result.status == 0 ? read_file(output) : NULL;
    ok(ir && !strstr(ir, "corral_satb_log_range") && strstr(ir, CARD_MARK),
       "corralc without it: card barriers only");
    free(ir);
    command_result_free(&result);
}

static void test_off_by_default(void)
{
    command_result result;
    char *ir = opt_ir("--report-poll-distance", &result);
    ok(ir && !strstr(ir, "corral_barrier") && !strstr(ir, "corral_write_barrier"),
       "without --write-barrier: no barrier anywhere");
    ok(!strstr(result.output, "write barriers"), "and no barrier counts in the report");
    ok(ir && !strstr(ir, "corral_satb_log_range"), "without --satb-barrier: no deletion barrier");
    ok(!strstr(result.output, "deletion barriers"), "and no deletion counts in the report");
    check_statepoint_ids(ir, 0, "no barrier option");
    free(ir);
    command_result_free(&result);
}

int main(void)
{
    scratch_dir_make("polls-test");
    test_barriers();
    test_satb_barrier();
    test_both_barriers();
    test_corralc_passes_satb_barrier();
    test_off_by_default();
    scratch_dir_remove();
    return done_testing();
}
