/* headerless — headerless objects (CORRAL_TYPE_HEADERLESS) in managed code,
 * mixed with ordinary ones.
 *
 * A long-lived tree of headerless nodes, each with an ordinary box pointing
 * back at it, becomes old; every round stores young boxes into its nodes and
 * young subtrees under its leaves (the pass puts the write barrier after
 * each store), and the whole tree is checked against a shadow kept in C
 * memory. Short-lived trees are built top-down and bottom-up and checked
 * node by node. Derived pointers into headerless objects (a field, a
 * reference slot stored through, a pointer walking the words of a 1024-byte
 * object, one that alone keeps its object alive) live across calls that
 * collect. Two more threads push and append to lists of headerless cells
 * (of 9 types, more than the 8 entries of the per-thread allocation cache)
 * holding headerless numbers, in reference arrays that become old. A
 * ballast of 1024-byte pages filling three regions (one when the work is
 * scaled down), held by an old array, is replaced at random, so slots die
 * at every age and are handed out again. Every headerless object records
 * the address it was allocated at, which must never change, and comes
 * zeroed from the allocator.
 */
#include "torture.h"

typedef struct hnode CORRAL_REF *hnoderef;
typedef struct box CORRAL_REF *boxref;
typedef struct cell CORRAL_REF *cellref;
typedef struct number CORRAL_REF *numberref;
typedef struct page CORRAL_REF *pageref;

/* 40 bytes, no header: the first reference at offset 0. */
struct hnode {
    hnoderef left, right;
    boxref box;
    long value;
    long birth; /* its address when allocated */
};
/* An ordinary object, which moves. */
struct box {
    corral_header header;
    hnoderef owner;
    long value;
    long round; /* when it was stored into its owner */
};
/* 24 bytes. */
struct cell {
    cellref next;
    numberref number;
    long value;
};
/* 8 bytes, no references. */
struct number {
    long value;
};
/* 1024 bytes: the largest headerless type. */
enum { PAGE_WORDS = 125 };
struct page {
    pageref next;
    long birth;
    long words[PAGE_WORDS];
    long sum;
};
_Static_assert(sizeof(struct page) == CORRAL_HEADERLESS_MAX_SIZE, "a page is the largest size");

static const uint32_t hnode_refs[] = {offsetof(struct hnode, left), offsetof(struct hnode, right),
                                      offsetof(struct hnode, box)};
static const corral_type hnode_type =
    CORRAL_HEADERLESS_STRUCT_TYPE("hnode", struct hnode, hnode_refs);
static const uint32_t box_refs[] = {offsetof(struct box, owner)};
static const corral_type box_type = CORRAL_STRUCT_TYPE("box", struct box, box_refs);
static const uint32_t cell_refs[] = {offsetof(struct cell, next), offsetof(struct cell, number)};
/* Side by side, 72 bytes apart: consecutive entries of the per-thread cache,
 * so the ninth shares the first's and allocation hands entries over. */
enum { CELL_TYPES = 9 };
#define CELL_TYPE(name) CORRAL_HEADERLESS_STRUCT_TYPE(name, struct cell, cell_refs)
static const corral_type cell_types[CELL_TYPES] = {
    CELL_TYPE("cell-0"), CELL_TYPE("cell-1"), CELL_TYPE("cell-2"),
    CELL_TYPE("cell-3"), CELL_TYPE("cell-4"), CELL_TYPE("cell-5"),
    CELL_TYPE("cell-6"), CELL_TYPE("cell-7"), CELL_TYPE("cell-8")};
static const corral_type number_type = CORRAL_HEADERLESS_LEAF_TYPE("number", struct number);
static const uint32_t page_refs[] = {offsetof(struct page, next)};
static const corral_type page_type = CORRAL_HEADERLESS_STRUCT_TYPE("page", struct page, page_refs);
static const corral_type lists_type = CORRAL_REF_ARRAY_TYPE("cell[] lists");
static const corral_type ballast_type = CORRAL_REF_ARRAY_TYPE("page[] ballast");

enum { LONG_DEPTH = 9, LISTS = 16, LIST_LIMIT_MOST = 300, THREADS = 2, BALLAST_MOST = 768 };
enum { LONG_NODES = (2 << LONG_DEPTH) - 1, FIRST_LEAF = (1 << LONG_DEPTH) - 1 };

static uint64_t random_state; /* the main thread's */

static long address_of(const void CORRAL_REF *object)
{
    return (long)(uintptr_t)object;
}

/* Whether the object is still at the address it recorded in its birth field
 * (a bool: an integer made from a reference may not live across the
 * failure report's calls). */
static inline __attribute__((always_inline)) bool born_here(const long CORRAL_REF *birth,
                                                            size_t offset)
{
    return (long)((uintptr_t)birth - offset) == *birth;
}

static hnoderef new_hnode(long value)
{
    hnoderef n = corral_alloc(&hnode_type);
    CHECK(!n->left && !n->right && !n->box && !n->value && !n->birth,
          "a new headerless node is not zeroed");
    n->value = value;
    n->birth = address_of(n);
    return n;
}

static boxref new_box(hnoderef owner, long value, long round)
{
    boxref b = corral_alloc(&box_type);
    b->owner = owner;
    b->value = value;
    b->round = round;
    return b;
}

static numberref new_number(long value)
{
    numberref n = corral_alloc(&number_type);
    CHECK_EQ(n->value, 0, "a new headerless number is zeroed");
    n->value = value;
    return n;
}

static cellref new_cell(long kind, long value)
{
    numberref number = new_number(value * 7);
    cellref c = corral_alloc(&cell_types[kind % CELL_TYPES]);
    CHECK(!c->next && !c->number && !c->value, "a new headerless cell is not zeroed");
    c->number = number;
    c->value = value;
    return c;
}

static pageref new_page(long seed)
{
    pageref p = corral_alloc(&page_type);
    long dirty = p->birth | p->sum | (long)(p->next != NULL);
    for (int i = 0; i < PAGE_WORDS; i++)
        dirty |= p->words[i];
    CHECK_EQ(dirty, 0, "a new 1024-byte headerless page is zeroed");
    p->birth = address_of(p);
    long sum = 0;
    for (int i = 0; i < PAGE_WORDS; i++) {
        p->words[i] = seed * 31 + i;
        sum += p->words[i];
    }
    p->sum = sum;
    return p;
}

/* Garbage of every kind, headerless and ordinary (less when the work is
 * scaled down, where stress collects at nearly every allocation); now and
 * then a collection, full or young. */
static __attribute__((noinline)) void churn(uint64_t *random)
{
    long count = (long)torture_below(random, torture_work >= 100 ? 40 : 10);
    for (long i = 0; i < count; i++) {
        switch (i % 5) {
        case 0: new_hnode(i); break;
        case 1: new_box(NULL, i, 0); break;
        case 2: new_cell(i, i); break;
        case 3: new_number(i); break;
        default:
            if (torture_below(random, 8) == 0)
                new_page(i);
        }
    }
    uint64_t roll = torture_below(random, 32);
    if (roll == 0)
        corral_collect();
    else if (roll == 1)
        corral_collect_young();
}

/* ---- trees */

/* Node value v has children 2v + 1 and 2v + 2; its box holds 3v + 1. */
static hnoderef top_down(int depth, long value)
{
    hnoderef n = new_hnode(value);
    n->box = new_box(n, 3 * value + 1, 0);
    if (depth > 0) {
        if (torture_below(&random_state, 32) == 0)
            churn(&random_state); /* n may be old when its children are stored */
        n->left = top_down(depth - 1, 2 * value + 1);
        n->right = top_down(depth - 1, 2 * value + 2);
    }
    return n;
}

/* Children first, so parents are younger than what they point at. */
static hnoderef bottom_up(int depth, long value)
{
    hnoderef left = depth > 0 ? bottom_up(depth - 1, 2 * value + 1) : NULL;
    hnoderef right = depth > 0 ? bottom_up(depth - 1, 2 * value + 2) : NULL;
    boxref b = new_box(NULL, 3 * value + 1, 0);
    hnoderef n = new_hnode(value);
    n->left = left;
    n->right = right;
    n->box = b;
    b->owner = n;
    return n;
}

static void check_node(hnoderef n, long value)
{
    CHECK(n != NULL, "node %ld is missing", value);
    CHECK(born_here(&n->birth, offsetof(struct hnode, birth)),
          "headerless node %ld moved from %#lx (it must never move)", value, n->birth);
    CHECK_EQ(n->value, value, "a headerless node's value");
    CHECK(n->box != NULL, "node %ld has no box", value);
    CHECK_EQ(n->box->value, 3 * value + 1, "the value of a node's box");
    CHECK(n->box->owner == n, "the box of node %ld points elsewhere", value);
}

/* Returns the nodes of a complete tree, every one checked. */
static long check_tree(hnoderef n, int depth, long value)
{
    check_node(n, value);
    if (depth == 0) {
        CHECK(!n->left && !n->right, "leaf %ld has children", value);
        return 1;
    }
    return 1 + check_tree(n->left, depth - 1, 2 * value + 1) +
           check_tree(n->right, depth - 1, 2 * value + 2);
}

/* The shadow of the long-lived tree, in C memory: per node the round its
 * box was stored in, per leaf the round of the subtree under it (-1: none). */
static long *box_round, *graft_round;

enum { GRAFT_DEPTH = 2 };
static long graft_value(long round)
{
    return 1000000 + round;
}

static hnoderef node_at(hnoderef root, long index)
{
    int path[32], depth = 0;
    for (long i = index; i > 0; i = (i - 1) / 2)
        path[depth++] = (int)((i - 1) % 2);
    hnoderef n = root;
    while (depth > 0)
        n = path[--depth] ? n->right : n->left;
    return n;
}

static long check_long_lived(hnoderef n, int depth, long index)
{
    check_node(n, index);
    CHECK_EQ(n->box->round, box_round[index], "the round of a box stored into an old node");
    if (depth == LONG_DEPTH) {
        CHECK(n->right == NULL, "leaf %ld has a right child", index);
        long round = graft_round[index - FIRST_LEAF];
        if (round < 0) {
            CHECK(n->left == NULL, "leaf %ld has a subtree it was never given", index);
            return 1;
        }
        return 1 + check_tree(n->left, GRAFT_DEPTH, graft_value(round));
    }
    return 1 + check_long_lived(n->left, depth + 1, 2 * index + 1) +
           check_long_lived(n->right, depth + 1, 2 * index + 2);
}

/* Young boxes and young subtrees stored into old nodes. */
static void store_into_old(hnoderef tree, long round)
{
    for (int i = 0; i < 8; i++) {
        long index = (long)torture_below(&random_state, LONG_NODES);
        hnoderef node = node_at(tree, index);
        boxref fresh = new_box(node, 3 * index + 1, round);
        node->box = fresh;
        box_round[index] = round;
        if (i % 3 == 0)
            churn(&random_state);
    }
    long leaf = FIRST_LEAF + (long)torture_below(&random_state, LONG_NODES - FIRST_LEAF);
    hnoderef graft = top_down(GRAFT_DEPTH, graft_value(round));
    node_at(tree, leaf)->left = graft;
    graft_round[leaf - FIRST_LEAF] = round;
}

/* ---- derived pointers into headerless objects (helpers inlined: a
 * derived pointer may not cross a call that is not) */

static void derived_field_of_old_node(hnoderef tree)
{
    long index = (long)torture_below(&random_state, LONG_NODES);
    long CORRAL_REF *value = &node_at(tree, index)->value;
    long CORRAL_REF *birth = &node_at(tree, index)->birth;
    churn(&random_state);
    CHECK_EQ(*value, index, "an old node's value through a derived pointer");
    CHECK(born_here(birth, offsetof(struct hnode, birth)),
          "a derived pointer into old node %ld: the node moved from %#lx", index, *birth);
}

static void derived_field_of_young_node(long round)
{
    hnoderef n = new_hnode(round);
    long CORRAL_REF *value = &n->value;
    churn(&random_state);
    *value += 5;
    churn(&random_state);
    CHECK_EQ(n->value, round + 5, "a write through a derived pointer into a young node");
    CHECK(born_here(&n->birth, offsetof(struct hnode, birth)),
          "a young headerless node moved from %#lx", n->birth);
}

/* A reference slot of an old headerless node, stored through after
 * collections: the barrier covers a store through a derived pointer. */
static void derived_reference_slot(hnoderef tree, long round)
{
    long index = (long)torture_below(&random_state, LONG_NODES);
    hnoderef node = node_at(tree, index);
    boxref CORRAL_REF *slot = &node->box;
    churn(&random_state);
    boxref fresh = new_box(node, 3 * index + 1, round);
    churn(&random_state);
    *slot = fresh;
    box_round[index] = round;
    churn(&random_state);
    CHECK(node->box == fresh, "a box stored through a derived pointer to node %ld's slot", index);
}

/* A pointer walking the words of a 1024-byte page, collections between. */
static void walking_pointer(long round)
{
    pageref page = new_page(round);
    long CORRAL_REF *word = &page->words[0];
    long sum = 0;
    for (int i = 0; i < PAGE_WORDS; i++, word++) {
        CHECK_EQ(*word, round * 31 + i, "a page word read through a walking pointer");
        *word += 1;
        sum += *word;
        if (i % 25 == 0)
            churn(&random_state);
    }
    CHECK_EQ(sum, page->sum + PAGE_WORDS, "the page's words after writes through the pointer");
    CHECK(born_here(&page->birth, offsetof(struct page, birth)),
          "a headerless page moved from %#lx", page->birth);
}

static inline __attribute__((always_inline)) long CORRAL_REF *orphan_birth(long round)
{
    hnoderef n = new_hnode(round);
    churn(&random_state);
    return &n->birth;
}

/* Only a derived pointer keeps the node alive across full collections. */
static void orphaned_derived(long round)
{
    long CORRAL_REF *birth = orphan_birth(round);
    corral_collect();
    churn(&random_state);
    for (int i = 0; i < (torture_work >= 100 ? 200 : 50); i++)
        new_hnode(-i); /* dead slots are reused: not the orphan's */
    corral_collect_young();
    CHECK(born_here(birth, offsetof(struct hnode, birth)),
          "a node kept alive by a derived pointer alone moved from %#lx", *birth);
    CHECK_EQ(birth[-1], round, "its value");
}

/* ---- the ballast: 768 KiB of pages, three regions (256 KiB, one region,
 * when TORTURE_WORK scales the work down: each collection verifies it) */

static long ballast_size;
static long *ballast_seeds; /* the shadow: the seed each element's page was filled from */

static void check_page(pageref page, long seed)
{
    CHECK(page != NULL, "a ballast page is missing");
    CHECK(born_here(&page->birth, offsetof(struct page, birth)),
          "a ballast page moved from %#lx", page->birth);
    long sum = 0;
    for (int i = 0; i < PAGE_WORDS; i++) {
        CHECK_EQ(page->words[i], seed * 31 + i, "a ballast page's word");
        sum += page->words[i];
    }
    CHECK_EQ(page->sum, sum, "a ballast page's sum");
}

static corral_ref make_ballast(void)
{
    corral_ref ballast = corral_alloc_array(&ballast_type, (uint64_t)ballast_size);
    for (long i = 0; i < ballast_size; i++) {
        pageref page = new_page(i);
        TORTURE_ELEMENTS(pageref, ballast)[i] = page;
        ballast_seeds[i] = i;
    }
    return ballast;
}

/* Replaces random elements (young pages into an old array), each checked
 * before it dies. */
static void replace_ballast(corral_ref ballast, long round, long count)
{
    for (long i = 0; i < count; i++) {
        long index = (long)torture_below(&random_state, (uint64_t)ballast_size);
        check_page(TORTURE_ELEMENTS(pageref, ballast)[index], ballast_seeds[index]);
        long seed = round * ballast_size + index;
        pageref fresh = new_page(seed);
        TORTURE_ELEMENTS(pageref, ballast)[index] = fresh;
        ballast_seeds[index] = seed;
    }
}

static void check_ballast(corral_ref ballast)
{
    for (long i = 0; i < ballast_size; i++)
        check_page(TORTURE_ELEMENTS(pageref, ballast)[i], ballast_seeds[i]);
}

/* ---- lists of cells, on several threads */

typedef struct list_shadow {
    long count[LISTS], sum[LISTS];
} list_shadow;

static void check_list(cellref head, long count, long sum, long list)
{
    long found = 0, total = 0;
    for (cellref c = head; c; c = c->next) {
        CHECK(c->number != NULL, "a cell of list %ld has no number", list);
        CHECK_EQ(c->number->value, c->value * 7, "a cell's number");
        found++;
        total += c->value;
    }
    CHECK_EQ(found, count, "the length of a list of cells");
    CHECK_EQ(total, sum, "the sum of a list of cells");
}

/* Pushes at the head, appends at the tail (a young cell into an old one),
 * drops a whole list now and then. */
static void lists_work(uint64_t *random, long rounds, long first_value)
{
    corral_ref lists = corral_alloc_array(&lists_type, LISTS);
    list_shadow *shadow = calloc(1, sizeof *shadow);
    long value = first_value;
    for (long round = 0; round < rounds; round++) {
        long list = (long)torture_below(random, LISTS);
        long pushes = 1 + (long)torture_below(random, 30);
        for (long i = 0; i < pushes; i++) {
            cellref c = new_cell(list, ++value);
            c->next = TORTURE_ELEMENTS(cellref, lists)[list];
            TORTURE_ELEMENTS(cellref, lists)[list] = c;
            shadow->count[list]++;
            shadow->sum[list] += value;
        }
        churn(random);
        cellref tail = TORTURE_ELEMENTS(cellref, lists)[list];
        while (tail->next)
            tail = tail->next;
        cellref appended = new_cell(list, ++value);
        tail->next = appended;
        shadow->count[list]++;
        shadow->sum[list] += value;
        churn(random);
        long checked = (long)torture_below(random, LISTS);
        check_list(TORTURE_ELEMENTS(cellref, lists)[checked], shadow->count[checked],
                   shadow->sum[checked], checked);
        /* Shorter lists when the work is scaled down: each collection verifies them. */
        long limit = torture_work >= 100 ? LIST_LIMIT_MOST : LIST_LIMIT_MOST / 5;
        if (shadow->count[list] > limit) {
            TORTURE_ELEMENTS(cellref, lists)[list] = NULL; /* the whole list dies */
            shadow->count[list] = shadow->sum[list] = 0;
        }
    }
    for (long list = 0; list < LISTS; list++)
        check_list(TORTURE_ELEMENTS(cellref, lists)[list], shadow->count[list], shadow->sum[list],
                   list);
    free(shadow);
}

static long rounds;

static void *lists_thread(void *arg)
{
    long id = (long)arg;
    uint64_t random = torture_stream((uint64_t)id + 10);
    lists_work(&random, rounds, id * 100000000L);
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("headerless", argc, argv);
    random_state = torture_stream(1);
    rounds = torture_count(400, 5);
    box_round = calloc(LONG_NODES, sizeof *box_round);
    graft_round = malloc((LONG_NODES - FIRST_LEAF) * sizeof *graft_round);
    for (long i = 0; i < LONG_NODES - FIRST_LEAF; i++)
        graft_round[i] = -1;
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(lists_thread, (void *)(i + 1));

    ballast_size = torture_work >= 100 ? BALLAST_MOST : BALLAST_MOST / 3;
    ballast_seeds = malloc((size_t)ballast_size * sizeof *ballast_seeds);
    corral_ref ballast = make_ballast();
    hnoderef tree = top_down(LONG_DEPTH, 0);
    corral_collect(); /* old from now on (CORRAL_GC_GENERATIONAL=1) */
    int shallow = torture_work >= 100 ? 6 : 4;
    for (long round = 1; round <= rounds; round++) {
        store_into_old(tree, round);
        replace_ballast(ballast, round, torture_work >= 100 ? 40 : 10);
        derived_field_of_old_node(tree);
        derived_field_of_young_node(round);
        derived_reference_slot(tree, round);
        walking_pointer(round);
        if (round % 4 == 0)
            orphaned_derived(round);
        hnoderef young = top_down(shallow, round);
        hnoderef older = bottom_up(shallow, round);
        churn(&random_state);
        CHECK_EQ(check_tree(young, shallow, round), (2L << shallow) - 1, "a top-down tree");
        CHECK_EQ(check_tree(older, shallow, round), (2L << shallow) - 1, "a bottom-up tree");
        if (round % 10 == 0 || round == rounds) {
            CHECK(check_long_lived(tree, 0, 0) >= LONG_NODES, "the long-lived tree");
            check_ballast(ballast);
        }
    }
    lists_work(&random_state, rounds, 0);
    for (int i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    corral_collect();
    CHECK(check_long_lived(tree, 0, 0) >= LONG_NODES, "the long-lived tree at the end");
    check_ballast(ballast);
    free(ballast_seeds);
    free(box_round);
    free(graft_round);
    return torture_finish();
}
