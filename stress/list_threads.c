/* list_threads — linked lists cut and relinked by several threads.
 *
 * Shared lists hang off a reference array held in a global root. Worker
 * threads build private chains (allocating, so collecting, with no lock
 * held), then take the lock (pthread_mutex_lock is an unmanaged call: a
 * thread blocked there is UNMANAGED and its frames, private chain included,
 * are walked from its anchor) and splice the chain in, cut a tail off one
 * list onto another, or pop nodes. Every node carries a unique id; the
 * count and the sum of ids on the lists are tracked under the lock and
 * checked at the end, with every id seen exactly once.
 */
#include "torture.h"

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef next;
    long id;
    long check; /* ~id: a torn or stale node shows */
};

static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type heads_type = CORRAL_REF_ARRAY_TYPE("node[] heads");

enum { LISTS = 16, THREADS = 4 };

static corral_ref heads; /* global root */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Under lock: what the lists must hold. */
static long total_count, total_sum;
static _Atomic long next_id = 1;
static long operations;

static noderef new_node(void)
{
    noderef n = corral_alloc(&node_type);
    long id = next_id++;
    n->id = id;
    n->check = ~id;
    return n;
}

/* Inlined even at -O0: it returns an interior reference, which may not
 * cross a call (corral-opt rejects that). */
static inline __attribute__((always_inline)) noderef CORRAL_REF *list_heads(void)
{
    return TORTURE_ELEMENTS(noderef, heads);
}

/* A private chain of length nodes; returns its head, *tail_out its last. */
static noderef build_chain(long length, long *sum_out)
{
    noderef head = NULL;
    long sum = 0;
    for (long i = 0; i < length; i++) {
        noderef n = new_node();
        n->next = head;
        head = n;
        sum += n->id;
    }
    *sum_out = sum;
    return head;
}

static long chain_sum(noderef head, long *count_out)
{
    long sum = 0, count = 0;
    for (noderef p = head; p; p = p->next) {
        CHECK(p->check == ~p->id, "node %ld is torn (check %ld)", p->id, p->check);
        sum += p->id;
        count++;
    }
    *count_out = count;
    return sum;
}

static void splice_chain(long list, noderef chain)
{
    noderef tail = chain;
    while (tail->next)
        tail = tail->next;
    tail->next = list_heads()[list];
    list_heads()[list] = chain;
}

/* Moves the tail of list from (after k nodes) to the front of list to. */
static void cut_and_relink(long from, long to, long k)
{
    noderef p = list_heads()[from];
    if (!p)
        return;
    for (long i = 0; i < k && p->next; i++)
        p = p->next;
    noderef cut = p->next;
    if (!cut)
        return;
    p->next = NULL;
    noderef end = cut;
    while (end->next)
        end = end->next;
    end->next = list_heads()[to];
    list_heads()[to] = cut;
}

static void pop_some(long list, long count)
{
    for (long i = 0; i < count; i++) {
        noderef head = list_heads()[list];
        if (!head)
            return;
        list_heads()[list] = head->next;
        total_count--;
        total_sum -= head->id;
    }
}

static void *worker(void *arg)
{
    uint64_t random = torture_stream((uint64_t)(uintptr_t)arg);
    for (long op = 0; op < operations; op++) {
        long length = 1 + (long)torture_below(&random, 60);
        long sum;
        noderef chain = build_chain(length, &sum);
        long count;
        CHECK_EQ(chain_sum(chain, &count), sum, "a private chain before it is shared");
        CHECK_EQ(count, length, "length of a private chain");
        pthread_mutex_lock(&lock); /* blocks UNMANAGED: collections go on */
        long a = (long)torture_below(&random, LISTS), b = (long)torture_below(&random, LISTS);
        switch (torture_below(&random, 4)) {
        case 0:
        case 1:
            splice_chain(a, chain);
            total_count += length;
            total_sum += sum;
            break;
        case 2:
            cut_and_relink(a, b, (long)torture_below(&random, 40));
            break;
        default:
            pop_some(a, (long)torture_below(&random, 30));
            /* A collection with the lock held: the others wait UNMANAGED. */
            if (torture_below(&random, 8) == 0)
                new_node();
            break;
        }
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("list_threads", argc, argv);
    operations = torture_count(300, 20);
    heads = corral_alloc_array(&heads_type, LISTS);
    corral_global_root_add(&heads);
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(worker, (void *)(i + 1));
    for (int i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    corral_collect();
    long count = 0, sum = 0;
    long ids = next_id;
    unsigned char *seen = calloc((size_t)ids, 1);
    for (long list = 0; list < LISTS; list++) {
        long list_count;
        sum += chain_sum(list_heads()[list], &list_count);
        count += list_count;
        for (noderef p = list_heads()[list]; p; p = p->next) {
            CHECK(p->id > 0 && p->id < ids, "node id %ld in range", p->id);
            CHECK(!seen[p->id], "node %ld is on the lists twice (a cycle or a lost cut)", p->id);
            seen[p->id] = 1;
        }
    }
    free(seen);
    CHECK_EQ(count, total_count, "nodes on the lists");
    CHECK_EQ(sum, total_sum, "sum of node ids on the lists");
    corral_global_root_remove(&heads);
    return torture_finish();
}
