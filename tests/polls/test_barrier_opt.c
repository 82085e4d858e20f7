/* test_barrier_opt.c — corral-opt --write-barrier on tests/polls/ir/barrier.ll:
 * a card barrier after every reference store into the heap, none where the
 * pass can prove it unneeded (a constant, an object allocated since the last
 * safepoint), one again after a safepoint; the counts in the report; and no
 * barrier at all without the switch. */
#include "ir_text.h"

#define CARD_MARK "store atomic i8 1, ptr"
#define OUTSIDE_CALL "call void @corral_write_barrier_outside_heap("
#define RANGE_CALL "call void @corral_write_barrier_range("

static char *opt_ir(const char *args, command_result *result)
{
    const char *output = scratch_path("out.ll");
    remove(output);
    *result = run_command("%s %s %s/barrier.ll -o %s", CORRAL_OPT, args, POLLS_IR_DIR, output);
    return result->status == 0 ? read_file(output) : NULL;
}

static int marks_in(const char *ir, const char *function)
{
    char *body = ir_function(ir, function);
    int count = body ? count_of(body, CARD_MARK) : -1;
    free(body);
    return count;
}

/* "FILE: F: N write barriers, M elided" from the report. */
static int reported(const char *output, const char *function, int *elided)
{
    char needle[128];
    snprintf(needle, sizeof needle, ": %s: ", function);
    for (const char *at = strstr(output, needle); at; at = strstr(at + 1, needle)) {
        int inserted;
        if (sscanf(at + strlen(needle), "%d write barriers, %d elided", &inserted, elided) == 2)
            return inserted;
    }
    return -1;
}

static void test_barriers(void)
{
    command_result result;
    char *ir = opt_ir("--write-barrier --report-poll-distance", &result);
    ok(ir != NULL, "barrier.ll: corral-opt --write-barrier succeeds");
    if (!ir) {
        diag("%s", result.output);
        command_result_free(&result);
        return;
    }
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
    ok(!strstr(body, "gc.statepoint.p0(i64 2882400000, i32 0, ptr elementtype(void (ptr addrspace(1), ptr addrspace(1))) @corral_write_barrier_outside_heap"),
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
    body = ir_function(ir, "copy");
    is_int(body ? count_of(body, RANGE_CALL) : -1, 1, "memcpy into the heap: one range barrier");
    like_str(body, RANGE_CALL "ptr addrspace(1) %to, ptr addrspace(1) %to, i64 %bytes)",
             "the range barrier covers the destination and its length");
    free(body);
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
    free(ir);
    command_result_free(&result);
}

int main(void)
{
    scratch_dir_make("polls-test");
    test_barriers();
    test_off_by_default();
    scratch_dir_remove();
    return done_testing();
}
