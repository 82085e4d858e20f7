/* corral-opt rejects invalid IR before any pass runs, naming the problem:
 * each input here once crashed LLVM's own passes (found by fuzzing, see
 * tests/stress/fuzz_findings/README.md). */
#include "tap.h"
#include "ir_text.h"

static void rejects(const char *file, const char *problem)
{
    command_result r = run_command(CORRAL_OPT " '%s/stress/fuzz_findings/%s' -o /dev/null", TESTS_DIR,
                             file);
    ok(r.status == 1, "%s: exit status 1 (got %d)", file, r.status);
    like_str(r.output, "invalid input IR", "%s: reported as invalid input", file);
    like_str(r.output, problem, "%s: the problem is named", file);
    command_result_free(&r);
}

/* An interior pointer may not cross a call that can reach a safepoint. */
static void rejects_interior_argument(void)
{
    command_result r = run_command(CORRALC " -O0 -o %s '%s/../stress/known/derived_argument.c'",
                             scratch_path("derived"), TESTS_DIR);
    ok(r.status != 0, "an interior reference passed to a managed call is rejected");
    like_str(r.output, "interior reference (a pointer into an object",
             "the message says what an interior reference is");
    like_str(r.output, "passed to 'bump_after_gc' (argument 1)", "and names the call");
    command_result_free(&r);
}

/* A data layout the C API reads short (a NUL byte in it) once made the pass
 * hand LLVM a malformed layout: a fatal error, not a diagnostic. */
static void rejects_unextendable_data_layout(void)
{
    command_result r = run_command(CORRAL_OPT " '%s/stress/fuzz_findings/data_layout_nul.ll' -o /dev/null",
                             TESTS_DIR);
    ok(r.status == 1, "data_layout_nul.ll: exit status 1 (got %d)", r.status);
    like_str(r.output, "data_layout_nul.ll: cannot add address space 1 to the data layout: "
                       "the module's data layout holds a NUL byte",
             "data_layout_nul.ll: the problem is named");
    ok(r.output && !strstr(r.output, "fatal"), "data_layout_nul.ll: not an LLVM fatal error");
    command_result_free(&r);
}

int main(void)
{
    plan(18);
    scratch_dir_make("polls-test");
    rejects_interior_argument();
    rejects("invalid_ir_rs4gc_segv.ll", "PHINode should have one entry");
    rejects("invalid_ir_verifier_segv.ll", "does not dominate all uses");
    rejects("invalid_ir_stack_overflow.ll", "llvm.threadlocal.address");
    rejects("invalid_immarg.bc", "immarg operand");
    rejects_unextendable_data_layout();
    scratch_dir_remove();
    return done_testing();
}
