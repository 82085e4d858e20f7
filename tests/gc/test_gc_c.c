/* The collector driven from plain C: roots in handles and globals, no
 * compiled code. Each case runs in its own forked child (corral_init runs
 * once per process) with its own CORRAL_* settings, and checks results:
 * tree checksums after many moving collections, arrays, large objects,
 * pinning, weak handles, finalizers, out of memory, types with a trace
 * hook. */
#include <corral.h>
#include <stdbool.h>
#include <stdlib.h>

#include "c_trees.h"
#include "corral_test.h"

static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("ref[]");
static const corral_type long_array_type = CORRAL_DATA_ARRAY_TYPE("long[]", long);

static int count_collections;
static void count_gc(const corral_gc_info *info, void *context)
{
    (void)info;
    (void)context;
    count_collections++;
}

typedef struct trees_case {
    const char *settings;
    bool root_must_move; /* false when a small heap compacts it before we look */
} trees_case;

/* Long-lived tree plus churn; checks the tree survives moving collections. */
static void trees_survive(void *arg)
{
    const trees_case *test = arg;
    const char *settings = test->settings;
    test_start(settings, true);
    corral_set_gc_callback(count_gc, NULL);
    corral_handle_scope scope = corral_handle_scope_open();
    /* Garbage below the long-lived tree, so sliding compaction must move it. */
    make_tree(12);
    corral_handle keep = corral_handle_new(make_tree(14));
    void *first_address = *keep;
    long expected = expected_checksum(14);
    int moved = 0;
    for (int round = 0; round < 40; round++) {
        node *garbage = make_tree(10);
        (void)garbage;
        if (round % 8 == 0) {
            corral_collect();
            moved += *keep != first_address;
        }
        if (checksum(*keep) != expected) {
            ok(0, "checksum after round %d", round);
            break;
        }
    }
    ok(checksum(*keep) == expected, "long-lived tree checksum intact");
    ok(count_collections >= 5, "collections ran (%d)", count_collections);
    if (test->root_must_move)
        ok(moved > 0, "the long-lived tree moved at least once");
    corral_stats stats;
    corral_get_stats(&stats);
    ok(stats.bytes_moved > 0, "collections moved objects (%llu bytes)",
       (unsigned long long)stats.bytes_moved);
    corral_handle_scope_close(scope);
}

static void arrays_and_large_objects(void *arg)
{
    const char *settings = arg;
    test_start(settings, true);
    corral_handle_scope scope = corral_handle_scope_open();
    /* A reference array too big for one mark slice, in the LOS. */
    corral_handle array = corral_handle_new(corral_alloc_array(&ref_array_type, 5000));
    for (int i = 0; i < 5000; i++) {
        node *n = corral_alloc(&node_type);
        n->value = i;
        ((void **)((char *)*array + sizeof(corral_array_header)))[i] = n;
    }
    corral_handle numbers = corral_handle_new(corral_alloc_array(&long_array_type, 100));
    for (int i = 0; i < 100; i++)
        ((long *)((char *)*numbers + sizeof(corral_array_header)))[i] = i * 7;
    corral_collect();
    corral_collect();
    long sum = 0;
    for (int i = 0; i < 5000; i++)
        sum += ((node *)((void **)((char *)*array + sizeof(corral_array_header)))[i])->value;
    is_int(sum, 5000L * 4999 / 2, "every element of a large reference array survives");
    long products = 0;
    for (int i = 0; i < 100; i++)
        products += ((long *)((char *)*numbers + sizeof(corral_array_header)))[i];
    is_int(products, 7L * 99 * 100 / 2, "a data array survives and moves intact");
    is_int(((corral_array_header *)*array)->length, 5000, "array length kept");
    corral_handle_scope_close(scope);
}

/* A layout only a trace hook describes: the first `references` slots hold
 * references, the others odd numbers, which the verifier would report as
 * misaligned references if the collector visited them. */
typedef struct traced {
    corral_header header;
    long references;
    void *slots[4];
} traced;

static void trace_traced(void *object, corral_visit_fn visit, void *context)
{
    traced *t = object;
    for (long i = 0; i < t->references; i++)
        visit(&t->slots[i], context);
}

static const corral_type traced_type = {CORRAL_TYPE_SIGNATURE, "traced", sizeof(traced), 0, 0,
                                        0, NULL, trace_traced, NULL, 0, NULL};

enum { TRACED_CHAIN = 3000 };

/* A chain of traced objects (slot 0 the next, slot 1 a node when there are
 * two references) with garbage between them, so every collection marks
 * through the hook and moves what it points at and from. */
static void trace_hooks(void *arg)
{
    test_start(arg, true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle head = corral_handle_new(NULL);
    for (long i = 0; i < TRACED_CHAIN; i++) {
        corral_handle_scope inner = corral_handle_scope_open();
        corral_handle t = corral_handle_new(corral_alloc(&traced_type));
        ((traced *)*t)->references = 1 + i % 2;
        corral_store_ref(*t, (corral_ref *)&((traced *)*t)->slots[0], *head);
        if (i % 2) {
            node *n = corral_alloc(&node_type);
            n->value = i;
            corral_store_ref(*t, (corral_ref *)&((traced *)*t)->slots[1], n);
        } else {
            ((traced *)*t)->slots[1] = (void *)(uintptr_t)(2 * i + 1);
        }
        for (int k = 2; k < 4; k++)
            ((traced *)*t)->slots[k] = (void *)(uintptr_t)(2 * i + 1);
        *head = *t;
        make_tree(3); /* garbage between the chain's objects */
        corral_handle_scope_close(inner);
        if (i % 1000 == 999)
            corral_collect();
    }
    corral_collect();
    corral_collect();
    long length = 0, node_sum = 0, odd_sum = 0, expected_nodes = 0, expected_odd = 0;
    for (traced *t = *head; t; t = t->slots[0]) {
        long i = TRACED_CHAIN - 1 - length++;
        if (t->references == 2)
            node_sum += ((node *)t->slots[1])->value;
        else
            odd_sum += (long)(uintptr_t)t->slots[1];
        odd_sum += (long)(uintptr_t)t->slots[2] + (long)(uintptr_t)t->slots[3];
        expected_nodes += i % 2 ? i : 0;
        expected_odd += (i % 2 ? 2 : 3) * (2 * i + 1);
    }
    is_int(length, TRACED_CHAIN, "the whole chain survives");
    is_int(node_sum, expected_nodes, "every node reached only through a hook survives");
    is_int(odd_sum, expected_odd, "the slots the hook skips are left alone");
    corral_handle_scope_close(scope);
}

static void pins_weak_and_globals(void *arg)
{
    const char *settings = arg;
    test_start(settings, true);
    static node *global;
    corral_global_root_add((corral_ref *)&global);
    corral_handle_scope scope = corral_handle_scope_open();
    /* Garbage first, so live objects after it have somewhere to slide. */
    make_tree(12);
    global = make_tree(6);
    node *pinned = corral_alloc(&node_type);
    pinned->value = 4242;
    corral_pin(pinned);
    corral_weak *dies = corral_weak_new(corral_alloc(&node_type));
    corral_handle kept = corral_handle_new(corral_alloc(&node_type));
    corral_weak *lives = corral_weak_new(*kept);
    make_tree(12);
    corral_collect();
    ok(corral_weak_get(dies) == NULL, "a weak handle to garbage is cleared");
    ok(corral_weak_get(lives) == *kept, "a weak handle to a live object follows it");
    ok(pinned->value == 4242, "a pinned object stays where it was");
    is_int(checksum(global), expected_checksum(6), "a global root keeps its tree");
    corral_unpin(pinned);
    corral_weak_free(dies);
    corral_weak_free(lives);
    corral_global_root_remove((corral_ref *)&global);
    corral_handle_scope_close(scope);
}

static int finalized;
static void note_finalized(void *object)
{
    finalized += ((node *)object)->value;
}

static const corral_type finalizable_type = {CORRAL_TYPE_SIGNATURE, "finalizable", sizeof(node), 0,
                                             CORRAL_TYPE_FINALIZABLE, 2, node_refs, 0,
                                             note_finalized, 0, 0};

static void finalizers_run(void *arg)
{
    test_start(arg, true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle kept = corral_handle_new(corral_alloc(&finalizable_type));
    ((node *)*kept)->value = 1000;
    for (int i = 1; i <= 10; i++)
        ((node *)corral_alloc(&finalizable_type))->value = i;
    corral_collect();
    is_int(finalized, 55, "the finalizers of the ten dead objects ran once each");
    corral_collect();
    is_int(finalized, 55, "and not again");
    corral_handle_scope_close(scope);
}

static size_t oom_request;
static void oom_handler(size_t request, size_t heap_bytes, size_t live)
{
    (void)heap_bytes;
    (void)live;
    oom_request = request;
}

static void out_of_memory(void *arg)
{
    test_start(arg, true);
    corral_set_oom_handler(oom_handler);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle list = corral_handle_new(NULL);
    void *result = (void *)1;
    for (int i = 0; i < 1000000 && result; i++) {
        result = corral_alloc_array(&ref_array_type, 1000);
        if (result) {
            ((void **)((char *)result + sizeof(corral_array_header)))[0] = *list;
            *list = result;
        }
    }
    ok(result == NULL, "allocation returns NULL once live data exceeds CORRAL_HEAP_MAX");
    ok(oom_request > 0, "the out-of-memory handler ran (request %zu bytes)", oom_request);
    corral_handle_scope_close(scope);
}

static unsigned last_gc_workers;
static uint64_t last_gc_heap_before;
static void note_workers(const corral_gc_info *info, void *context)
{
    (void)context;
    last_gc_workers = info->workers;
    last_gc_heap_before = info->heap_before;
}

typedef struct workers_case {
    const char *settings;
    unsigned empty_heap, megabyte_heap; /* workers expected for each GC */
} workers_case;

/* A GC wakes one worker per CORRAL_GC_HEAP_PER_WORKER bytes of heap, within the pool. */
static void workers_follow_heap(void *arg)
{
    const workers_case *test = arg;
    test_start(test->settings, true);
    corral_set_gc_callback(note_workers, NULL);
    corral_collect();
    is_int(last_gc_workers, test->empty_heap, "workers for a GC of an empty heap");
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(make_tree(15));
    corral_collect();
    is_int(last_gc_workers, test->megabyte_heap, "workers for a GC of %llu KiB",
           (unsigned long long)last_gc_heap_before / 1024);
    ok(checksum(*keep) == expected_checksum(15), "tree intact");
    corral_handle_scope_close(scope);
}

int main(void)
{
    plan(15);
    tap_subtest("trees survive moving GCs, 1 worker", 60, trees_survive,
                &(trees_case){"CORRAL_GC_THREADS=1 CORRAL_GC_VERIFY=before,after,remark", true});
    tap_subtest("trees survive moving GCs, 2 workers", 60, trees_survive,
                &(trees_case){"CORRAL_GC_THREADS=2 CORRAL_GC_VERIFY=after", true});
    tap_subtest("trees survive moving GCs, 4 workers, move-all, poison", 60, trees_survive,
                &(trees_case){"CORRAL_GC_THREADS=4 CORRAL_GC_STRESS=move-all,poison "
                              "CORRAL_GC_VERIFY=after",
                              true});
    tap_subtest("trees survive stress alloc:500", 60, trees_survive,
                &(trees_case){"CORRAL_GC_THREADS=2 CORRAL_GC_STRESS=alloc:500,move-all", false});
    tap_subtest("arrays and large objects", 60, arrays_and_large_objects,
                "CORRAL_GC_THREADS=2 CORRAL_GC_VERIFY=before,after");
    tap_subtest("reference arrays in the heap, marked in slices, moved", 60,
                arrays_and_large_objects,
                "CORRAL_GC_THREADS=2 CORRAL_LARGE_OBJECT_SIZE=64K CORRAL_GC_STRESS=move-all "
                "CORRAL_GC_VERIFY=before,after,remark");
    tap_subtest("types with a trace hook, 1 worker", 60, trace_hooks,
                "CORRAL_GC_THREADS=1 CORRAL_GC_STRESS=move-all,poison "
                "CORRAL_GC_VERIFY=before,after,remark");
    tap_subtest("types with a trace hook, 3 workers, generational", 60, trace_hooks,
                "CORRAL_GC_THREADS=3 CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:700,mixed:3 "
                "CORRAL_GC_VERIFY=before,after");
    tap_subtest("pins, weak handles, global roots", 60, pins_weak_and_globals,
                "CORRAL_GC_THREADS=2 CORRAL_GC_STRESS=move-all CORRAL_GC_VERIFY=after");
    tap_subtest("finalizers run once after the restart", 60, finalizers_run,
                "CORRAL_GC_THREADS=2");
    tap_subtest("out of memory takes the handler path", 60, out_of_memory,
                "CORRAL_HEAP_MIN=4M CORRAL_HEAP_MAX=8M");
    tap_subtest("tiny TLABs and large-object threshold", 60, trees_survive,
                &(trees_case){"CORRAL_TLAB_SIZE=4K CORRAL_LARGE_OBJECT_SIZE=1K CORRAL_HEAP_MIN=1M "
                              "CORRAL_GC_STRESS=poison CORRAL_GC_VERIFY=after",
                              false});
    tap_subtest("an explicit worker count wakes every worker", 60, workers_follow_heap,
                &(workers_case){"CORRAL_GC_THREADS=4", 4, 4});
    tap_subtest("workers follow the heap size", 60, workers_follow_heap,
                &(workers_case){"CORRAL_GC_THREADS=4 CORRAL_GC_HEAP_PER_WORKER=256K", 1, 4});
    tap_subtest("auto workers: one for a small heap", 60, workers_follow_heap,
                &(workers_case){"", 1, 1});
    return done_testing();
}
