/* A heap of more than 10^6 objects of mixed shapes — small structs, objects
 * with many fields, reference arrays (some large, in the LOS), data arrays,
 * pinned, weakly referenced and finalizable objects, with garbage between
 * them — built from a seed, then collected by 1, 2 and 4 GC workers (each in
 * its own process). Every run must find the same object graph (checksum over
 * every reachable object and edge), the same number of reachable objects and
 * the same live bytes; the verifier runs after each GC; weak handles are
 * cleared exactly for the targets that died; pinned objects do not move. */
#include <corral.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "tap.h"

typedef struct small {
    corral_header header;
    void *a, *b;
    uint64_t id;
} small;

enum { WIDE_FIELDS = 8 };
typedef struct wide {
    corral_header header;
    void *field[WIDE_FIELDS];
    uint64_t id;
    uint64_t payload[3];
} wide;

static const uint32_t small_refs[] = {offsetof(small, a), offsetof(small, b)};
static const uint32_t wide_refs[] = {
    offsetof(wide, field[0]), offsetof(wide, field[1]), offsetof(wide, field[2]),
    offsetof(wide, field[3]), offsetof(wide, field[4]), offsetof(wide, field[5]),
    offsetof(wide, field[6]), offsetof(wide, field[7])};
static const corral_type small_type = CORRAL_STRUCT_TYPE("small", small, small_refs);
static const corral_type wide_type = CORRAL_STRUCT_TYPE("wide", wide, wide_refs);
static const corral_type refs_type = CORRAL_REF_ARRAY_TYPE("ref[]");
static const corral_type data_type = CORRAL_DATA_ARRAY_TYPE("u64[]", uint64_t);
static void count_finalized(void *object);
static const corral_type final_type = {CORRAL_TYPE_SIGNATURE, "finalizable", sizeof(small), 0,
                                       CORRAL_TYPE_FINALIZABLE, 2, small_refs, NULL,
                                       count_finalized, 0, 0};

enum { ROOTS = 4096, OBJECTS = 1100000, WEAKS = 2000, PINS = 64 };

static uint64_t rng;
static uint64_t next_random(void)
{
    return tap_random(&rng);
}

/* Every object carries an id so the graph can be compared after moves;
 * arrays keep theirs in element 0 (data) or in a small wrapper (refs). */
static uint64_t next_id = 1;
static int finalized;
static void count_finalized(void *object)
{
    (void)object;
    finalized++;
}

static uint64_t *array_words(void *array)
{
    return (uint64_t *)((char *)array + sizeof(corral_array_header));
}

/* A random existing object from the pool of roots (may be NULL). */
static void *pick(void **pool)
{
    return pool[next_random() % ROOTS];
}

static void *make_object(void **pool)
{
    uint64_t kind = next_random() % 100;
    if (kind < 70) {
        small *s = corral_alloc(kind < 2 ? &final_type : &small_type);
        s->id = next_id++;
        s->a = pick(pool);
        s->b = pick(pool);
        return s;
    }
    if (kind < 85) {
        wide *w = corral_alloc(&wide_type);
        w->id = next_id++;
        for (int i = 0; i < WIDE_FIELDS; i++)
            w->field[i] = next_random() % 3 ? pick(pool) : NULL;
        w->payload[0] = w->id * 3;
        return w;
    }
    if (kind < 95) {
        /* Reference arrays: 1 in 50 large enough for the large-object space. */
        uint64_t length = next_random() % 50 == 0 ? 2000 + next_random() % 2000 : 1 + next_random() % 30;
        void *array = corral_alloc_array(&refs_type, length);
        for (uint64_t i = 0; i < length; i++)
            ((void **)array_words(array))[i] = pick(pool);
        small *holder = corral_alloc(&small_type); /* carries the id */
        holder->id = next_id++;
        holder->a = array;
        holder->b = pick(pool);
        return holder;
    }
    uint64_t length = 1 + next_random() % 64;
    void *data = corral_alloc_array(&data_type, length);
    array_words(data)[0] = next_id++;
    for (uint64_t i = 1; i < length; i++)
        array_words(data)[i] = array_words(data)[0] * i;
    return data;
}

/* --- the graph checksum, by a traversal from the roots */

typedef struct graph_summary {
    uint64_t checksum;
    uint64_t reachable;
} graph_summary;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t object_id(void *object)
{
    const corral_type *type = ((corral_header *)object)->type;
    if (type == &small_type || type == &final_type)
        return ((small *)object)->id;
    if (type == &wide_type)
        return ((wide *)object)->id;
    if (type == &data_type)
        return array_words(object)[0];
    return 0; /* a reference array: identified through its holder */
}

/* Visited marks by address would break under moves: a side set keyed by
 * address is fine here because nothing moves during the traversal. */
typedef struct visited_set {
    void **slots;
    size_t capacity, count;
} visited_set;

static bool visit_once(visited_set *set, void *object)
{
    if ((set->count + 1) * 2 > set->capacity) {
        visited_set bigger = {calloc(set->capacity * 2, sizeof(void *)), set->capacity * 2, 0};
        for (size_t i = 0; i < set->capacity; i++)
            if (set->slots[i])
                visit_once(&bigger, set->slots[i]);
        free(set->slots);
        *set = bigger;
    }
    size_t mask = set->capacity - 1;
    for (size_t i = ((uintptr_t)object >> 3) * 0x9e3779b97f4a7c15ull >> 20 & mask;;
         i = (i + 1) & mask) {
        if (set->slots[i] == object)
            return false;
        if (!set->slots[i]) {
            set->slots[i] = object;
            set->count++;
            return true;
        }
    }
}

static graph_summary summarise(void **roots)
{
    visited_set set = {calloc(1 << 22, sizeof(void *)), 1 << 22, 0};
    size_t stack_capacity = 1 << 20, depth = 0;
    void **stack = malloc(stack_capacity * sizeof *stack);
    graph_summary summary = {0, 0};
    for (int r = 0; r < ROOTS; r++) {
        summary.checksum = mix(summary.checksum, roots[r] ? object_id(roots[r]) : 0);
        if (roots[r] && visit_once(&set, roots[r]))
            stack[depth++] = roots[r];
    }
    while (depth) {
        void *object = stack[--depth];
        summary.reachable++;
        const corral_type *type = ((corral_header *)object)->type;
        uint64_t h = object_id(object);
        void **children = NULL;
        uint64_t count = 0;
        if (type == &small_type || type == &final_type) {
            children = &((small *)object)->a;
            count = 2;
        } else if (type == &wide_type) {
            children = ((wide *)object)->field;
            count = WIDE_FIELDS;
            h = mix(h, ((wide *)object)->payload[0]);
        } else if (type == &refs_type) {
            children = (void **)array_words(object);
            count = ((corral_array_header *)object)->length;
        } else {
            uint64_t length = ((corral_array_header *)object)->length;
            for (uint64_t i = 0; i < length; i++)
                h = mix(h, array_words(object)[i]);
        }
        for (uint64_t i = 0; i < count; i++) {
            void *child = children[i];
            h = mix(h, child ? (object_id(child) ? object_id(child) : 1) : 0);
            if (child && visit_once(&set, child)) {
                if (depth == stack_capacity) {
                    stack_capacity *= 2;
                    stack = realloc(stack, stack_capacity * sizeof *stack);
                }
                stack[depth++] = child;
            }
        }
        summary.checksum = mix(summary.checksum, h);
    }
    free(stack);
    free(set.slots);
    return summary;
}

/* --- one run */

typedef struct run_result {
    graph_summary before, after;
    uint64_t live_bytes, marked_collections;
    int weak_wrong, pin_moved, finalized;
} run_result;

static uint64_t last_live_bytes, collections_seen;
static void on_gc(const corral_gc_info *info, void *context)
{
    (void)context;
    last_live_bytes = info->live_bytes;
    collections_seen++;
}

static void build_and_collect(unsigned workers, uint64_t seed, run_result *result)
{
    char value[16];
    snprintf(value, sizeof value, "%u", workers);
    setenv("CORRAL_GC_THREADS", value, 1);
    setenv("CORRAL_GC_VERIFY", "after", 1);
    setenv("CORRAL_GC_STRESS", "move-all", 1);
    setenv("CORRAL_HEAP_MIN", "256M", 1); /* no collection while building */
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        bail_out("corral: %s", corral_last_error());
    corral_set_gc_callback(on_gc, NULL);
    rng = seed;
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle pool_handle = corral_handle_new(corral_alloc_array(&refs_type, ROOTS));
    void **pool = (void **)array_words(*pool_handle);
    corral_weak *weaks[WEAKS];
    bool weak_should_live[WEAKS];
    void *pinned[PINS];
    uint64_t pinned_id[PINS];
    const corral_type *pinned_type[PINS];
    for (uint64_t i = 0; i < OBJECTS; i++) {
        pool = (void **)array_words(*pool_handle); /* the pool itself may move */
        void *object = make_object(pool);
        pool = (void **)array_words(*pool_handle);
        if (next_random() % 3 == 0)
            pool[next_random() % ROOTS] = object; /* keep it; what it replaces may die */
        if (i < WEAKS)
            weaks[i] = corral_weak_new(object);
        if (i >= WEAKS && i < WEAKS + PINS) {
            corral_pin(object);
            pinned[i - WEAKS] = object;
            pinned_id[i - WEAKS] = object_id(object);
            pinned_type[i - WEAKS] = ((corral_header *)object)->type;
        }
    }
    pool = (void **)array_words(*pool_handle);
    /* Pins keep their objects alive: they are roots of the comparison too. */
    result->before = summarise(pool);
    /* A weak target lives iff it is still reachable from the pool or pinned. */
    visited_set reach = {calloc(1 << 22, sizeof(void *)), 1 << 22, 0};
    {
        size_t capacity = 1 << 20, depth = 0;
        void **stack = malloc(capacity * sizeof *stack);
        for (int r = 0; r < ROOTS + PINS; r++) {
            void *root = r < ROOTS ? pool[r] : pinned[r - ROOTS];
            if (root && visit_once(&reach, root))
                stack[depth++] = root;
        }
        while (depth) {
            void *object = stack[--depth];
            const corral_type *type = ((corral_header *)object)->type;
            void **children = NULL;
            uint64_t count = 0;
            if (type == &small_type || type == &final_type)
                children = &((small *)object)->a, count = 2;
            else if (type == &wide_type)
                children = ((wide *)object)->field, count = WIDE_FIELDS;
            else if (type == &refs_type)
                children = (void **)array_words(object),
                count = ((corral_array_header *)object)->length;
            for (uint64_t i = 0; i < count; i++)
                if (children[i] && visit_once(&reach, children[i])) {
                    if (depth == capacity)
                        stack = realloc(stack, (capacity *= 2) * sizeof *stack);
                    stack[depth++] = children[i];
                }
        }
        free(stack);
    }
    for (int i = 0; i < WEAKS; i++)
        weak_should_live[i] = !visit_once(&reach, (void *)corral_weak_get(weaks[i]));
    free(reach.slots);
    corral_collect();
    corral_collect();
    pool = (void **)array_words(*pool_handle);
    result->after = summarise(pool);
    result->live_bytes = last_live_bytes;
    result->marked_collections = collections_seen;
    for (int i = 0; i < WEAKS; i++)
        if ((corral_weak_get(weaks[i]) != NULL) != weak_should_live[i])
            result->weak_wrong++;
    for (int i = 0; i < PINS; i++) {
        /* Still the same object at the same address. */
        result->pin_moved += ((corral_header *)pinned[i])->type != pinned_type[i] ||
                             object_id(pinned[i]) != pinned_id[i];
        corral_unpin(pinned[i]);
    }
    result->finalized = finalized;
    corral_handle_scope_close(scope);
}

static int run_in_child(unsigned workers, uint64_t seed, run_result *result)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        run_result mine = {0};
        build_and_collect(workers, seed, &mine);
        _exit(write(fds[1], &mine, sizeof mine) == sizeof mine ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], result, sizeof *result);
    close(fds[0]);
    int status;
    waitpid(child, &status, 0);
    return got == sizeof *result && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    plan(14);
    uint64_t seed = tap_seed(argc, argv);
    run_result runs[3];
    unsigned workers[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        int status = run_in_child(workers[i], seed, &runs[i]);
        ok(status == 0, "a heap of %d objects built and collected by %u worker(s)", OBJECTS,
           workers[i]);
        if (status != 0)
            bail_out("run with %u workers failed (seed %llu)", workers[i],
                     (unsigned long long)seed);
        ok(runs[i].before.checksum == runs[i].after.checksum &&
               runs[i].before.reachable == runs[i].after.reachable,
           "%u worker(s): the graph is the same after two moving GCs (%llu reachable objects)",
           workers[i], (unsigned long long)runs[i].after.reachable);
        ok(runs[i].weak_wrong == 0, "%u worker(s): weak handles cleared exactly for dead targets",
           workers[i]);
        ok(runs[i].pin_moved == 0, "%u worker(s): pinned objects did not move", workers[i]);
    }
    ok(runs[0].after.checksum == runs[1].after.checksum &&
           runs[0].after.checksum == runs[2].after.checksum &&
           runs[0].after.reachable == runs[1].after.reachable &&
           runs[0].after.reachable == runs[2].after.reachable,
       "1, 2 and 4 workers give identical object graphs");
    ok(runs[0].live_bytes == runs[1].live_bytes && runs[0].live_bytes == runs[2].live_bytes,
       "and identical live bytes (%llu)", (unsigned long long)runs[0].live_bytes);
    return done_testing();
}
