/* The generational collector (CORRAL_GC_GENERATIONAL=1) from plain C: minor
 * collections reclaim young garbage and keep what old objects reference
 * through corral_store_ref (heap objects and large arrays), clear weak
 * handles and run finalizers of dead young objects, never move anything;
 * major collections keep the old generation old; the verifier names a store
 * that skipped the barrier. Each case runs in its own forked child. */
#include <corral.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "c_trees.h"
#include "corral_test.h"

static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("ref[]");

#define GENERATIONAL "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_VERIFY=before,after "

static corral_stats stats_now(void)
{
    corral_stats stats;
    corral_get_stats(&stats);
    return stats;
}

/* A node with value and no children, stored nowhere yet. */
static node *leaf(long value)
{
    node *n = corral_alloc(&node_type);
    n->value = value;
    return n;
}

static void young_garbage_reclaimed(void *arg)
{
    test_start(arg, true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(make_tree(12));
    for (int i = 0; i < 400000; i++)
        leaf(i); /* 32 bytes each: 12 MiB of garbage through a 1 MiB nursery */
    corral_stats stats = stats_now();
    ok(stats.minor_collections >= 8, "minor collections ran (%llu of %llu)",
       (unsigned long long)stats.minor_collections, (unsigned long long)stats.collections);
    ok(stats.collections - stats.minor_collections <= 1, "at most one major (%llu)",
       (unsigned long long)(stats.collections - stats.minor_collections));
    ok(stats.live_bytes < ((uint64_t)4 << 20), "the old space stays small (%llu bytes)",
       (unsigned long long)stats.live_bytes);
    is_int(checksum(*keep), expected_checksum(12), "the tree built across minor GCs is intact");
    corral_handle_scope_close(scope);
}

static void old_to_young_kept(void *arg)
{
    test_start(arg, true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle old = corral_handle_new(make_tree(10));
    corral_collect(); /* now every node of it is old */
    uint64_t minors = stats_now().minor_collections;
    bool intact = true;
    for (int round = 0; round < 50 && intact; round++) {
        node *young = leaf(1000 + round);
        node *parent = ((node *)*old)->left;
        corral_store_ref(parent, (corral_ref *)&parent->right, young);
        young = NULL; /* only the old parent holds it now */
        for (int i = 0; i < 2000; i++)
            leaf(i);
        corral_collect_young();
        parent = ((node *)*old)->left;
        intact = parent->right && parent->right->value == 1000 + round;
        if (round % 10 == 9)
            corral_collect(); /* a major GC between minors: marks rebuilt after compaction */
    }
    ok(intact, "a young node stored into an old one with corral_store_ref survives minor GCs");
    ok(stats_now().minor_collections >= minors + 40, "corral_collect_young ran minor GCs");
    void *before = *old;
    corral_collect_young();
    ok(*old == before, "a minor collection moves nothing");
    corral_handle_scope_close(scope);
}

static int finalized;
static void note_finalized(void *object)
{
    finalized += (int)((node *)object)->value;
}
static const corral_type finalizable_type = {CORRAL_TYPE_SIGNATURE, "finalizable", sizeof(node), 0,
                                             CORRAL_TYPE_FINALIZABLE, 2, node_refs, 0,
                                             note_finalized, 0, 0};

static void weak_and_finalizers(void *arg)
{
    test_start(arg, true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle old = corral_handle_new(leaf(7));
    corral_collect();
    corral_weak *weak_old = corral_weak_new(*old);
    corral_weak *weak_young = corral_weak_new(leaf(8));
    for (int i = 1; i <= 10; i++)
        ((node *)corral_alloc(&finalizable_type))->value = i;
    corral_collect_young();
    ok(corral_weak_get(weak_young) == NULL, "a weak handle to a dead young object is cleared");
    ok(corral_weak_get(weak_old) == *old, "a weak handle to a live old object is kept");
    is_int(finalized, 55, "the finalizers of ten dead young objects ran once each");
    ok(stats_now().minor_collections == 1, "by a minor collection");
    corral_weak_free(weak_old);
    corral_weak_free(weak_young);
    corral_handle_scope_close(scope);
}

static void large_objects(void *arg)
{
    test_start(arg, true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle array = corral_handle_new(corral_alloc_array(&ref_array_type, 5000));
    corral_collect(); /* the array is old */
    corral_weak *young_large = corral_weak_new(corral_alloc_array(&ref_array_type, 5000));
    node *young = leaf(42);
    corral_ref *slots = (corral_ref *)((char *)*array + ref_array_type.size);
    corral_store_ref(*array, &slots[4000], young);
    young = NULL;
    corral_collect_young();
    ok(corral_weak_get(young_large) == NULL, "a dead young large object dies in a minor GC");
    slots = (corral_ref *)((char *)*array + ref_array_type.size);
    ok(slots[4000] && ((node *)slots[4000])->value == 42,
       "an old large array's element keeps its young referent (the array's own cards)");
    corral_weak_free(young_large);
    corral_handle_scope_close(scope);
}

/* CORRAL_GC_PROMOTE_AFTER=N: an object that survived N - 1 minor
 * collections is still young, so the next one reclaims it once unreachable;
 * then it is old, and only a major one does. The references that keep an
 * aging object alive from old ones stay remembered: one stored before it
 * aged, and one held by an object promoted while its referent ages (the
 * verifier checks the cards before and after each collection). */
static void aging(void *arg)
{
    test_start(arg, true);
    long promote_after = strtol(getenv("CORRAL_GC_PROMOTE_AFTER"), NULL, 10);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle old = corral_handle_new(leaf(1));
    corral_collect();
    corral_handle held = corral_handle_new(leaf(2));
    corral_weak *weak = corral_weak_new(*held);
    corral_collect_young();
    *held = NULL;
    corral_collect_young();
    if (promote_after == 2)
        ok(corral_weak_get(weak) == NULL, "an object dead after one survival dies young");
    else
        ok(corral_weak_get(weak) != NULL, "an object that survived a minor collection is old");
    corral_collect();
    ok(corral_weak_get(weak) == NULL, "a major collection reclaims it");
    corral_weak_free(weak);

    node *parent = leaf(10);
    corral_store_ref(*old, (corral_ref *)&((node *)*old)->left, parent);
    corral_collect_young(); /* parent ages (or is old): the old node's card stays dirty */
    parent = ((node *)*old)->left;
    corral_store_ref(parent, (corral_ref *)&parent->left, leaf(11));
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 1000; i++)
            leaf(i); /* garbage between the survivors */
        corral_collect_young(); /* the parent becomes old while its child ages */
    }
    parent = ((node *)*old)->left;
    ok(parent->value == 10 && parent->left && parent->left->value == 11,
       "an aging object held only by old ones survives every minor collection");
    corral_stats stats = stats_now();
    ok(stats.promoted_bytes > 0 && stats.promoted_bytes < ((uint64_t)1 << 20),
       "promoted bytes counted: survivors only (%llu)", (unsigned long long)stats.promoted_bytes);
    corral_handle_scope_close(scope);
}

/* Several mutators rewire the slots of one old array to young trees while
 * minor collections (parallel card scanning on several GC workers) run;
 * every slot must hold an intact tree at the end. */
enum { MUTATORS = 4, SHARED_SLOTS = 512, ROUNDS = 300 };
static corral_ref shared_array; /* a global root */
static atomic_int broken;

static void *rewire(void *arg)
{
    int id = (int)(intptr_t)arg;
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    for (int round = 0; round < ROUNDS; round++) {
        int slot = (id + round * MUTATORS) % SHARED_SLOTS;
        node *tree = make_tree(4 + round % 3);
        corral_ref *slots = (corral_ref *)((char *)shared_array + ref_array_type.size);
        corral_store_ref(shared_array, &slots[slot], tree);
        corral_poll();
    }
    corral_thread_detach();
    return NULL;
}

static void threads_rewire_old_array(void *arg)
{
    test_start(arg, true);
    shared_array = corral_alloc_array(&ref_array_type, SHARED_SLOTS);
    corral_global_root_add(&shared_array);
    corral_collect(); /* old from now on */
    corral_enter_unmanaged();
    pthread_t threads[MUTATORS];
    for (int i = 0; i < MUTATORS; i++)
        pthread_create(&threads[i], NULL, rewire, (void *)(intptr_t)i);
    for (int i = 0; i < MUTATORS; i++)
        pthread_join(threads[i], NULL);
    corral_leave_unmanaged();
    corral_collect_young();
    corral_ref *slots = (corral_ref *)((char *)shared_array + ref_array_type.size);
    int filled = 0;
    for (int i = 0; i < SHARED_SLOTS; i++) {
        if (!slots[i])
            continue;
        filled++;
        long sum = checksum(slots[i]);
        if (sum != expected_checksum(4) && sum != expected_checksum(5) &&
            sum != expected_checksum(6))
            atomic_fetch_add(&broken, 1);
    }
    is_int(filled, SHARED_SLOTS, "every slot of the old array holds a tree");
    is_int(atomic_load(&broken), 0, "every tree stored into the old array is intact");
    ok(stats_now().minor_collections > 0, "minor collections ran meanwhile (%llu)",
       (unsigned long long)stats_now().minor_collections);
    corral_global_root_remove(&shared_array);
}

/* The sweep keeps its per-piece arrays from one minor collection to the
 * next. Young memory that alternates between many regions and one must
 * reuse them, not leak them: malloc's bytes in use stay flat (under ASan,
 * whose allocator mallinfo2 does not see, tap_subtest's leak check). */
static void sweep_arrays_reused(void *arg)
{
    test_start(arg, true);
    enum { WARM_UP = 20, ROUNDS = 400 };
    size_t in_use_after_warm_up = 0;
    for (int round = 0; round < WARM_UP + ROUNDS; round++) {
        /* Odd rounds: 2 MiB of garbage, young memory over eight regions;
         * even rounds: one leaf, one region. */
        int leaves = round % 2 ? 65536 : 1;
        for (int i = 0; i < leaves; i++)
            leaf(i);
        corral_collect_young();
        if (round == WARM_UP - 1)
            in_use_after_warm_up = mallinfo2().uordblks;
    }
    size_t in_use = mallinfo2().uordblks;
    size_t growth = in_use > in_use_after_warm_up ? in_use - in_use_after_warm_up : 0;
    if (!TAP_UNDER_ASAN)
        ok(growth < 16384, "malloc'ed bytes flat over %d minor collections (grew %zu)", ROUNDS,
           growth);
    ok(stats_now().minor_collections >= WARM_UP + ROUNDS, "every collection was minor");
}

/* Minor collections between these bytes of young garbage. */
static uint64_t minors_over(size_t garbage_bytes)
{
    uint64_t before = stats_now().minor_collections;
    for (size_t i = 0; i < garbage_bytes / 32; i++)
        leaf((long)i); /* 32 bytes each */
    return stats_now().minor_collections - before;
}

/* One GC worker: the auto nursery is the old space's size, from 4 to 16
 * MiB; the heap limit (256 MiB) never binds. */
static void nursery_follows_old_space(void *arg)
{
    test_start(arg, true);
    corral_handle_scope scope = corral_handle_scope_open();
    uint64_t minors = minors_over((size_t)48 << 20);
    ok(minors >= 10 && minors <= 13, "no old space: a 4 MiB nursery (%llu minor GCs over 48 MiB)",
       (unsigned long long)minors);
    corral_handle keep = corral_handle_new(make_tree(17)); /* 8 MiB of 32-byte nodes */
    corral_collect();
    minors = minors_over((size_t)48 << 20);
    ok(minors >= 5 && minors <= 7, "an 8 MiB old space: an 8 MiB nursery (%llu minor GCs)",
       (unsigned long long)minors);
    corral_handle more = corral_handle_new(make_tree(18)); /* 16 MiB more */
    corral_collect();
    minors = minors_over((size_t)48 << 20);
    ok(minors >= 2 && minors <= 4, "a 24 MiB old space: the 16 MiB cap (%llu minor GCs)",
       (unsigned long long)minors);
    is_int(checksum(*keep) + checksum(*more), expected_checksum(17) + expected_checksum(18),
           "the old trees are intact");
    corral_handle_scope_close(scope);
}

/* Each minor collection's heap before and after, as the GC callback sees it. */
enum { RECORDED_MINORS = 4 };
static _Atomic int minors_seen;
static uint64_t minor_heap_before[RECORDED_MINORS], minor_heap_after[RECORDED_MINORS];

static void record_minor(const corral_gc_info *info, void *context)
{
    (void)context;
    if (info->minor != 1)
        return;
    int i = atomic_fetch_add(&minors_seen, 1);
    if (i < RECORDED_MINORS) {
        minor_heap_before[i] = info->heap_before;
        minor_heap_after[i] = info->heap_after;
    }
}

/* Keeps a tree of 2^depth - 1 32-byte nodes through this many minor
 * collections (allocating garbage), then drops it. */
static void tree_through_minors(int depth, uint64_t minors)
{
    corral_handle tree = corral_handle_new(make_tree(depth));
    uint64_t until = stats_now().minor_collections + minors;
    while (stats_now().minor_collections < until)
        for (int i = 0; i < 1024; i++)
            leaf(i);
    *tree = NULL;
}

/* How the last minor collection's aging went before the measured one. */
typedef enum aging_before_measure {
    AGING_DIED,     /* an 8 MiB tree aged, then died young */
    AGING_PROMOTED, /* a 2 MiB tree aged, then became old */
} aging_before_measure;

/* A fixed 16 MiB nursery under a 16 MiB heap limit (CORRAL_HEAP_MIN, and
 * CORRAL_HEAP_EXPANSIVENESS=0 so no major collection raises it): an 8 MiB
 * tree survives a minor collection and is kept young one more (aging).
 * What ages dies or becomes old at the next one, as in a survivor space,
 * so the heap may pass the limit by it when two things hold: the heap has
 * been larger (held_before: a 32 MiB tree built and dropped first), and
 * what aged before died young. Then the whole 16 MiB is allocated before
 * the next minor collection. In a heap never larger (as in a growth phase)
 * the limit holds: 8 MiB, what it leaves beside the tree; and after what
 * aged became old, about 6 MiB (the 2 MiB tree is old by then). */
static void aging_room_under_limit(bool held_before, aging_before_measure before)
{
    const double mib = 1 << 20;
    corral_handle_scope scope = corral_handle_scope_open();
    if (held_before) {
        corral_handle big = corral_handle_new(make_tree(19)); /* 32 MiB */
        corral_collect();
        *big = NULL;
        corral_collect(); /* nothing live: the limit is 16 MiB again */
    }
    if (before == AGING_DIED)
        tree_through_minors(17, 1);
    else
        tree_through_minors(15, 2);
    corral_stats before_measure = stats_now();
    uint64_t majors_before = before_measure.collections - before_measure.minor_collections;
    corral_set_gc_callback(record_minor, NULL);
    corral_handle tree = corral_handle_new(make_tree(17)); /* 8 MiB of 32-byte nodes */
    while (atomic_load(&minors_seen) < 1)
        leaf(0);
    is_int(checksum(*tree), expected_checksum(17), "the tree survived a minor collection");
    *tree = NULL;
    while (atomic_load(&minors_seen) < 2)
        leaf(0);
    double old = before == AGING_DIED ? 0 : 2;
    double aging = (double)minor_heap_after[0] / mib - old;
    double allocated = (double)(minor_heap_before[1] - minor_heap_after[0]) / mib;
    ok(aging >= 7.5 && aging <= 9, "the first kept the tree young: %.2f MiB after it", aging);
    if (held_before && before == AGING_DIED)
        ok(allocated >= 15 && allocated <= 17,
           "the whole nursery was allocated before the second: %.2f MiB", allocated);
    else
        ok(allocated >= 8 - old - 1 && allocated <= 8 - old + 1,
           "the limit less the tree was allocated before the second: %.2f MiB", allocated);
    ok(minor_heap_after[1] < (old + 1) * mib, "where the tree died young: %.2f MiB after it",
       (double)minor_heap_after[1] / mib);
    corral_stats stats = stats_now();
    is_int((long)(stats.collections - stats.minor_collections - majors_before), 0,
           "no major collection ran");
    corral_handle_scope_close(scope);
}

static void aging_room_once_held(void *arg)
{
    test_start(arg, true);
    aging_room_under_limit(true, AGING_DIED);
}

static void aging_room_while_growing(void *arg)
{
    test_start(arg, true);
    aging_room_under_limit(false, AGING_DIED);
}

static void aging_room_after_promotion(void *arg)
{
    test_start(arg, true);
    aging_room_under_limit(true, AGING_PROMOTED);
}

#define AGING_UNDER_LIMIT                                                                        \
    "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_THREADS=1 CORRAL_GC_NURSERY=16M CORRAL_HEAP_MIN=16M "   \
    "CORRAL_HEAP_MAX=256M CORRAL_HEAP_EXPANSIVENESS=0"

/* Minor collections while a list of this many bytes of 32-byte nodes is
 * built and kept (every young node survives), and its length. */
static uint64_t minors_building_list(corral_handle head, size_t bytes, long *length)
{
    uint64_t before = stats_now().minor_collections;
    for (size_t i = 0; i < bytes / 32; i++) {
        node *n = leaf((long)i);
        corral_store_ref(n, (corral_ref *)&n->left, *head);
        *head = n;
    }
    *length = 0;
    for (node *n = *head; n; n = n->left)
        (*length)++;
    return stats_now().minor_collections - before;
}

/* CORRAL_GC_PAUSE_GOAL_US=1000, one worker, a heap limit that never binds:
 * garbage keeps the auto nursery (4 MiB), since nothing survives to measure
 * marking by; a list whose every node survives measures it, and the nursery
 * shrinks to what marking twice its size (aging) and sweeping it takes in
 * a millisecond: about 0.7 MiB here, 4 MiB would take several. */
static void pause_goal_shrinks_nursery(void *arg)
{
    test_start(arg, true);
    corral_handle_scope scope = corral_handle_scope_open();
    uint64_t garbage = minors_over((size_t)48 << 20);
    ok(garbage >= 8 && garbage <= 24, "garbage: about the 4 MiB auto nursery (%llu minor GCs "
       "over 48 MiB)", (unsigned long long)garbage);
    corral_handle head = corral_handle_new(NULL);
    long length;
    uint64_t building = minors_building_list(head, (size_t)48 << 20, &length);
    ok(building >= 2 * garbage, "a surviving list: a smaller nursery (%llu minor GCs over "
       "48 MiB, against %llu)", (unsigned long long)building, (unsigned long long)garbage);
    is_int(length, (long)(((size_t)48 << 20) / 32), "the list built across them is whole");
    corral_handle_scope_close(scope);
}

/* CORRAL_GC_PAUSE_GOAL_US sizes the auto nursery: with CORRAL_GC_NURSERY, or
 * without generations, it is a configuration error naming the goal and what
 * is wrong. */
typedef struct refused_goal {
    const char *settings;
    const char *named; /* what the error must name besides the goal */
} refused_goal;

static void pause_goal_refused(void *arg)
{
    const refused_goal *goal = arg;
    run_setenv_list(goal->settings);
    int status = corral_init(NULL);
    ok(status == CORRAL_ERROR_CONFIG, "corral_init refuses it (status %d)", status);
    const char *error = corral_last_error();
    ok(strstr(error, "CORRAL_GC_PAUSE_GOAL_US=500") && strstr(error, goal->named),
       "the error names the goal and %s: %s", goal->named, error);
}

/* Stores a young node into an old one without the barrier, then collects
 * young: the verifier must name the object, its type and the slot. */
static void store_without_barrier(void *context)
{
    (void)context;
    test_start(GENERATIONAL, true);
    corral_handle_scope_open();
    corral_handle old = corral_handle_new(leaf(1));
    corral_collect();
    ((node *)*old)->left = leaf(2); /* the bug: a plain store into an old object */
    corral_collect_young();
    printf("not caught\n");
}

/* Two minor collections of a 2 MiB tree with aging, logged with their
 * phases: the first keeps it young, the second promotes it. */
static void log_two_survivals(void *context)
{
    (void)context;
    run_setenv_list("CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=2 CORRAL_GC_THREADS=1 "
                    "CORRAL_LOG=gc,phases");
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        bail_out("init: %s", corral_last_error());
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle tree = corral_handle_new(make_tree(16));
    corral_collect_young();
    corral_collect_young();
    printf("checksum ok: %d\n", checksum(*tree) == expected_checksum(16));
    corral_handle_scope_close(scope);
}

static void stress_minor_needs_generational(void *context)
{
    (void)context;
    run_setenv_list("CORRAL_GC_STRESS=minor");
    if (corral_init(NULL) != 0)
        printf("init failed: %s\n", corral_last_error());
}

int main(void)
{
    plan(20);
    tap_subtest("young garbage is reclaimed by minor collections", 60, young_garbage_reclaimed,
                GENERATIONAL "CORRAL_GC_NURSERY=1M");
    tap_subtest("old-to-young stores survive minor collections", 60, old_to_young_kept,
                GENERATIONAL "CORRAL_GC_STRESS=poison");
    tap_subtest("old-to-young stores, 4 workers, move-all", 60, old_to_young_kept,
                GENERATIONAL "CORRAL_GC_THREADS=4 CORRAL_GC_STRESS=move-all,poison");
    tap_subtest("weak handles and finalizers of young objects", 60, weak_and_finalizers,
                GENERATIONAL);
    tap_subtest("large objects young and old", 60, large_objects, GENERATIONAL);
    tap_subtest("promoted after two minor collections", 60, aging,
                GENERATIONAL "CORRAL_GC_PROMOTE_AFTER=2 CORRAL_GC_STRESS=poison");
    tap_subtest("promoted after one minor collection", 60, aging,
                GENERATIONAL "CORRAL_GC_PROMOTE_AFTER=1 CORRAL_GC_STRESS=poison");
    tap_subtest("4 mutators rewire an old array, 2 GC workers", 120, threads_rewire_old_array,
                GENERATIONAL "CORRAL_GC_THREADS=2 CORRAL_GC_NURSERY=256K");

    tap_subtest("sweep arrays reused as young memory shrinks and grows", 60, sweep_arrays_reused,
                GENERATIONAL "CORRAL_GC_STRESS=poison");

    tap_subtest("the auto nursery follows the old space", 60, nursery_follows_old_space,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_THREADS=1 CORRAL_HEAP_MIN=256M");
    tap_subtest("what ages may pass the heap limit, up to a heap once held, while it dies", 60,
                aging_room_once_held, AGING_UNDER_LIMIT);
    tap_subtest("what ages stays under the heap limit while the heap grows", 60,
                aging_room_while_growing, AGING_UNDER_LIMIT);
    tap_subtest("what ages stays under the heap limit after what aged became old", 60,
                aging_room_after_promotion, AGING_UNDER_LIMIT);
    tap_subtest("a pause goal shrinks the nursery while young data survives", 120,
                pause_goal_shrinks_nursery,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_THREADS=1 CORRAL_HEAP_MIN=256M "
                "CORRAL_GC_PAUSE_GOAL_US=1000");
    tap_subtest("a pause goal with a fixed nursery is a configuration error", 60,
                pause_goal_refused,
                &(refused_goal){"CORRAL_GC_GENERATIONAL=1 CORRAL_GC_NURSERY=8M "
                                "CORRAL_GC_PAUSE_GOAL_US=500",
                                "CORRAL_GC_NURSERY"});
    tap_subtest("a pause goal without generations is a configuration error", 60,
                pause_goal_refused,
                &(refused_goal){"CORRAL_GC_PAUSE_GOAL_US=500", "CORRAL_GC_GENERATIONAL=1"});

    run_result missing = run_child(store_without_barrier, NULL, 60);
    ok(WIFSIGNALED(missing.status) &&
           output_matches(missing.output,
                          "missing write barrier: old object 0x[0-9a-f]+ of type node holds "
                          "young 0x[0-9a-f]+ in its slot at offset 8 "),
       "CORRAL_GC_VERIFY=before names a store that skipped the barrier");
    if (!WIFSIGNALED(missing.status) || !strstr(missing.output, "missing write barrier"))
        show_output(&missing);
    free(missing.output);

    /* The log's promoted= printed the survivors, aging ones included. */
    run_result logged = run_child(log_two_survivals, NULL, 60);
    ok(exited_ok(&logged) && output_matches(logged.output, "checksum ok: 1") &&
           output_matches(logged.output, "^corral: gc 1 cause=explicit-young kind=minor .* "
                                         "survived=[1-9][0-9.]*M promoted=0\\.0M ") &&
           output_matches(logged.output, "^corral: gc 2 cause=explicit-young kind=minor .* "
                                         "survived=[1-9][0-9.]*M promoted=[1-9][0-9.]*M "),
       "the log tells survivors kept young from promoted ones");
    /* The sweep's parallel parts were run without statistics. */
    ok(output_matches(logged.output, "^corral: gc 2   phase sweep: workers 1 wall [0-9.]+ ms "
                                     "work [0-9.]*[1-9][0-9.]* ms"),
       "the phases log counts the minor sweep's workers and work");
    if (!exited_ok(&logged) || !strstr(logged.output, "promoted=0.0M"))
        show_output(&logged);
    free(logged.output);

    run_result config = run_child(stress_minor_needs_generational, NULL, 30);
    ok(output_matches(config.output,
                      "init failed: CORRAL_GC_STRESS=minor chooses minor collections, which "
                      "need CORRAL_GC_GENERATIONAL=1"),
       "CORRAL_GC_STRESS=minor without CORRAL_GC_GENERATIONAL=1 is refused at start");
    free(config.output);
    return done_testing();
}
