/* e2e_program.c — managed C built by corralc against the fake runtime, at
 * every optimization level. It checks, from inside the running program,
 * what the pass promised: a parseable StackMap v3 section, polls in
 * call-free loops whose slow-path calls have stackmap records, GC
 * transitions around unmanaged calls (varargs printf included) and none
 * around leaf calls, and references surviving calls and struct returns. */
#include <corral.h>

#include "fake_runtime.h"
#include "tap.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct node {
    corral_header header;
    struct node CORRAL_REF *next;
    long value;
};
typedef struct node CORRAL_REF *node_ref;

static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);

static node_ref build_list(int count)
{
    node_ref head = 0;
    for (int i = 0; i < count; i++) {
        node_ref node = (node_ref)corral_alloc(&node_type);
        node->next = head;
        node->value = i;
        head = node;
    }
    return head;
}

static long sum_list(node_ref list)
{
    long sum = 0;
    for (node_ref node = list; node; node = node->next)
        sum += node->value;
    return sum;
}

/* A call-free counted loop: strip-mined at -O1 and above. */
__attribute__((noinline)) long sum_array(const int *values, int count)
{
    long sum = 0;
    for (int i = 0; i < count; i++)
        sum += values[i];
    return sum;
}

/* A small struct holding a reference, returned in registers: the pass splits
 * it around the return poll. */
struct pair {
    node_ref node;
    long tag;
};

__attribute__((noinline)) struct pair make_pair(node_ref node, long tag)
{
    struct pair pair = {node, tag};
    return pair;
}

int main(void)
{
    plan(12);

    fake_stackmap_summary tables = fake_stackmaps_scan(0);
    is_int(tables.version, 3, "llvm_stackmaps starts with a StackMap v3 table");
    ok(!tables.malformed && tables.functions > 0 && tables.records > 0,
       "the table parses: %llu functions, %llu records", (unsigned long long)tables.functions,
       (unsigned long long)tables.records);

    node_ref list = build_list(1000);
    is_int(sum_list(list), 999 * 1000 / 2, "a list built with corral_alloc keeps its values");

    struct pair pair = make_pair(list, 7);
    ok(pair.node == list && pair.tag == 7, "a struct holding a reference survives a return poll");

    int count = 3000000;
    int *values = malloc(sizeof *values * (size_t)count);
    for (int i = 0; i < count; i++)
        values[i] = i % 7;
    const fake_runtime_counters *counters = fake_get_counters();
    uint64_t polls_before = counters->poll_slow_calls;
    fake_arm_polls(100);
    long sum = sum_array(values, count);
    fake_disarm_polls();
    uint64_t polls = counters->poll_slow_calls - polls_before;
    uint64_t unrecorded_polls = counters->unrecorded_polls;
    long expected = 0;
    for (int i = 0; i < count; i++)
        expected += i % 7;
    is_int(sum, expected, "the strip-mined loop computes the same sum");
    ok(polls >= 100, "an armed page stops a call-free loop at its polls (%llu slow calls)",
       (unsigned long long)polls);
    is_int(unrecorded_polls, 0, "every poll slow-path call returns to a stackmap record");
    free(values);

    uint64_t transitions_before = counters->to_unmanaged;
    size_t length = strlen("managed");
    uint64_t after_leaf = counters->to_unmanaged;
    printf("# printf through a wrapper: %d %s %.1f %ld\n", 42, "text", 2.5, (long)length);
    uint64_t after_printf = counters->to_unmanaged;
    is_int(after_leaf - transitions_before, 0, "a leaf call (strlen) makes no GC transition");
    is_int(after_printf - after_leaf, 1, "varargs printf goes through one GC transition");
    ok(counters->to_managed == counters->to_unmanaged && counters->bad_nesting == 0,
       "transitions pair up (%llu each)", (unsigned long long)counters->to_managed);
    is_int(counters->unrecorded_anchors, 0, "every transition anchor is a stackmap record");
    is_int(sum_list(list), 999 * 1000 / 2, "references stay valid across unmanaged calls");
    return done_testing();
}
