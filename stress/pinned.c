/* pinned — pinned buffers written by C through raw addresses while other
 * objects move around them.
 *
 * Threads allocate garbage, then a data array in the moving heap, pin it
 * (sometimes twice: pins nest), hand its raw address to plain C
 * (pinned_c.c), and let unmanaged C fill it while collections run; the
 * array must not have moved and must hold what C wrote. Objects allocated
 * around the pinned one form a chain that is checked after every round,
 * so compaction flowing around pinned objects cannot corrupt neighbours.
 * Instances of a pinned-by-type type keep their address for good.
 */
#include "torture.h"

#include "pinned.h"

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef next;
    long value;
};

static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type ballast_type = CORRAL_REF_ARRAY_TYPE("node[] ballast");
static const corral_type buffer_type = CORRAL_DATA_ARRAY_TYPE("long[] buffer", long);
static const corral_type pinned_node_type = {
    CORRAL_TYPE_SIGNATURE, "pinned node", sizeof(struct node), 0, CORRAL_TYPE_PINNED, 1,
    node_refs, 0, 0, 0, 0};

enum { THREADS = 3, SLOTS_PER_THREAD = PINNED_SLOTS / (THREADS + 1) };

static long ballast_length; /* up to 4000 nodes per thread */

static long rounds;

static noderef new_node(long value, noderef next)
{
    noderef n = corral_alloc(&node_type);
    n->value = value;
    n->next = next;
    return n;
}

static long chain_sum(noderef chain)
{
    long sum = 0;
    for (noderef p = chain; p; p = p->next)
        sum += p->value;
    return sum;
}

static void *pin_thread(void *arg)
{
    long self = (long)arg;
    uint64_t random = torture_stream((uint64_t)self);
    long first_slot = self * SLOTS_PER_THREAD;
    noderef forever = corral_alloc(&pinned_node_type); /* pinned by its type */
    forever->value = self;
    pinned_remember(first_slot, forever);
    /* Live data over several regions, a quarter replaced each round: pins hold
     * a region in place, the rest must keep moving. */
    corral_ref ballast = corral_alloc_array(&ballast_type, (uint64_t)ballast_length);
    for (long i = 0; i < ballast_length; i++)
        TORTURE_ELEMENTS(noderef, ballast)[i] = new_node(i, NULL);
    for (long round = 0; round < rounds; round++) {
        long slot = first_slot + 1 + (long)torture_below(&random, SLOTS_PER_THREAD - 1);
        noderef chain = NULL;
        long expected_chain = 0;
        for (int i = 0; i < 30; i++) {
            new_node(-1, NULL); /* garbage before the buffer: it would slide */
            chain = new_node(i, chain);
            expected_chain += i;
        }
        long length = 8 + (long)torture_below(&random, 900);
        corral_ref buffer = corral_alloc_array(&buffer_type, (uint64_t)length);
        chain = new_node(1000, chain);
        expected_chain += 1000;
        bool twice = torture_below(&random, 3) == 0;
        corral_pin(buffer);
        if (twice)
            corral_pin(buffer);
        pinned_remember(slot, buffer);
        for (int i = 0; i < 50; i++)
            new_node(-2, NULL); /* garbage after it, and collections */
        if (round % 4 == 0)
            corral_collect();
        long seed = (long)torture_below(&random, 1000000);
        long sum = c_fill_pinned(slot, length, seed); /* UNMANAGED: others collect */
        CHECK(pinned_same_address(slot, buffer), "a pinned buffer moved (round %ld)", round);
        long CORRAL_REF *elements = TORTURE_ELEMENTS(long, buffer);
        long got = 0;
        for (long i = 0; i < length; i++)
            got += elements[i];
        CHECK_EQ(got, sum, "what C wrote into a pinned buffer");
        if (twice) {
            corral_unpin(buffer);
            corral_collect();
            CHECK(pinned_same_address(slot, buffer), "a buffer pinned twice, unpinned once, moved");
        }
        corral_unpin(buffer);
        CHECK_EQ(chain_sum(chain), expected_chain, "a chain allocated around a pinned buffer");
        CHECK(pinned_same_address(first_slot, forever) && forever->value == self,
              "an instance of a pinned type moved");
        for (long i = 0; i < ballast_length; i++) {
            noderef n = TORTURE_ELEMENTS(noderef, ballast)[i];
            CHECK_EQ(n->value, i, "a ballast node");
            if (torture_below(&random, 4) == 0) {
                new_node(-3, NULL);
                TORTURE_ELEMENTS(noderef, ballast)[i] = new_node(i, NULL);
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("pinned", argc, argv);
    rounds = torture_count(60, 4);
    ballast_length = torture_count(4000, 256);
    if (ballast_length > 4000)
        ballast_length = 4000;
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(pin_thread, (void *)(i + 1));
    pin_thread((void *)0);
    for (int i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    return torture_finish();
}
