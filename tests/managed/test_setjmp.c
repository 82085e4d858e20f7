/* setjmp and longjmp in managed code (docs/managed-c.md rule 6): references
 * live across a setjmp call are right at its second return though
 * collections moved every object in between, longjmp past frames that
 * pushed their own setjmp frames or call pins leaves no trace of them, and
 * a longjmp from plain C into managed code is a named fatal error. Built at
 * -O0..-O3; every object moves in every collection. */
#include <corral.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "corral_test.h"
#include "node_arrays.h"

#define MOVING_STRESS "CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=after"

/* Opaque to the optimiser, so values are not folded across setjmp. */
static volatile long one = 1;

static noderef fresh_garbage_then_node(long value)
{
    new_node(-1); /* garbage below: the next collection slides value's node */
    return new_node(value);
}

/* Garbage, a moving collection, then the jump. */
__attribute__((noinline)) static void collect_and_jump(jmp_buf env, int value)
{
    make_tree(4);
    corral_collect();
    longjmp(env, value);
}

/* ------------------------------------------------ one setjmp */

static void references_across_setjmp(void *arg)
{
    test_start(arg, true);
    jmp_buf env;
    noderef node = fresh_garbage_then_node(41);
    noderef tree = make_tree(5);
    long CORRAL_REF *field = &tree->left->value; /* a derived reference */
    volatile int jumps = 0;
    int value = setjmp(env);
    if (value == 0) {
        is_int(node->value + *field, 41 + 4, "first return: the references read right");
        jumps++;
        collect_and_jump(env, 7);
    }
    is_int(value, 7, "second return: setjmp returns longjmp's value");
    is_int(jumps, 1, "the code before the jump ran once");
    is_int(node->value, 41, "a reference live across setjmp was relocated");
    is_int(checksum(tree), expected_checksum(5), "a tree held across setjmp is intact");
    is_int(*field, 4, "a derived reference into it reads the moved field");
    corral_collect();
    is_int(node->value + tree->left->value, 45, "and they stay right through another collection");
}

/* ------------------------------------------------ a loop of setjmp */

/* Returns normally for even i, longjmps for odd i. */
__attribute__((noinline)) static noderef maybe_jump(jmp_buf env, long i)
{
    noderef fresh = fresh_garbage_then_node(i);
    if (i % 2)
        collect_and_jump(env, (int)i);
    return fresh;
}

static void setjmp_in_a_loop(void *arg)
{
    test_start(arg, true);
    noderef list = NULL; /* a phi live across setjmp, in every iteration */
    long jumped = 0;
    for (long i = 0; i < 40 * one; i++) {
        jmp_buf env;
        noderef kept = fresh_garbage_then_node(1000 + i);
        if (setjmp(env) == 0) {
            noderef fresh = maybe_jump(env, i);
            fresh->left = list;
            list = fresh;
        } else {
            jumped += kept->value - 1000;
            noderef odd = new_node(i);
            odd->left = list;
            list = odd;
        }
    }
    long count = 0, sum = 0;
    for (noderef n = list; n; n = n->left) {
        count++;
        sum += n->value;
    }
    is_int(count, 40, "every iteration added its node, jumped or not");
    is_int(sum, 39 * 40 / 2, "each node has its value");
    is_int(jumped, 20 * 20, "the reference made before each setjmp read right after the jump");
}

/* ------------------------------------------------ a derived reference in a loop */

/* An address into the current node, carried around a loop whose body calls
 * setjmp: its base is a phi the pass builds, live across the call too. */
static void derived_reference_in_a_loop(void *arg)
{
    test_start(arg, true);
    noderef list = NULL;
    for (long i = 0; i < 30; i++) {
        noderef n = fresh_garbage_then_node(i);
        n->left = list;
        list = n;
    }
    long CORRAL_REF *value = &list->value;
    noderef at = list;
    long sum = 0, jumps = 0;
    for (long i = 0; i < 30 * one; i++) {
        jmp_buf env;
        if (setjmp(env) == 0) {
            if (i % 3 == 0)
                collect_and_jump(env, 1);
        } else {
            jumps++;
        }
        sum += *value;
        at = at->left;
        if (at)
            value = &at->value;
    }
    is_int(jumps, 10, "every third iteration jumped back to its setjmp");
    is_int(sum, 29 * 30 / 2, "the address carried around the loop read the moved nodes");
}

/* A pointer stepped through an array by a loop whose body calls setjmp,
 * compared with an end pointer: two derived references whose base is the
 * loop's phi, live across the call around the loop. */
typedef struct long_array {
    corral_array_header header;
    long items[];
} long_array;

static const corral_type long_array_type = CORRAL_DATA_ARRAY_TYPE("long[]", long);

static void pointer_stepping_around_setjmp(void *arg)
{
    test_start(arg, true);
    long_array CORRAL_REF *array = corral_alloc_array(&long_array_type, 24);
    for (long i = 0; i < 24; i++)
        array->items[i] = i;
    long jumps = 0, sum = 0;
    for (long CORRAL_REF *p = array->items, *end = p + 24 * one; p != end; p++) {
        jmp_buf env;
        if (setjmp(env) == 0) {
            if (*p % 4 == 0)
                collect_and_jump(env, 1);
        } else {
            jumps++;
        }
        sum += *p;
    }
    is_int(jumps, 6, "every fourth element jumped back to its setjmp");
    is_int(sum, 23 * 24 / 2, "the stepping pointer read the moved array");
}

/* ------------------------------------------------ longjmp past frames */

static jmp_buf outer_env;

/* Managed varargs: the reference passed through "..." is pinned for the call,
 * and the jump skips the unpin. */
__attribute__((noinline)) static void jump_from_varargs(int count, ...)
{
    va_list args;
    va_start(args, count);
    noderef passed = va_arg(args, noderef);
    va_end(args);
    if (passed->value == 5)
        collect_and_jump(outer_env, 3);
}

/* A function with its own setjmp and references kept across it: its frame
 * is on the frame-root chain when the jump skips it. */
__attribute__((noinline)) static long inner_with_setjmp(long depth)
{
    jmp_buf env;
    noderef mine = fresh_garbage_then_node(depth);
    if (setjmp(env) != 0)
        return -1;
    if (depth > 0)
        return inner_with_setjmp(depth - 1) + mine->value;
    jump_from_varargs(1, mine->value == 0 ? new_node(5) : mine);
    return mine->value;
}

static void longjmp_past_frames(void *arg)
{
    test_start(arg, true);
    noderef node = fresh_garbage_then_node(17);
    long result = 0;
    int value = setjmp(outer_env);
    if (value == 0)
        result = inner_with_setjmp(6);
    is_int(value, 3, "the jump skipped seven frames with setjmp frames of their own");
    is_int(result, 0, "none of them returned");
    for (int i = 0; i < 3; i++) {
        make_tree(6);
        corral_collect(); /* walks the chain: the skipped frames must be gone */
    }
    is_int(node->value, 17, "collections after the jump walk only live frames");
}

/* ------------------------------------------------ sigsetjmp, __builtin_setjmp */

static void other_setjmps(void *arg)
{
    test_start(arg, true);
    sigjmp_buf sig_env;
    noderef node = fresh_garbage_then_node(23);
    int value = sigsetjmp(sig_env, 1);
    if (value == 0) {
        make_tree(4);
        corral_collect();
        siglongjmp(sig_env, 2);
    }
    is_int(value + node->value, 25, "sigsetjmp/siglongjmp: the reference was relocated");

    /* clang has __builtin_setjmp on x86 only. */
#if defined(__x86_64__)
    static void *builtin_env[5];
    noderef other = fresh_garbage_then_node(29);
    if (__builtin_setjmp(builtin_env) == 0) {
        make_tree(4);
        corral_collect();
        __builtin_longjmp(builtin_env, 1);
    }
    is_int(other->value + node->value, 52, "__builtin_setjmp/__builtin_longjmp: likewise");
#endif
}

/* ------------------------------------------------ longjmp from plain C */

void unmanaged_longjmp(jmp_buf env, int value);

static void jump_from_plain_c(void)
{
    jmp_buf env;
    noderef node = fresh_garbage_then_node(3);
    if (setjmp(env) == 0)
        unmanaged_longjmp(env, 1); /* through a GC-transition wrapper */
    printf("returned with node %ld\n", node->value);
}

static void longjmp_from_plain_c(void *self)
{
    run_result run = run_program_with(self, "jump-from-plain-c", MOVING_STRESS, 60);
    if (!ok(!run.timed_out && WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGABRT,
            "a longjmp from plain C into managed code stops the program"))
        show_output(&run);
    like_str(run.output,
             "corral: fatal: longjmp to the setjmp in managed function 'jump_from_plain_c' on "
             "thread 1 came from code running UNMANAGED",
             "the fatal error names the function and the thread's state");
    free(run.output);
}

/* ------------------------------------------------ vectors of references */

/* A loop the vectorizer makes store <2 x ptr> splats of a and b, inside a
 * loop that calls setjmp: at -O2 the splats are hoisted above both, so they
 * are live across the setjmp call (the pass once refused this with "vector
 * of references ... is live across the call to '_setjmp'"). */
static void vectors_around_setjmp(void *arg)
{
    test_start(arg, true);
    enum { LENGTH = 256, ROUNDS = 6 };
    corral_ref array = corral_alloc_array(&ref_array_type, LENGTH);
    noderef a = fresh_garbage_then_node(3), b = fresh_garbage_then_node(5);
    long jumped = 0;
    for (long round = 0; round < ROUNDS * one; round++) {
        for (long i = 0; i < LENGTH; i++)
            elements_of(array)[i] = (i & 1) ? a : b;
        jmp_buf env;
        if (setjmp(env) == 0)
            collect_and_jump(env, 1);
        else
            jumped++;
    }
    long wrong = 0;
    for (long i = 0; i < LENGTH; i++)
        wrong += ((noderef)elements_of(array)[i])->value != ((i & 1) ? 3 : 5);
    is_int(jumped, ROUNDS, "every round jumped back");
    is_int(wrong, 0, "the elements stored after each collection are the moved nodes");
    is_int(a->value + b->value, 8, "the references the vectors were made from are relocated");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "jump-from-plain-c") == 0) {
        test_start("", true); /* the settings are in the environment */
        jump_from_plain_c();
        return 0;
    }
    plan(8);
    tap_subtest("references live across setjmp", 60, references_across_setjmp, MOVING_STRESS);
    tap_subtest("setjmp in a loop", 60, setjmp_in_a_loop, MOVING_STRESS);
    tap_subtest("a derived reference carried around a loop with setjmp", 60,
                derived_reference_in_a_loop, MOVING_STRESS);
    tap_subtest("a pointer stepped through an array around setjmp", 60,
                pointer_stepping_around_setjmp, MOVING_STRESS);
    tap_subtest("longjmp past frames with setjmp frames and call pins", 60, longjmp_past_frames,
                MOVING_STRESS);
    tap_subtest("sigsetjmp and __builtin_setjmp", 60, other_setjmps, MOVING_STRESS);
    tap_subtest("longjmp from plain C", 60, longjmp_from_plain_c, argv[0]);
    tap_subtest("vectors of references around setjmp", 60, vectors_around_setjmp, MOVING_STRESS);
    return done_testing();
}
