/* Headerless object types (CORRAL_TYPE_HEADERLESS) from plain C: objects with
 * no corral_header, kept in 256 KiB regions of one type each, that never move.
 *
 * Each case runs in its own forked child with its own CORRAL_* settings,
 * full collections and minor ones (CORRAL_GC_GENERATIONAL=1), under the
 * verifier and the stress modes the other tests use:
 *   - trees of headerless nodes with ordinary boxes pointing back at them,
 *     checked node by node (contents and address) after every collection;
 *   - 13 headerless types (more than the 8 entries of the per-thread cache,
 *     sizes 1 to 1024 bytes, leaves and references at offset 0) allocated in
 *     a random interleaving, every live object checked byte by byte, and no
 *     region holding two types;
 *   - dead slots reused, empty regions given back: a list that loses half
 *     its nodes is refilled in its own regions; a live set replaced at
 *     random over 24 collections stays in as many regions; 24 phases of as
 *     many types go through a 16 MiB heap without running out of memory;
 *   - generational: old headerless objects (and an old box, an old large
 *     array) keep the young objects stored into them with corral_store_ref,
 *     headerless objects age and are promoted, and the verifier names a
 *     store that skipped the barrier;
 *   - a pinned headerless object neither dies nor is handed out again;
 *   - the verifier names an interior or a stale reference into a headerless
 *     region;
 *   - types the runtime must refuse (array, pinned, finalizable, size 0,
 *     size 1025, a reference outside the object): a fatal error naming them;
 *   - 4 threads allocating one headerless type while collections run.
 * The random choices come from the seed printed first (argv[1] or TAP_SEED
 * replays it); it is also the runtime's CORRAL_GC_SEED. */
#include <corral.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "corral_test.h"

#define HEADERLESS_REGION_SHIFT 18 /* 256 KiB regions */

static uint64_t test_seed;

/* test_start with the test's seed as the runtime's CORRAL_GC_SEED, so the
 * randomised stress modes (mixed, alloc:random) replay too. */
static void start(const char *settings)
{
    char with_seed[1024];
    snprintf(with_seed, sizeof with_seed, "%s CORRAL_GC_SEED=%" PRIu64, settings,
             test_seed ? test_seed : 1);
    test_start(with_seed, true);
}

static corral_stats stats_now(void)
{
    corral_stats stats;
    corral_get_stats(&stats);
    return stats;
}

static void store(void *object, void *field, void *value)
{
    corral_store_ref(object, (corral_ref *)field, value);
}

static bool all_zero(const void *object, uint32_t size)
{
    const unsigned char *bytes = object;
    for (uint32_t i = 0; i < size; i++)
        if (bytes[i])
            return false;
    return true;
}

/* True when output has a line matching pattern, case ignored. */
static bool output_matches_any_case(const char *output, const char *pattern)
{
    regex_t regex;
    if (regcomp(&regex, pattern, REG_EXTENDED | REG_NEWLINE | REG_NOSUB | REG_ICASE) != 0)
        bail_out("bad pattern %s", pattern);
    bool found = output && regexec(&regex, output, 0, NULL, 0) == 0;
    regfree(&regex);
    return found;
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* Objects handed out with non-zero bytes: every allocation checks its own. */
static long not_zeroed;

/* ---- the types */

typedef struct hnode hnode;
typedef struct box box;

/* A headerless tree node: 32 bytes, its first reference at offset 0. */
struct hnode {
    hnode *left, *right;
    box *boxed;
    long value;
};
/* An ordinary object, which moves, pointing back at a headerless one. */
struct box {
    corral_header header;
    hnode *owner;
    long value;
};

static const uint32_t hnode_refs[] = {offsetof(hnode, left), offsetof(hnode, right),
                                      offsetof(hnode, boxed)};
static const corral_type hnode_type = CORRAL_HEADERLESS_STRUCT_TYPE("hnode", hnode, hnode_refs);
static const uint32_t box_refs[] = {offsetof(box, owner)};
static const corral_type box_type = CORRAL_STRUCT_TYPE("box", box, box_refs);
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("ref[]");

static hnode *new_hnode(long value)
{
    hnode *n = corral_alloc(&hnode_type);
    if (!all_zero(n, sizeof *n))
        not_zeroed++;
    n->value = value;
    return n;
}

static box *new_box(long value)
{
    box *b = corral_alloc(&box_type);
    b->value = value;
    return b;
}

/* ---- trees of headerless nodes with boxes */

/* What a tree must hold: each node where it was allocated, with its value,
 * and a box of value 3 * value + 1 whose owner is the node. */
typedef struct shadow {
    struct shadow *left, *right;
    hnode *address;
    long value;
    box *first_box; /* where its box was allocated: counts the boxes that moved */
} shadow;

static long next_value;

/* Builds a tree of the given depth and its shadow; returns the tree raw (the
 * caller stores it before it allocates again). */
static hnode *make_htree(int depth, shadow **mirror)
{
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle self = corral_handle_new(new_hnode(next_value++));
    shadow *s = calloc(1, sizeof *s);
    s->address = *self;
    s->value = ((hnode *)*self)->value;
    box *b = new_box(3 * s->value + 1);
    store(b, &b->owner, *self);
    store(*self, &((hnode *)*self)->boxed, b);
    s->first_box = b;
    if (depth > 0) {
        hnode *left = make_htree(depth - 1, &s->left);
        store(*self, &((hnode *)*self)->left, left);
        hnode *right = make_htree(depth - 1, &s->right);
        store(*self, &((hnode *)*self)->right, right);
    }
    hnode *result = *self;
    corral_handle_scope_close(scope);
    *mirror = s;
    return result;
}

static long shadow_nodes(const shadow *s)
{
    return s ? 1 + shadow_nodes(s->left) + shadow_nodes(s->right) : 0;
}

static void shadow_free(shadow *s)
{
    if (!s)
        return;
    shadow_free(s->left);
    shadow_free(s->right);
    free(s);
}

/* Garbage: a headerless tree and its boxes, and ordinary boxes alone. */
static void make_garbage(int depth)
{
    shadow *mirror;
    make_htree(depth, &mirror);
    shadow_free(mirror);
    for (int i = 0; i < 100; i++)
        new_box(i);
}

typedef struct tree_report {
    long nodes, wrong, moved_boxes;
    char first[256];
} tree_report;

static void tree_wrong(tree_report *r, const char *fmt, long value, const void *a, const void *b)
{
    if (r->wrong++ == 0)
        snprintf(r->first, sizeof r->first, fmt, value, a, b);
}

static void check_htree(const hnode *n, const shadow *s, tree_report *r)
{
    if (!s || !n) {
        if (s || n)
            tree_wrong(r, "node %ld: %p where %p was expected", s ? s->value : -1, n,
                       s ? s->address : NULL);
        return;
    }
    r->nodes++;
    if (n != s->address)
        tree_wrong(r, "node %ld is at %p, allocated at %p", s->value, n, s->address);
    else if (n->value != s->value)
        tree_wrong(r, "node %ld at %p holds value %p", s->value, n, (void *)n->value);
    else if (!n->boxed || n->boxed->value != 3 * s->value + 1 || n->boxed->owner != n)
        tree_wrong(r, "node %ld at %p: its box %p is wrong", s->value, n, n->boxed);
    if (n->boxed != s->first_box)
        r->moved_boxes++;
    check_htree(n->left, s->left, r);
    check_htree(n->right, s->right, r);
}

typedef struct mode_case {
    const char *settings;
    bool generational; /* minor collections between the major ones */
    bool boxes_move;   /* every major collection slides the ordinary objects */
} mode_case;

enum { TREE_DEPTH = 10, TREE_ROUNDS = 24 };

/* A tree reachable only through an ordinary object (handle -> box -> tree),
 * a global root on a headerless node, weak handles to live and dead ones;
 * after each collection every node is where it was allocated, with its
 * contents. Halfway, a young subtree and a young box are stored into old
 * nodes. */
static void trees_keep_contents_and_addresses(void *arg)
{
    const mode_case *mode = arg;
    start(mode->settings);
    static hnode *global_node;
    corral_global_root_add((corral_ref *)&global_node);
    corral_handle_scope scope = corral_handle_scope_open();
    make_garbage(8); /* below the kept objects, so compaction slides the boxes */
    corral_handle anchor = corral_handle_new(new_box(-1));
    shadow *mirror, *global_mirror, *dead_mirror;
    hnode *root = make_htree(TREE_DEPTH, &mirror);
    store(*anchor, &((box *)*anchor)->owner, root);
    global_node = make_htree(2, &global_mirror);
    corral_weak *weak_live = corral_weak_new(mirror->left->address);
    corral_weak *weak_dead = corral_weak_new(make_htree(4, &dead_mirror));
    shadow_free(dead_mirror);
    long expected_nodes = 0;
    tree_report report = {0};
    int failed_round = -1;
    for (int round = 0; round < TREE_ROUNDS && failed_round < 0; round++) {
        make_garbage(6);
        if (mode->generational && round % 3 != 2)
            corral_collect_young();
        else
            corral_collect();
        if (round == TREE_ROUNDS / 2) {
            /* Stores into old nodes: a young subtree, a young box. */
            hnode *parent = mirror->right->address; /* old, reachable: it stays put */
            shadow *graft;
            hnode *young = make_htree(3, &graft);
            store(parent, &parent->left, young);
            shadow_free(mirror->right->left);
            mirror->right->left = graft;
            hnode *old = mirror->left->left->address;
            box *fresh = new_box(3 * old->value + 1);
            store(fresh, &fresh->owner, old);
            store(old, &old->boxed, fresh);
            mirror->left->left->first_box = fresh;
        }
        memset(&report, 0, sizeof report);
        check_htree(((box *)*anchor)->owner, mirror, &report);
        check_htree(global_node, global_mirror, &report);
        expected_nodes = shadow_nodes(mirror) + shadow_nodes(global_mirror);
        if (report.wrong || report.nodes != expected_nodes)
            failed_round = round;
    }
    if (!ok(failed_round < 0, "every headerless node in place with its contents and its box "
                              "after %d collections",
            TREE_ROUNDS))
        diag("round %d: %ld wrong, %ld nodes of %ld; first: %s", failed_round, report.wrong,
             report.nodes, expected_nodes, report.first);
    corral_collect();
    ok(corral_weak_get(weak_live) == mirror->left->address,
       "a weak handle to a live headerless node still points at it");
    ok(corral_weak_get(weak_dead) == NULL, "a weak handle to a dead headerless tree is cleared");
    corral_stats stats = stats_now();
    if (mode->generational)
        ok(stats.minor_collections >= TREE_ROUNDS / 2, "minor collections ran (%llu)",
           (unsigned long long)stats.minor_collections);
    if (mode->boxes_move)
        ok(report.moved_boxes > 0, "the ordinary boxes moved meanwhile (%ld of %ld)",
           report.moved_boxes, report.nodes);
    is_int(not_zeroed, 0, "every headerless node was zeroed when allocated");
    corral_weak_free(weak_live);
    corral_weak_free(weak_dead);
    shadow_free(mirror);
    shadow_free(global_mirror);
    corral_global_root_remove((corral_ref *)&global_node);
    corral_handle_scope_close(scope);
}

/* ---- many headerless types, interleaved */

struct words1 { uint64_t w[1]; };
struct words2 { uint64_t w[2]; };
struct words3 { uint64_t w[3]; };
struct words4 { uint64_t w[4]; };
struct words5 { uint64_t w[5]; };
struct words128 { uint64_t w[128]; };
struct bytes12 { uint32_t w[3]; };
struct bytes1 { uint8_t b; };

static const uint32_t at_0[] = {0}, at_8[] = {8}, at_32[] = {32}, at_0_16[] = {0, 16},
                      at_0_8_24[] = {0, 8, 24};

enum { TYPE_COUNT = 13, LEAF8 = 1 };
/* Side by side, 72 bytes apart: consecutive entries of the per-thread cache,
 * so the ninth type and those after it share an entry with an earlier one.
 * A type's first reference is its chain's link; a second one holds a box,
 * a third an h8-leaf. */
static const corral_type many_types[TYPE_COUNT] = {
    CORRAL_HEADERLESS_STRUCT_TYPE("h8-ref", struct words1, at_0),
    CORRAL_HEADERLESS_LEAF_TYPE("h8-leaf", struct words1),
    CORRAL_HEADERLESS_STRUCT_TYPE("h16-ref", struct words2, at_0),
    CORRAL_HEADERLESS_LEAF_TYPE("h16-leaf", struct words2),
    CORRAL_HEADERLESS_STRUCT_TYPE("h24-ref", struct words3, at_8),
    CORRAL_HEADERLESS_STRUCT_TYPE("h24-two-refs", struct words3, at_0_16),
    CORRAL_HEADERLESS_STRUCT_TYPE("h32-three-refs", struct words4, at_0_8_24),
    CORRAL_HEADERLESS_STRUCT_TYPE("h40-ref", struct words5, at_32),
    CORRAL_HEADERLESS_LEAF_TYPE("h40-leaf", struct words5),
    CORRAL_HEADERLESS_STRUCT_TYPE("h1024-ref", struct words128, at_0),
    CORRAL_HEADERLESS_LEAF_TYPE("h1024-leaf", struct words128),
    CORRAL_HEADERLESS_LEAF_TYPE("h12-leaf", struct bytes12),
    CORRAL_HEADERLESS_LEAF_TYPE("h1-leaf", struct bytes1),
};

enum { RING = 40, CHAIN_MAX = 120, CHAIN_KEEP = 60, EXTRA_BOX = 1, EXTRA_LEAF = 2 };

/* A live object as it must be found. */
typedef struct shadow_object {
    void *address;
    uint64_t serial;
    uint64_t *extra_leaf; /* the h8-leaf its third reference holds */
} shadow_object;

/* Per type: a chain (reference types, index 0 the oldest) or a ring (leaves). */
typedef struct type_shadow {
    shadow_object chain[CHAIN_MAX + 1];
    size_t length;
    shadow_object ring[RING];
} type_shadow;

static type_shadow shadows[TYPE_COUNT];

/* The roots: an ordinary reference array, slot t the head of type t's chain,
 * then RING slots per type for the leaves. */
enum { ROOT_SLOTS = TYPE_COUNT + TYPE_COUNT * RING };

static void **root_slots(corral_handle roots)
{
    return (void **)((char *)*roots + sizeof(corral_array_header));
}

static void **ref_slot(unsigned t, void *object, uint32_t index)
{
    return (void **)((char *)object + many_types[t].ref_offsets[index]);
}

static bool in_ref_slot(const corral_type *type, uint32_t offset)
{
    for (uint32_t i = 0; i < type->ref_count; i++)
        if (offset - type->ref_offsets[i] < sizeof(void *))
            return true;
    return false;
}

static uint8_t pattern(unsigned t, uint64_t serial, uint32_t offset)
{
    return (uint8_t)(serial * 131 + offset * 7 + t * 29 + 1);
}

static void fill(unsigned t, void *object, uint64_t serial)
{
    for (uint32_t offset = 0; offset < many_types[t].size; offset++)
        if (!in_ref_slot(&many_types[t], offset))
            ((uint8_t *)object)[offset] = pattern(t, serial, offset);
}

/* NULL when object holds what shadow says, else what is wrong. */
static const char *object_problem(unsigned t, void *object, const shadow_object *expected)
{
    if (object != expected->address)
        return "the object is not where it was allocated (or the chain lost it)";
    for (uint32_t offset = 0; offset < many_types[t].size; offset++)
        if (!in_ref_slot(&many_types[t], offset) &&
            ((uint8_t *)object)[offset] != pattern(t, expected->serial, offset))
            return "a data byte changed";
    if (many_types[t].ref_count > EXTRA_BOX) {
        box *b = *ref_slot(t, object, EXTRA_BOX);
        if (!b || b->value != (long)(expected->serial * 16 + EXTRA_BOX) || b->owner != object)
            return "its box (an ordinary object) is wrong";
    }
    if (many_types[t].ref_count > EXTRA_LEAF) {
        uint64_t *leaf = *ref_slot(t, object, EXTRA_LEAF);
        if (leaf != expected->extra_leaf || *leaf != expected->serial * 16 + EXTRA_LEAF)
            return "the h8-leaf it holds moved or changed";
    }
    return NULL;
}

static uint64_t next_serial;

/* One object of type t with its extras, linked into its chain or ring. */
static void allocate_one(corral_handle roots, unsigned t)
{
    const corral_type *type = &many_types[t];
    corral_handle_scope scope = corral_handle_scope_open();
    uint64_t serial = next_serial++;
    corral_handle object = corral_handle_new(corral_alloc(type));
    if (!all_zero(*object, type->size))
        not_zeroed++;
    fill(t, *object, serial);
    shadow_object record = {*object, serial, NULL};
    for (uint32_t i = 1; i < type->ref_count; i++) {
        if (i == EXTRA_BOX) {
            box *b = new_box((long)(serial * 16 + i));
            store(b, &b->owner, *object);
            store(*object, ref_slot(t, *object, i), b);
        } else {
            uint64_t *leaf = corral_alloc(&many_types[LEAF8]);
            if (!all_zero(leaf, sizeof *leaf))
                not_zeroed++;
            *leaf = serial * 16 + i;
            record.extra_leaf = leaf;
            store(*object, ref_slot(t, *object, i), leaf);
        }
    }
    void **slots = root_slots(roots);
    type_shadow *s = &shadows[t];
    if (type->ref_count) {
        store(*object, ref_slot(t, *object, 0), slots[t]);
        store(*roots, &slots[t], *object);
        s->chain[s->length++] = record;
        if (s->length > CHAIN_MAX) {
            void *last_kept = slots[t];
            for (int i = 1; i < CHAIN_KEEP; i++)
                last_kept = *ref_slot(t, last_kept, 0);
            store(last_kept, ref_slot(t, last_kept, 0), NULL);
            memmove(s->chain, s->chain + s->length - CHAIN_KEEP, CHAIN_KEEP * sizeof s->chain[0]);
            s->length = CHAIN_KEEP;
        }
    } else {
        size_t k = serial % RING;
        store(*roots, &slots[TYPE_COUNT + t * RING + k], *object);
        s->ring[k] = record;
    }
    corral_handle_scope_close(scope);
}

/* Checks every live object; returns the number of wrong ones, the first in diag. */
static long check_all_types(corral_handle roots, const char *when)
{
    long wrong = 0;
    void **slots = root_slots(roots);
    for (unsigned t = 0; t < TYPE_COUNT; t++) {
        type_shadow *s = &shadows[t];
        const char *problem = NULL;
        size_t at = 0;
        if (many_types[t].ref_count) {
            void *node = slots[t];
            for (size_t i = s->length; i > 0 && !problem; i--) {
                at = i - 1;
                if (!node) {
                    problem = "the chain is short";
                    break;
                }
                problem = object_problem(t, node, &s->chain[i - 1]);
                node = *ref_slot(t, node, 0);
            }
            if (!problem && node)
                problem = "the chain is longer than it should be";
        } else {
            for (size_t k = 0; k < RING && !problem; k++) {
                at = k;
                void *object = slots[TYPE_COUNT + t * RING + k];
                if (object != s->ring[k].address)
                    problem = "a ring slot holds another object";
                else if (object)
                    problem = object_problem(t, object, &s->ring[k]);
            }
        }
        if (problem && wrong++ == 0)
            diag("%s: type %s, object %zu: %s", when, many_types[t].name, at, problem);
    }
    return wrong;
}

typedef struct region_owner {
    uintptr_t region;
    int kind; /* a type index, or TYPE_COUNT for a box */
} region_owner;

static int by_region(const void *a, const void *b)
{
    const region_owner *x = a, *y = b;
    return x->region < y->region ? -1 : x->region > y->region ? 1 : x->kind - y->kind;
}

static void note_region(region_owner *owners, size_t *count, const void *object, int kind)
{
    owners[(*count)++] = (region_owner){(uintptr_t)object >> HEADERLESS_REGION_SHIFT, kind};
}

/* The regions of every live object: a region holds one headerless type and
 * no ordinary object; no headerless object crosses a region's end. Returns
 * the number of mixed regions. */
static long mixed_regions(long *crossing)
{
    size_t capacity = 4 * TYPE_COUNT * (CHAIN_MAX + RING) + 16, count = 0;
    region_owner *owners = malloc(capacity * sizeof *owners);
    *crossing = 0;
    for (unsigned t = 0; t < TYPE_COUNT; t++) {
        type_shadow *s = &shadows[t];
        size_t n = many_types[t].ref_count ? s->length : RING;
        for (size_t i = 0; i < n; i++) {
            shadow_object *o = many_types[t].ref_count ? &s->chain[i] : &s->ring[i];
            if (!o->address)
                continue;
            uintptr_t first = (uintptr_t)o->address;
            uintptr_t last = first + many_types[t].size - 1;
            *crossing += first >> HEADERLESS_REGION_SHIFT != last >> HEADERLESS_REGION_SHIFT;
            note_region(owners, &count, o->address, (int)t);
            if (o->extra_leaf)
                note_region(owners, &count, o->extra_leaf, LEAF8);
            if (many_types[t].ref_count > EXTRA_BOX)
                note_region(owners, &count, *ref_slot(t, o->address, EXTRA_BOX), TYPE_COUNT);
        }
    }
    qsort(owners, count, sizeof *owners, by_region);
    long mixed = 0;
    for (size_t i = 1; i < count; i++)
        if (owners[i].region == owners[i - 1].region && owners[i].kind != owners[i - 1].kind) {
            if (mixed++ == 0)
                diag("region 0x%lx holds %s and %s", (unsigned long)owners[i].region,
                     owners[i - 1].kind < TYPE_COUNT ? many_types[owners[i - 1].kind].name : "box",
                     owners[i].kind < TYPE_COUNT ? many_types[owners[i].kind].name : "box");
            while (i + 1 < count && owners[i + 1].region == owners[i].region)
                i++;
        }
    free(owners);
    return mixed;
}

enum { COLLECT_EVERY = 3000 };

static void many_types_interleaved(void *arg)
{
    const mode_case *mode = arg;
    start(mode->settings);
    int entry_users[CORRAL_TYPED_TLABS] = {0}, shared = 0;
    for (unsigned t = 0; t < TYPE_COUNT; t++)
        shared += entry_users[corral_typed_tlab_index(&many_types[t])]++ > 0;
    ok(shared >= TYPE_COUNT - (int)CORRAL_TYPED_TLABS,
       "%d of the %d types share a cache entry with another", shared, TYPE_COUNT);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle roots = corral_handle_new(corral_alloc_array(&ref_array_type, ROOT_SLOTS));
    uint64_t random = test_seed;
    long steps = tap_work(90000), wrong = 0, collections = 0;
    for (long step = 1; step <= steps && !wrong; step++) {
        allocate_one(roots, (unsigned)(tap_random(&random) % TYPE_COUNT));
        if (step % COLLECT_EVERY == 0) {
            if (mode->generational && collections % 2 == 0)
                corral_collect_young();
            else
                corral_collect();
            collections++;
            char when[64];
            snprintf(when, sizeof when, "after collection %ld (step %ld)", collections, step);
            wrong = check_all_types(roots, when);
        }
    }
    corral_collect();
    if (!wrong)
        wrong = check_all_types(roots, "after the last collection");
    is_int(wrong, 0, "%llu objects of %d headerless types, interleaved: every live one intact "
                     "and in place",
           (unsigned long long)next_serial, TYPE_COUNT);
    long crossing;
    is_int(mixed_regions(&crossing), 0,
           "no region holds two headerless types, or a headerless and an ordinary object");
    is_int(crossing, 0, "no headerless object crosses a region boundary");
    is_int(not_zeroed, 0, "every headerless object was zeroed when allocated");
    corral_handle_scope_close(scope);
}

/* ---- dead slots reused, empty regions given back */

typedef struct rnode rnode;
/* 24 bytes; the link in the middle. */
struct rnode {
    long serial;
    rnode *next;
    long check;
};
static const uint32_t rnode_refs[] = {offsetof(rnode, next)};
static const corral_type rnode_type = CORRAL_HEADERLESS_STRUCT_TYPE("rnode", rnode, rnode_refs);

enum { REUSE_NODES = 40000, REUSE_BLOCK = 32, REFILL_NODES = REUSE_NODES / 2 };

static rnode *new_rnode(long serial)
{
    rnode *n = corral_alloc(&rnode_type);
    if (!all_zero(n, sizeof *n))
        not_zeroed++;
    n->serial = serial;
    n->check = serial * 7 + 3;
    return n;
}

static rnode *push_rnode(corral_handle list, long serial)
{
    rnode *n = new_rnode(serial);
    store(n, &n->next, *list);
    *list = n;
    return n;
}

static bool region_in(uintptr_t region, const uintptr_t *regions, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (regions[i] == region)
            return true;
    return false;
}

/* A list that survives a collection, then loses every other block of 32
 * nodes: after the next full collection, new nodes of its type fill the
 * dead slots in the regions the list already holds, and come zeroed; the
 * survivors stay intact and in place. */
static void dead_slots_reused(void *arg)
{
    start(arg);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle list = corral_handle_new(NULL);
    rnode **addresses = malloc(REUSE_NODES * sizeof *addresses);
    uintptr_t regions[64];
    size_t region_count = 0;
    bool too_many_regions = false;
    for (long i = 0; i < REUSE_NODES; i++) {
        addresses[i] = push_rnode(list, i);
        uintptr_t region = (uintptr_t)addresses[i] >> HEADERLESS_REGION_SHIFT;
        if (!region_in(region, regions, region_count)) {
            if (region_count < 64)
                regions[region_count++] = region;
            else
                too_many_regions = true;
        }
    }
    ok(!too_many_regions && region_count <= 6,
       "%d nodes of 24 bytes take %zu regions (one region holds ~10000)", REUSE_NODES,
       region_count);
    long adjacent = 0;
    for (long i = 1; i < REUSE_NODES; i++)
        adjacent += (char *)addresses[i] - (char *)addresses[i - 1] == (ptrdiff_t)sizeof(rnode);
    ok(adjacent >= REUSE_NODES * 9 / 10,
       "consecutive nodes lie 24 bytes apart, no header between them (%ld of %d)", adjacent,
       REUSE_NODES - 1);
    corral_collect(); /* every node survives one collection before half of them die */
    /* The list runs from the newest: unlink the odd blocks. */
    while (*list && (((rnode *)*list)->serial / REUSE_BLOCK) % 2 == 1)
        *list = ((rnode *)*list)->next;
    for (rnode *n = *list; n; n = n->next)
        while (n->next && (n->next->serial / REUSE_BLOCK) % 2 == 1)
            store(n, &n->next, n->next->next);
    corral_collect();
    corral_handle refill = corral_handle_new(NULL);
    long outside = 0;
    for (long i = 0; i < REFILL_NODES; i++) {
        rnode *n = push_rnode(refill, REUSE_NODES + i);
        outside += !region_in((uintptr_t)n >> HEADERLESS_REGION_SHIFT, regions, region_count);
    }
    if (!ok(outside == 0, "%d new nodes fill the dead slots of the list's own regions",
            REFILL_NODES))
        diag("%ld of them went to other regions", outside);
    corral_collect();
    long survivors = 0, wrong = 0;
    long expected = REUSE_NODES - 1;
    for (rnode *n = *list; n; n = n->next, expected--) {
        while ((expected / REUSE_BLOCK) % 2 == 1)
            expected--;
        survivors++;
        if (n != addresses[expected] || n->serial != expected || n->check != expected * 7 + 3) {
            if (wrong++ == 0)
                diag("survivor %ld: at %p (allocated at %p), serial %ld, check %ld", expected,
                     (void *)n, (void *)addresses[expected], n->serial, n->check);
        }
    }
    is_int(survivors, REUSE_NODES / 2, "every node of the even blocks survives");
    is_int(wrong, 0, "each where it was allocated, with its contents");
    long refilled = 0;
    for (rnode *n = *refill; n; n = n->next)
        refilled += n->serial == REUSE_NODES + REFILL_NODES - 1 - refilled &&
                    n->check == n->serial * 7 + 3;
    is_int(refilled, REFILL_NODES, "the new nodes hold what was written into them");
    is_int(not_zeroed, 0, "every node, in a fresh or a reused slot, was zeroed when allocated");
    free(addresses);
    corral_handle_scope_close(scope);
}

typedef struct steady_case {
    const char *settings;
    int major_every; /* the other collections are corral_collect_young */
} steady_case;

static long live_regions(void **slots, long count, uintptr_t *scratch)
{
    for (long i = 0; i < count; i++)
        scratch[i] = (uintptr_t)slots[i] >> HEADERLESS_REGION_SHIFT;
    qsort(scratch, (size_t)count, sizeof *scratch, by_address);
    long regions = count > 0;
    for (long i = 1; i < count; i++)
        regions += scratch[i] != scratch[i - 1];
    return regions;
}

enum { STEADY_LIVE = 20000, STEADY_CYCLES = 24, STEADY_PER_CYCLE = 20000, STEADY_WARM = 4 };

/* Many collections, each after 20000 nodes replaced random ones of 20000
 * live: the survivors of every age stay spread over the regions, so after
 * each full collection the live nodes stay in few regions only if slots
 * that died after surviving collections are handed out again. */
static void steady_state_bounded(void *arg)
{
    const steady_case *test = arg;
    start(test->settings);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle live = corral_handle_new(corral_alloc_array(&ref_array_type, STEADY_LIVE));
    uintptr_t *scratch = malloc(STEADY_LIVE * sizeof *scratch);
    uint64_t random = test_seed;
    long serial = 0, regions_warm = 0, regions_most = 0, wrong = 0;
    for (long i = 0; i < STEADY_LIVE; i++) {
        rnode *n = new_rnode(serial++);
        void **slots = (void **)((char *)*live + ref_array_type.size);
        store(*live, &slots[i], n);
    }
    for (int cycle = 0; cycle < STEADY_CYCLES; cycle++) {
        for (long i = 0; i < STEADY_PER_CYCLE; i++) {
            rnode *n = new_rnode(serial++);
            void **slots = (void **)((char *)*live + ref_array_type.size);
            store(*live, &slots[tap_random(&random) % STEADY_LIVE], n);
        }
        bool major = cycle % test->major_every == test->major_every - 1;
        if (major)
            corral_collect();
        else
            corral_collect_young();
        void **slots = (void **)((char *)*live + ref_array_type.size);
        for (long i = 0; i < STEADY_LIVE; i++) {
            rnode *n = slots[i];
            wrong += n->check != n->serial * 7 + 3 || n->next;
        }
        if (!major || cycle < STEADY_WARM - 1)
            continue;
        long regions = live_regions(slots, STEADY_LIVE, scratch);
        if (!regions_warm)
            regions_warm = regions;
        if (regions > regions_most)
            regions_most = regions;
    }
    is_int(wrong, 0, "every live node intact after each collection");
    if (!ok(regions_warm && regions_most <= regions_warm + 2,
            "after each full collection the live nodes lie in at most %ld regions (%ld after "
            "warming up)",
            regions_most, regions_warm))
        diag("a type whose dead slots are not reused spreads over ever more regions");
    diag("%ld nodes allocated, %llu collections, live nodes in at most %ld regions", serial,
         (unsigned long long)stats_now().collections, regions_most);
    is_int(not_zeroed, 0, "every node was zeroed when allocated");
    free(scratch);
    corral_handle_scope_close(scope);
}

static bool out_of_memory_seen;
static void note_out_of_memory(size_t request, size_t heap_bytes, size_t live)
{
    (void)request;
    (void)heap_bytes;
    (void)live;
    out_of_memory_seen = true;
}

/* A type per phase, its link at offset 0: 24 types of 5 sizes. */
#define PHASE_TYPE(ctype) CORRAL_HEADERLESS_STRUCT_TYPE("phase-" #ctype, struct ctype, at_0)
#define PHASE_TYPES_OF_FIVE_SIZES                                                           \
    PHASE_TYPE(words1), PHASE_TYPE(words2), PHASE_TYPE(words3), PHASE_TYPE(words5),        \
        PHASE_TYPE(words128)
enum { PHASES = 24, PHASE_LIVE = 3 << 20 };
static const corral_type phase_types[PHASES + 1] = {
    PHASE_TYPES_OF_FIVE_SIZES, PHASE_TYPES_OF_FIVE_SIZES, PHASE_TYPES_OF_FIVE_SIZES,
    PHASE_TYPES_OF_FIVE_SIZES, PHASE_TYPES_OF_FIVE_SIZES};

/* 24 phases, each a 3 MiB chain of its own headerless type that dies when
 * the next phase starts, with ordinary garbage between: 72 MiB in 288
 * regions through a 16 MiB heap (a reservation of 88 regions), so the
 * regions each type leaves empty must go back to the heap, for other types
 * and for ordinary objects. */
static void regions_given_back(void *arg)
{
    start(arg);
    corral_set_oom_handler(note_out_of_memory);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle chain = corral_handle_new(NULL);
    long short_chains = 0;
    int phase;
    for (phase = 0; phase < PHASES && !out_of_memory_seen; phase++) {
        const corral_type *type = &phase_types[phase];
        long length = PHASE_LIVE / ((type->size + 7) & ~7u);
        *chain = NULL; /* the last phase's chain dies */
        for (long i = 0; i < length && !out_of_memory_seen; i++) {
            void **object = corral_alloc(type);
            if (!object)
                break;
            store(object, object, *chain);
            *chain = object;
            if (i % 16 == 0 && !corral_alloc(&box_type))
                break;
        }
        long found = 0;
        for (void **node = *chain; node; node = *node)
            found++;
        short_chains += found != length;
    }
    ok(!out_of_memory_seen, "%d phases of 3 MiB of headerless objects, each of its own type, "
                            "through a 16 MiB heap without running out of memory (reached "
                            "phase %d)",
       PHASES, phase);
    is_int(short_chains, 0, "every phase's chain complete");
    *chain = NULL;
    corral_collect();
    corral_stats stats = stats_now();
    ok(stats.live_bytes < ((uint64_t)1 << 20), "live bytes after the last collection: %llu",
       (unsigned long long)stats.live_bytes);
    corral_handle_scope_close(scope);
}

/* ---- generational */

/* An old headerless node keeps the young objects stored into it with
 * corral_store_ref (a headerless node at offset 0, a box at offset 16, and
 * at offset 8 one stored once, which ages and is promoted); an old box and
 * an old large array keep young headerless nodes; across minor collections
 * with a major one now and then. */
static void old_headerless_to_young(void *arg)
{
    start(arg);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle old = corral_handle_new(new_hnode(1));
    corral_handle old_box = corral_handle_new(new_box(2));
    corral_handle old_large = corral_handle_new(corral_alloc_array(&ref_array_type, 5000));
    corral_collect(); /* all three old from now on */
    hnode *old_address = *old;
    hnode *kept = new_hnode(4242);
    store(*old, &((hnode *)*old)->right, kept);
    uint64_t minors = stats_now().minor_collections;
    int failed_round = -1;
    for (int round = 0; round < 40 && failed_round < 0; round++) {
        hnode *in_large = new_hnode(5000 + round);
        hnode **large_slots = (hnode **)((char *)*old_large + ref_array_type.size);
        store(*old_large, &large_slots[4000], in_large);
        hnode *young = new_hnode(1000 + round);
        store(*old, &((hnode *)*old)->left, young);
        hnode *young_address = young;
        box *young_box = new_box(2000 + round);
        store(*old, &((hnode *)*old)->boxed, young_box);
        hnode *held = new_hnode(3000 + round);
        store(*old_box, &((box *)*old_box)->owner, held);
        hnode *held_address = held;
        young = NULL; /* only old objects hold them now */
        young_box = NULL;
        held = NULL;
        for (int i = 0; i < 1000; i++) {
            new_hnode(i);
            new_box(i);
        }
        corral_collect_young();
        hnode *parent = *old;
        hnode *child = ((box *)*old_box)->owner;
        large_slots = (hnode **)((char *)*old_large + ref_array_type.size);
        if (parent != old_address || !parent->left || parent->left != young_address ||
            parent->left->value != 1000 + round || !parent->boxed ||
            parent->boxed->value != 2000 + round || child != held_address ||
            child->value != 3000 + round || parent->right != kept || kept->value != 4242 ||
            large_slots[4000] != in_large || in_large->value != 5000 + round)
            failed_round = round;
        if (round % 10 == 9)
            corral_collect();
    }
    if (!ok(failed_round < 0, "young objects stored into an old headerless node with "
                              "corral_store_ref survive minor collections"))
        diag("lost in round %d", failed_round);
    ok(stats_now().minor_collections >= minors + 30, "corral_collect_young ran minor GCs (%llu)",
       (unsigned long long)(stats_now().minor_collections - minors));
    ok(stats_now().promoted_bytes > 0, "young survivors were promoted (%llu bytes)",
       (unsigned long long)stats_now().promoted_bytes);
    is_int(not_zeroed, 0, "every headerless node was zeroed when allocated");
    corral_handle_scope_close(scope);
}

/* CORRAL_GC_PROMOTE_AFTER=N for headerless objects: one that survived N - 1
 * minor collections is still young and dies in the next one once
 * unreachable; then it is old and only a major one reclaims it. An aging
 * headerless node held only by an old one survives every minor collection. */
static void headerless_aging(void *arg)
{
    start(arg);
    long promote_after = strtol(getenv("CORRAL_GC_PROMOTE_AFTER"), NULL, 10);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle old = corral_handle_new(new_hnode(1));
    corral_collect();
    corral_handle held = corral_handle_new(new_hnode(2));
    corral_weak *weak = corral_weak_new(*held);
    corral_collect_young();
    *held = NULL;
    corral_collect_young();
    if (promote_after == 2)
        ok(corral_weak_get(weak) == NULL, "a headerless node dead after one survival dies young");
    else
        ok(corral_weak_get(weak) != NULL,
           "a headerless node that survived a minor collection is old");
    corral_collect();
    ok(corral_weak_get(weak) == NULL, "a major collection reclaims it");
    corral_weak_free(weak);

    hnode *parent = new_hnode(10);
    store(*old, &((hnode *)*old)->left, parent);
    corral_collect_young(); /* the parent ages (or is old) */
    hnode *child = new_hnode(11);
    parent = ((hnode *)*old)->left; /* reachable and headerless: still where it was */
    store(parent, &parent->right, child);
    hnode *parent_address = parent, *child_address = child;
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 1000; i++)
            new_hnode(i); /* garbage between the survivors */
        corral_collect_young();
    }
    parent = ((hnode *)*old)->left;
    ok(parent == parent_address && parent->value == 10 && parent->right == child_address &&
           parent->right->value == 11,
       "an aging headerless node held only by old ones survives every minor collection");
    corral_handle_scope_close(scope);
}

/* Children that store a young reference into an old object without the
 * barrier, then collect young: CORRAL_GC_VERIFY=before must name it. */
typedef enum unbarriered_store {
    HEADERLESS_INTO_HEADERLESS, /* at offset 0 */
    BOX_INTO_HEADERLESS,        /* at offset 16 */
    HEADERLESS_INTO_BOX,        /* at offset 8 */
} unbarriered_store;

static void store_without_barrier(void *context)
{
    unbarriered_store kind = *(const unbarriered_store *)context;
    test_start("CORRAL_GC_GENERATIONAL=1 CORRAL_GC_VERIFY=before,after", true);
    corral_handle_scope_open();
    corral_handle old =
        corral_handle_new(kind == HEADERLESS_INTO_BOX ? (void *)new_box(1) : new_hnode(1));
    corral_collect();
    void *young = kind == BOX_INTO_HEADERLESS ? (void *)new_box(2) : new_hnode(2);
    /* The bug: plain stores into an old object. */
    if (kind == HEADERLESS_INTO_HEADERLESS)
        ((hnode *)*old)->left = young;
    else if (kind == BOX_INTO_HEADERLESS)
        ((hnode *)*old)->boxed = young;
    else
        ((box *)*old)->owner = young;
    corral_collect_young();
    printf("not caught\n");
}

static void missing_barrier_reported(unbarriered_store kind, const char *what, const char *type,
                                     int offset)
{
    run_result missing = run_child(store_without_barrier, &kind, 60);
    char pattern[256];
    snprintf(pattern, sizeof pattern,
             "missing write barrier: old object 0x[0-9a-f]+ of type %s holds young "
             "0x[0-9a-f]+ in its slot at offset %d ",
             type, offset);
    if (!ok(!missing.timed_out && WIFSIGNALED(missing.status) &&
                output_matches(missing.output, pattern),
            "CORRAL_GC_VERIFY=before names a store that skipped the barrier: %s", what))
        show_output(&missing);
    free(missing.output);
}

/* A pinned headerless node that nothing else holds neither dies nor has its
 * slot handed out again, through full and minor collections; unpinned, it
 * dies. */
static void pinned_headerless(void *arg)
{
    start(arg);
    hnode *pinned = new_hnode(77);
    corral_pin(pinned);
    corral_weak *weak = corral_weak_new(pinned);
    long handed_out_again = 0;
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < 20000; i++)
            handed_out_again += new_hnode(i) == pinned;
        if (round % 2)
            corral_collect();
        else
            corral_collect_young();
    }
    ok(handed_out_again == 0 && pinned->value == 77 && corral_weak_get(weak) == pinned,
       "a pinned headerless node survives, its slot never handed out again (%ld times)",
       handed_out_again);
    corral_unpin(pinned);
    corral_collect();
    ok(corral_weak_get(weak) == NULL, "unpinned, it dies at the next full collection");
    corral_weak_free(weak);
}

/* Children that store a reference no object starts at into a headerless
 * node's slot at offset 0, then collect: CORRAL_GC_VERIFY=before must name
 * the slot and say the reference is into a headerless region. */
typedef enum bad_reference {
    INTERIOR_OF_HEADERLESS, /* 16 bytes into a live 32-byte node */
    STALE_HEADERLESS,       /* a node that died, its slot poisoned */
} bad_reference;

static void store_bad_reference(void *context)
{
    bad_reference kind = *(const bad_reference *)context;
    test_start(kind == STALE_HEADERLESS ? "CORRAL_GC_STRESS=poison CORRAL_GC_VERIFY=before"
                                        : "CORRAL_GC_VERIFY=before",
               true);
    corral_handle_scope_open();
    corral_handle holder = corral_handle_new(new_hnode(1));
    if (kind == INTERIOR_OF_HEADERLESS) {
        corral_handle target = corral_handle_new(new_hnode(2));
        ((hnode *)*holder)->left = (hnode *)((char *)*target + 16);
    } else {
        hnode *dead = new_hnode(2);
        corral_handle_new(new_hnode(3)); /* keeps the region in use */
        corral_collect();
        ((hnode *)*holder)->left = dead;
    }
    corral_collect();
    printf("not caught\n");
}

static void bad_reference_reported(bad_reference kind, const char *what)
{
    run_result caught = run_child(store_bad_reference, &kind, 60);
    if (!ok(!caught.timed_out && WIFSIGNALED(caught.status) &&
                output_matches_any_case(caught.output,
                                        "^corral: verify before gc [0-9]+: .*of type hnode at "
                                        "offset 0 holds 0x[0-9a-f]+: .*headerless"),
            "CORRAL_GC_VERIFY=before names %s stored in a headerless node", what))
        show_output(&caught);
    free(caught.output);
}

/* ---- types the runtime refuses */

static void never_finalized(void *object)
{
    (void)object;
}

static const uint32_t at_16[] = {16};
static const corral_type bad_array = {CORRAL_TYPE_SIGNATURE, "bad-array", 16, 8,
                                      CORRAL_TYPE_HEADERLESS | CORRAL_TYPE_ARRAY, 0, NULL, NULL,
                                      NULL, 0, NULL};
static const corral_type bad_pinned = {CORRAL_TYPE_SIGNATURE, "bad-pinned", 16, 0,
                                       CORRAL_TYPE_HEADERLESS | CORRAL_TYPE_PINNED, 0, NULL, NULL,
                                       NULL, 0, NULL};
static const corral_type bad_finalizable = {CORRAL_TYPE_SIGNATURE, "bad-finalizable", 16, 0,
                                            CORRAL_TYPE_HEADERLESS | CORRAL_TYPE_FINALIZABLE, 0,
                                            NULL, NULL, never_finalized, 0, NULL};
static const corral_type bad_size_0 = {CORRAL_TYPE_SIGNATURE, "bad-size-0", 0, 0,
                                       CORRAL_TYPE_HEADERLESS, 0, NULL, NULL, NULL, 0, NULL};
static const corral_type bad_size_1025 = {CORRAL_TYPE_SIGNATURE, "bad-size-1025", 1025, 0,
                                          CORRAL_TYPE_HEADERLESS, 0, NULL, NULL, NULL, 0, NULL};
static const corral_type bad_ref_offset = {CORRAL_TYPE_SIGNATURE, "bad-ref-offset", 16, 0,
                                           CORRAL_TYPE_HEADERLESS, 1, at_16, NULL, NULL, 0, NULL};

static void allocate_bad_type(void *context)
{
    test_start("", true);
    corral_alloc(context);
    printf("not caught\n");
}

/* The first allocation of a bad type dies with "corral: fatal:
 * corral_alloc(type ... 'NAME' ...): PROBLEM", the problem saying what is
 * wrong (the extended regex about, case ignored) and, for the rules of
 * headerless types alone, that the type is headerless. */
static void bad_type_refused(const corral_type *type, const char *about, bool says_headerless)
{
    run_result refused = run_child(allocate_bad_type, (void *)type, 30);
    char line[256], problem[256];
    snprintf(line, sizeof line, "^corral: fatal: corral_alloc\\(type 0x[0-9a-f]+ '%s'[^)]*\\): ",
             type->name);
    if (says_headerless)
        snprintf(problem, sizeof problem, "%s.*headerless.*(%s)|%s.*(%s).*headerless", line,
                 about, line, about);
    else
        snprintf(problem, sizeof problem, "%s.*(%s)", line, about);
    if (!ok(!refused.timed_out && WIFSIGNALED(refused.status) &&
                WTERMSIG(refused.status) == SIGABRT && output_matches(refused.output, line) &&
                output_matches_any_case(refused.output, problem),
            "a headerless type %s is refused by name at its first allocation", type->name))
        show_output(&refused);
    free(refused.output);
}

/* ---- threads */

typedef struct tnode tnode;
struct tnode {
    tnode *next;
    long owner;
    long serial;
};
static const uint32_t tnode_refs[] = {offsetof(tnode, next)};
static const corral_type tnode_type = CORRAL_HEADERLESS_STRUCT_TYPE("tnode", tnode, tnode_refs);

enum { WORKERS = 4, LIST_MAX = 3000, LIST_KEEP = 1500, CHECK_EVERY = 5000 };
static corral_ref shared_lists; /* a global root: each worker's list at the end */
static long per_worker;
static atomic_long worker_failures, worker_not_zeroed;
static pthread_mutex_t failure_lock = PTHREAD_MUTEX_INITIALIZER;
static char first_failure[256];

static void worker_failed(long worker, long serial, const char *what)
{
    if (atomic_fetch_add(&worker_failures, 1) == 0) {
        pthread_mutex_lock(&failure_lock);
        snprintf(first_failure, sizeof first_failure, "worker %ld at allocation %ld: %s", worker,
                 serial, what);
        pthread_mutex_unlock(&failure_lock);
    }
}

/* The list from head must be serials newest first, all the worker's, at the
 * addresses recorded (a ring by serial). */
static void check_worker_list(long id, const tnode *head, long newest, tnode **addresses,
                              long length)
{
    long serial = newest;
    for (const tnode *n = head; n; n = n->next, serial--) {
        if (n != addresses[serial % LIST_MAX] || n->owner != id || n->serial != serial) {
            worker_failed(id, newest, "a list node moved, changed or belongs to another thread");
            return;
        }
    }
    if (newest - serial != length)
        worker_failed(id, newest, "the list has the wrong length");
}

static void *worker(void *arg)
{
    long id = (long)(intptr_t)arg;
    if (corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle head = corral_handle_new(NULL);
    tnode **addresses = calloc(LIST_MAX, sizeof *addresses);
    long length = 0;
    for (long serial = 0; serial < per_worker; serial++) {
        tnode *n = corral_alloc(&tnode_type);
        if (!all_zero(n, sizeof *n))
            atomic_fetch_add(&worker_not_zeroed, 1);
        n->owner = id;
        n->serial = serial;
        store(n, &n->next, *head);
        *head = n;
        addresses[serial % LIST_MAX] = n;
        if (++length == LIST_MAX) {
            tnode *last_kept = *head;
            for (int i = 1; i < LIST_KEEP; i++)
                last_kept = last_kept->next;
            store(last_kept, &last_kept->next, NULL);
            length = LIST_KEEP;
        }
        if (serial % CHECK_EVERY == CHECK_EVERY - 1) {
            if (id == 0)
                corral_collect();
            else if (id == 1)
                corral_collect_young();
            check_worker_list(id, *head, serial, addresses, length);
        }
        if (serial % 64 == 0)
            corral_poll();
    }
    check_worker_list(id, *head, per_worker - 1, addresses, length);
    corral_ref *slots = (corral_ref *)((char *)shared_lists + ref_array_type.size);
    store(shared_lists, &slots[id], *head);
    free(addresses);
    corral_handle_scope_close(scope);
    corral_thread_detach();
    return NULL;
}

/* 4 threads push onto lists of one headerless type, two of them collecting
 * now and then, while allocation triggers collections too; at the end every
 * list is whole and no slot was handed to two threads. */
static void threads_share_a_type(void *arg)
{
    start(arg);
    per_worker = tap_work(TAP_UNDER_TSAN ? 20000 : 60000);
    shared_lists = corral_alloc_array(&ref_array_type, WORKERS);
    corral_global_root_add(&shared_lists);
    corral_enter_unmanaged();
    pthread_t threads[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
    corral_leave_unmanaged();
    corral_collect();
    if (!ok(atomic_load(&worker_failures) == 0, "each worker's list intact after every check"))
        diag("%ld failures; first: %s", atomic_load(&worker_failures), first_failure);
    is_int(atomic_load(&worker_not_zeroed), 0, "every node was zeroed when allocated");
    corral_ref *slots = (corral_ref *)((char *)shared_lists + ref_array_type.size);
    uintptr_t *all = malloc(WORKERS * LIST_MAX * sizeof *all);
    long count = 0, wrong = 0;
    for (long id = 0; id < WORKERS; id++) {
        long serial = per_worker - 1;
        for (tnode *n = slots[id]; n && count < WORKERS * LIST_MAX; n = n->next, serial--) {
            all[count++] = (uintptr_t)n;
            wrong += n->owner != id || n->serial != serial;
        }
    }
    is_int(wrong, 0, "after the threads ended, every list holds its own thread's nodes in order");
    qsort(all, (size_t)count, sizeof *all, by_address);
    long duplicates = 0;
    for (long i = 1; i < count; i++)
        duplicates += all[i] == all[i - 1];
    is_int(duplicates, 0, "no slot was handed to two threads (%ld live nodes)", count);
    /* Each of worker 0's requests gets a collection that starts after it;
     * worker 1's may share one with worker 0's (a request older than the
     * last collection does nothing), so only one worker's count is sure. */
    uint64_t explicit_collections = (uint64_t)(per_worker / CHECK_EVERY);
    ok(stats_now().collections >= explicit_collections, "collections ran meanwhile (%llu)",
       (unsigned long long)stats_now().collections);
    free(all);
    corral_global_root_remove(&shared_lists);
}

int main(int argc, char **argv)
{
    test_seed = tap_seed(argc, argv);
    static const mode_case modes[] = {
        {"CORRAL_GC_THREADS=1 CORRAL_GC_VERIFY=before,after,remark", false, false},
        {"CORRAL_GC_THREADS=4 CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=after", false,
         true},
        {"CORRAL_GC_THREADS=2 CORRAL_GC_STRESS=alloc:500,move-all CORRAL_GC_VERIFY=after", false,
         false},
        {"CORRAL_GC_THREADS=2 CORRAL_GC_STRESS=quarantine,move-all", false, false},
        {"CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=poison CORRAL_GC_VERIFY=before,after", true,
         false},
        {"CORRAL_GC_GENERATIONAL=1 CORRAL_GC_THREADS=3 CORRAL_GC_STRESS=alloc:700,mixed:3,"
         "move-all,poison CORRAL_GC_VERIFY=before,after",
         true, false},
        {"CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=1 CORRAL_GC_NURSERY=256K "
         "CORRAL_GC_STRESS=minor,poison CORRAL_GC_VERIFY=before",
         true, false},
        {"CORRAL_TLAB_SIZE=4K CORRAL_TLAB_ZERO=1 CORRAL_LARGE_OBJECT_SIZE=1K CORRAL_HEAP_MIN=1M "
         "CORRAL_GC_STRESS=poison CORRAL_GC_VERIFY=after",
         false, false},
    };
    enum { MODES = sizeof modes / sizeof modes[0] };
    char name[256];
    for (int i = 0; i < MODES; i++) {
        snprintf(name, sizeof name, "trees of headerless nodes and boxes: %s", modes[i].settings);
        tap_subtest(name, 60, trees_keep_contents_and_addresses, (void *)&modes[i]);
    }
    static const int interleaved_modes[] = {0, 1, 2, 4, 5, 7};
    for (size_t i = 0; i < sizeof interleaved_modes / sizeof interleaved_modes[0]; i++) {
        const mode_case *mode = &modes[interleaved_modes[i]];
        snprintf(name, sizeof name, "%d headerless types interleaved: %s", TYPE_COUNT,
                 mode->settings);
        tap_subtest(name, 60, many_types_interleaved, (void *)mode);
    }
    tap_subtest("dead slots reused, 1 worker, verified", 60, dead_slots_reused,
                "CORRAL_GC_THREADS=1 CORRAL_GC_VERIFY=before,after");
    tap_subtest("dead slots reused, move-all, poison", 60, dead_slots_reused,
                "CORRAL_GC_THREADS=2 CORRAL_GC_STRESS=move-all,poison");
    tap_subtest("dead slots reused, generational", 60, dead_slots_reused,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=poison CORRAL_GC_VERIFY=after");
    tap_subtest("steady state: dead slots of old objects reused, move-all, poison", 60,
                steady_state_bounded,
                &(steady_case){"CORRAL_GC_STRESS=move-all,poison", 1});
    tap_subtest("steady state: dead slots reused, generational, 3 minors per major", 60,
                steady_state_bounded,
                &(steady_case){"CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=poison", 4});
    tap_subtest("steady state, generational, promoted after one minor", 60, steady_state_bounded,
                &(steady_case){"CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=1 "
                               "CORRAL_GC_STRESS=poison CORRAL_GC_VERIFY=after",
                               3});
    tap_subtest("empty regions given back: 24 types through a 16 MiB heap", 60, regions_given_back,
                "CORRAL_HEAP_MIN=4M CORRAL_HEAP_MAX=16M CORRAL_GC_STRESS=move-all,poison "
                "CORRAL_GC_VERIFY=after");
    tap_subtest("empty regions given back, quarantine", 60, regions_given_back,
                "CORRAL_HEAP_MIN=4M CORRAL_HEAP_MAX=16M CORRAL_GC_STRESS=quarantine,move-all");
    tap_subtest("empty regions given back, generational", 60, regions_given_back,
                "CORRAL_HEAP_MIN=4M CORRAL_HEAP_MAX=16M CORRAL_GC_GENERATIONAL=1 "
                "CORRAL_GC_NURSERY=1M CORRAL_GC_STRESS=mixed:4,poison CORRAL_GC_VERIFY=after");
    tap_subtest("old headerless objects keep young ones: corral_store_ref", 60,
                old_headerless_to_young,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=poison CORRAL_GC_VERIFY=before,after");
    tap_subtest("old headerless objects keep young ones, 4 workers, move-all", 60,
                old_headerless_to_young,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_THREADS=4 CORRAL_GC_STRESS=move-all,poison "
                "CORRAL_GC_VERIFY=before,after");
    tap_subtest("headerless objects promoted after two minor collections", 60, headerless_aging,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=2 CORRAL_GC_STRESS=poison "
                "CORRAL_GC_VERIFY=before,after");
    tap_subtest("headerless objects promoted after one minor collection", 60, headerless_aging,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=1 CORRAL_GC_STRESS=poison "
                "CORRAL_GC_VERIFY=before,after");
    tap_subtest("a pinned headerless node", 60, pinned_headerless,
                "CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=after");
    tap_subtest("a pinned headerless node, generational", 60, pinned_headerless,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=poison CORRAL_GC_VERIFY=before,after");
    bad_reference_reported(INTERIOR_OF_HEADERLESS, "an interior pointer into a headerless node");
    bad_reference_reported(STALE_HEADERLESS, "a reference to a dead headerless node");
    missing_barrier_reported(HEADERLESS_INTO_HEADERLESS, "a headerless node into a headerless one",
                             "hnode", 0);
    missing_barrier_reported(BOX_INTO_HEADERLESS, "a box into a headerless node", "hnode", 16);
    missing_barrier_reported(HEADERLESS_INTO_BOX, "a headerless node into a box", "box", 8);
    bad_type_refused(&bad_array, "array", true);
    bad_type_refused(&bad_pinned, "pinned", true);
    bad_type_refused(&bad_finalizable, "finaliz", true);
    bad_type_refused(&bad_size_0, "size|bytes", true);
    bad_type_refused(&bad_size_1025, "size|bytes|1024", true);
    bad_type_refused(&bad_ref_offset, "offset", false);
    tap_subtest("4 threads share a headerless type, 2 GC workers, move-all", 60,
                threads_share_a_type,
                "CORRAL_GC_THREADS=2 CORRAL_HEAP_MIN=2M CORRAL_GC_STRESS=move-all,poison "
                "CORRAL_GC_VERIFY=after");
    tap_subtest("4 threads share a headerless type, generational, mixed", 60,
                threads_share_a_type,
                "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_THREADS=2 CORRAL_GC_NURSERY=256K "
                "CORRAL_GC_STRESS=alloc:random:500,mixed:4,poison CORRAL_GC_VERIFY=before");
    return done_testing();
}
