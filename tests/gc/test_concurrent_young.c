/* Concurrent minor collections (CORRAL_GC_CONCURRENT=1, young_marker.h)
 * from plain C: marking runs on its own thread between two pauses while
 * the program keeps storing, through corral_store_ref (which carries the
 * deletion barrier). Every case counts the stores it made while a
 * collection was marking (young_marker_open), so a case that never
 * overlapped marking fails instead of passing vacuously; the verifier
 * (before and after) and poison check the heap at each pause. Each case
 * runs in its own forked child. */
#include <corral.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "c_trees.h"
#include "corral_test.h"
#include "young_marker.h"

#define CONCURRENT                                                                           \
    "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_CONCURRENT=1 CORRAL_GC_VERIFY=before,after "         \
    "CORRAL_GC_STRESS=poison CORRAL_GC_NURSERY=256K "

static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("ref[]");

static corral_ref *elements(corral_ref array)
{
    return (corral_ref *)((char *)array + ref_array_type.size);
}

static node *leaf(long value)
{
    node *n = corral_alloc(&node_type);
    n->value = value;
    return n;
}

/* Pauses by kind, from the per-collection callback. */
static atomic_int first_pauses, whole_minors, majors;

static void count_pause(const corral_gc_info *info, void *context)
{
    (void)context;
    atomic_fetch_add(info->minor == 2 ? &first_pauses : info->minor ? &whole_minors : &majors, 1);
}

static void start(const char *settings)
{
    test_start(settings, true);
    corral_set_gc_callback(count_pause, NULL);
}

/* The snapshot's case: a young object reachable only through a young
 * holder is moved into an old array and the holder's slot cleared, while
 * marking runs. The array is old, so marking never traces it; only the
 * deletion barrier's log of the cleared slot keeps the object alive. */
static void moved_out_while_marking(void *arg)
{
    start(arg);
    corral_handle_scope scope = corral_handle_scope_open();
    enum { SLOTS = 64, ROUNDS = 20000 };
    corral_handle old = corral_handle_new(corral_alloc_array(&ref_array_type, SLOTS));
    corral_collect(); /* the array is old from now on */
    corral_handle holder = corral_handle_new(NULL);
    long overlapped = 0, broken = 0;
    for (long round = 0; round < ROUNDS; round++) {
        *holder = leaf(-1);
        corral_store_ref(*holder, (corral_ref *)&((node *)*holder)->left, make_tree(3));
        for (int i = 0; i < 8; i++)
            leaf(i); /* garbage: the nursery fills, collections start and end */
        if (young_marker_open())
            overlapped++;
        node *young = ((node *)*holder)->left;
        corral_store_ref(*old, &elements(*old)[round % SLOTS], young);
        corral_store_ref(*holder, (corral_ref *)&((node *)*holder)->left, NULL);
        *holder = NULL;
        node *check = elements(*old)[(round + SLOTS / 2) % SLOTS];
        if (check && checksum(check) != expected_checksum(3))
            broken++;
    }
    corral_collect_young();
    for (int i = 0; i < SLOTS; i++)
        if (checksum(elements(*old)[i]) != expected_checksum(3))
            broken++;
    ok(overlapped > 100, "%ld of %d rounds moved the object while a collection marked",
       overlapped, ROUNDS);
    is_int(broken, 0, "every tree moved into the old array is intact");
    ok(atomic_load(&first_pauses) >= 3 && atomic_load(&whole_minors) >= 3,
       "concurrent minor collections ran (%d first pauses, %d second)",
       atomic_load(&first_pauses), atomic_load(&whole_minors));
    corral_stats stats;
    corral_get_stats(&stats);
    ok(stats.minor_collections == (uint64_t)atomic_load(&whole_minors) &&
           stats.collections - stats.minor_collections == (uint64_t)atomic_load(&majors),
       "statistics count a concurrent collection once (%llu minor, %llu in all, %d major)",
       (unsigned long long)stats.minor_collections, (unsigned long long)stats.collections,
       atomic_load(&majors));
    corral_handle_scope_close(scope);
}

/* Several mutators rewire an old array with new trees while collections
 * mark, each reading back what it stored a lap before. */
enum { MUTATORS = 4, SHARED_SLOTS = 256, MUTATOR_ROUNDS = 2000 };
static corral_ref shared_array; /* a global root */
static atomic_long shared_overlapped, shared_broken;

static void *rewire(void *arg)
{
    int id = (int)(intptr_t)arg;
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    for (int round = 0; round < MUTATOR_ROUNDS; round++) {
        node *tree = make_tree(2 + round % 3);
        if (young_marker_open())
            atomic_fetch_add(&shared_overlapped, 1);
        /* Each thread its own slots (no data race between mutators); the
         * marker reads them all. */
        int slot = id + MUTATORS * (round % (SHARED_SLOTS / MUTATORS));
        node *previous = elements(shared_array)[slot];
        long sum = previous ? checksum(previous) : expected_checksum(2);
        corral_store_ref(shared_array, &elements(shared_array)[slot], tree);
        if (sum != expected_checksum(2) && sum != expected_checksum(3) &&
            sum != expected_checksum(4))
            atomic_fetch_add(&shared_broken, 1);
    }
    corral_thread_detach();
    return NULL;
}

static void threads_rewire_while_marking(void *arg)
{
    start(arg);
    shared_array = corral_alloc_array(&ref_array_type, SHARED_SLOTS);
    corral_global_root_add(&shared_array);
    corral_collect();
    corral_enter_unmanaged();
    pthread_t threads[MUTATORS];
    for (int i = 0; i < MUTATORS; i++)
        pthread_create(&threads[i], NULL, rewire, (void *)(intptr_t)i);
    for (int i = 0; i < MUTATORS; i++)
        pthread_join(threads[i], NULL);
    corral_leave_unmanaged();
    corral_collect_young();
    ok(atomic_load(&shared_overlapped) > 50, "%ld stores were made while a collection marked",
       atomic_load(&shared_overlapped));
    is_int(atomic_load(&shared_broken), 0, "every tree read back is intact");
    int filled = 0;
    for (int i = 0; i < SHARED_SLOTS; i++)
        filled += elements(shared_array)[i] != NULL;
    is_int(filled, SHARED_SLOTS, "every slot holds a tree");
    corral_global_root_remove(&shared_array);
}

/* Mutators that allocate faster than the marker marks reach the heap limit
 * while it marks, and mark beside it (young_marker_assist): several at once
 * share its grey objects through the pool, and a collection another thread
 * asks for meanwhile stops them with the marker. Each keeps young trees
 * that every collection must mark, and checks one a lap later. */
enum { ASSISTERS = 4, ASSIST_SLOTS = 32, ASSIST_ROUNDS = 400 };
static atomic_long assist_broken;

static void *fill_while_marking(void *arg)
{
    (void)arg;
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(corral_alloc_array(&ref_array_type, ASSIST_SLOTS));
    for (int round = 0; round < ASSIST_ROUNDS; round++) {
        node *tree = make_tree(9); /* before *keep is read: a major collection moves it */
        corral_store_ref(*keep, &elements(*keep)[round % ASSIST_SLOTS], tree);
        for (int i = 0; i < 4; i++)
            make_tree(7); /* garbage, allocated while the trees are marked */
        node *later = elements(*keep)[(round + ASSIST_SLOTS / 2) % ASSIST_SLOTS];
        if (later && checksum(later) != expected_checksum(9))
            atomic_fetch_add(&assist_broken, 1);
    }
    for (int i = 0; i < ASSIST_SLOTS; i++)
        if (checksum(elements(*keep)[i]) != expected_checksum(9))
            atomic_fetch_add(&assist_broken, 1);
    corral_handle_scope_close(scope);
    corral_thread_detach();
    return NULL;
}

/* Runs ASSISTERS threads of fill_while_marking to the end. */
static void run_fillers(void)
{
    corral_enter_unmanaged();
    pthread_t threads[ASSISTERS];
    for (int i = 0; i < ASSISTERS; i++)
        pthread_create(&threads[i], NULL, fill_while_marking, NULL);
    for (int i = 0; i < ASSISTERS; i++)
        pthread_join(threads[i], NULL);
    corral_leave_unmanaged();
}

static void check_fillers(void)
{
    is_int(atomic_load(&assist_broken), 0, "every tree kept is intact");
    ok(atomic_load(&first_pauses) >= 3, "%d concurrent collections", atomic_load(&first_pauses));
}

static void mutators_assist_marking(void *arg)
{
    start(arg);
    run_fillers();
    corral_stats stats;
    corral_get_stats(&stats);
    ok(stats.marking_assists > 0 && stats.assist_marked_bytes > 0,
       "%llu allocations reached the limit while marking and marked %.1f MiB beside the marker",
       (unsigned long long)stats.marking_assists, (double)stats.assist_marked_bytes / 1048576.0);
    check_fillers();
}

/* Helper markers (CORRAL_GC_CONCURRENT_MARKERS=3: the marker and two
 * helpers) share the grey objects through the pool from the start of each
 * marking, beside any mutator that assists: the same mutators as above keep
 * young trees that every collection must mark. */
static void helpers_mark_beside(void *arg)
{
    start(arg);
    uint64_t helped_before = young_marker_helped_bytes();
    run_fillers();
    uint64_t helped = young_marker_helped_bytes() - helped_before;
    ok(helped > 0, "the helpers traced %.1f MiB beside the marker", (double)helped / 1048576.0);
    check_fillers();
}

/* What is allocated while marking is alive by birth: small objects, large
 * arrays and finalizable objects survive the collection that was marking,
 * finalizers do not run early, and the next minor collection reclaims them
 * once dead. A weak handle read while marking keeps its target. */
static atomic_int finalized;
static void note_finalized(void *object)
{
    (void)object;
    atomic_fetch_add(&finalized, 1);
}
static const corral_type finalizable_type = {CORRAL_TYPE_SIGNATURE, "finalizable", sizeof(node), 0,
                                             CORRAL_TYPE_FINALIZABLE, 2, node_refs, 0,
                                             note_finalized, 0, 0};

static void born_while_marking(void *arg)
{
    start(arg);
    corral_handle_scope scope = corral_handle_scope_open();
    enum { KEPT = 32 };
    corral_handle kept = corral_handle_new(corral_alloc_array(&ref_array_type, KEPT * 3));
    corral_collect();
    long overlapped = 0, weak_kept = 0;
    int made = 0;
    for (int round = 0; round < 20000 && made < KEPT; round++) {
        corral_weak *weak = corral_weak_new(make_tree(2));
        for (int i = 0; i < 16; i++)
            leaf(i);
        if (!young_marker_open())
            continue;
        overlapped++;
        /* Reached only weakly when marking began, strongly from now on. */
        node *target = corral_weak_get(weak);
        corral_weak_free(weak);
        if (!target)
            continue;
        weak_kept++;
        corral_store_ref(*kept, &elements(*kept)[made * 3], target);
        corral_store_ref(*kept, &elements(*kept)[made * 3 + 1],
                         corral_alloc_array(&ref_array_type, 4096)); /* a large object */
        node *final = corral_alloc(&finalizable_type);
        final->value = made;
        corral_store_ref(*kept, &elements(*kept)[made * 3 + 2], final);
        made++;
    }
    corral_collect_young();
    ok(overlapped > 0 && made == KEPT, "%d objects were made while a collection marked", made);
    int intact = 0;
    for (int i = 0; i < made; i++) {
        node *tree = elements(*kept)[i * 3];
        corral_ref large = elements(*kept)[i * 3 + 1];
        node *final = elements(*kept)[i * 3 + 2];
        intact += tree && checksum(tree) == expected_checksum(2) && large && final &&
                  final->value == i;
    }
    is_int(intact, made, "weak targets read, large arrays and finalizable objects all survive");
    is_int(atomic_load(&finalized), 0, "no finalizer ran for a live object");
    for (int i = 0; i < KEPT * 3; i++)
        corral_store_ref(*kept, &elements(*kept)[i], NULL);
    corral_collect_young();
    corral_collect(); /* finalizers run after it, on this thread */
    is_int(atomic_load(&finalized), made, "once dead, every finalizer runs once");
    ok(weak_kept > 0, "weak handles read while marking (%ld)", weak_kept);
    corral_handle_scope_close(scope);
}

/* A major collection while one is marking abandons the marking. */
static void major_while_marking(void *arg)
{
    start(arg);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle tree = corral_handle_new(make_tree(10));
    int abandoned = 0;
    for (int round = 0; round < 50000 && abandoned < 20; round++) {
        for (int i = 0; i < 64; i++)
            leaf(i);
        if (young_marker_open()) {
            corral_collect();
            abandoned++;
            if (young_marker_open())
                fail("a collection still marks after a major one");
        }
    }
    ok(abandoned == 20, "%d major collections ran while marking", abandoned);
    is_int(checksum(*tree), expected_checksum(10), "the tree is intact");
    corral_handle_scope_close(scope);
}

/* fork while marking: the child collects on its own, the parent goes on. */
static void fork_while_marking(void *arg)
{
    start(arg);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle tree = corral_handle_new(make_tree(8));
    int forks = 0, children_ok = 0;
    for (int round = 0; round < 5000 && forks < 5; round++) {
        for (int i = 0; i < 64; i++)
            leaf(i);
        if (!young_marker_open())
            continue;
        forks++;
        pid_t child = fork();
        if (child == 0) {
            for (int i = 0; i < 20000; i++)
                leaf(i);
            corral_collect_young();
            corral_collect();
            _exit(checksum(*tree) == expected_checksum(8) ? 0 : 1);
        }
        int status;
        waitpid(child, &status, 0);
        children_ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    ok(forks == 5, "forked %d times while marking", forks);
    is_int(children_ok, forks, "every child collected and found the tree intact");
    corral_collect_young();
    is_int(checksum(*tree), expected_checksum(8), "the parent's tree is intact");
    corral_handle_scope_close(scope);
}

static void refused(void *settings)
{
    run_setenv_list(settings);
    if (corral_init(NULL) != 0)
        printf("init failed: %s\n", corral_last_error());
}

static void config_refused(const char *settings, const char *message, const char *what)
{
    run_result result = run_child(refused, (void *)settings, 30);
    if (!ok(output_matches(result.output, message), "%s is refused at start", what))
        show_output(&result);
    free(result.output);
}

int main(void)
{
    plan(10);
    tap_subtest("a reference moved out of a young holder while marking", 120,
                moved_out_while_marking, CONCURRENT);
    tap_subtest("4 mutators rewire an old array while marking", 120,
                threads_rewire_while_marking, CONCURRENT "CORRAL_GC_THREADS=2");
    tap_subtest("4 mutators at the heap limit mark beside the marker", 120,
                mutators_assist_marking,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_CONCURRENT=1 CORRAL_GC_VERIFY=before,after "
                "CORRAL_GC_STRESS=poison CORRAL_HEAP_MIN=4M CORRAL_GC_THREADS=2");
    tap_subtest("two helper markers mark beside the marker", 120, helpers_mark_beside,
                CONCURRENT "CORRAL_GC_THREADS=2 CORRAL_GC_CONCURRENT_MARKERS=3");
    tap_subtest("objects born while marking are alive, weak reads keep their target", 120,
                born_while_marking, CONCURRENT "CORRAL_LARGE_OBJECT_SIZE=8K");
    tap_subtest("a major collection abandons the marking", 120, major_while_marking,
                CONCURRENT);
    if (TAP_UNDER_TSAN) { /* it cannot start threads after a multi-threaded fork */
        skip(2, "fork while marking: ThreadSanitizer dies when the child starts a thread");
    } else {
        tap_subtest("fork while marking", 120, fork_while_marking, CONCURRENT);
        /* The child has no helpers: it starts its own at its first marking. */
        tap_subtest("fork while marking, two helper markers", 120, fork_while_marking,
                    CONCURRENT "CORRAL_GC_CONCURRENT_MARKERS=3");
    }
    config_refused("CORRAL_GC_CONCURRENT=1",
                   "init failed: CORRAL_GC_CONCURRENT=1 marks minor collections concurrently: "
                   "it needs CORRAL_GC_GENERATIONAL=1",
                   "CORRAL_GC_CONCURRENT=1 without generations");
    config_refused("CORRAL_GC_GENERATIONAL=1 CORRAL_GC_CONCURRENT=1 CORRAL_GC_VERIFY=satb",
                   "init failed: CORRAL_GC_CONCURRENT=1 marks minor collections concurrently: "
                   "it cannot be combined with CORRAL_GC_VERIFY=satb",
                   "CORRAL_GC_CONCURRENT=1 with CORRAL_GC_VERIFY=satb");
    return done_testing();
}
