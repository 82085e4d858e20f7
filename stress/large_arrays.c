/* large_arrays — reference arrays below, at and above the large-object
 * threshold, pointing at small moving objects and at each other.
 *
 * A root table (a large reference array, in the LOS) holds arrays whose
 * lengths straddle the default 8 KiB threshold (1021 elements stay in the
 * moving heap, 1022 go to the LOS), tiny and empty arrays, and a few of
 * 10^4..10^5 elements; their elements are small nodes, some shared, some
 * pointing back at arrays. Elements are replaced at random between
 * collections; a checksum per array, kept in plain memory, is compared with
 * the heap after every round, so a missed update of a large object's field
 * (LOS objects never move but their fields must be forwarded) shows.
 * C code moves elements too: libc's memmove shifts an array to insert in
 * front, and memcpy copies a batch of new nodes in (through `(void *)`
 * casts, left as calls by corralc), so their barriers must remember the
 * young nodes they put into old arrays.
 */
#include "torture.h"

#include <string.h>

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    corral_ref array; /* an array this node points back at, or NULL */
    long value;
};

static const uint32_t node_refs[] = {offsetof(struct node, array)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("node[]");
static const corral_type table_type = CORRAL_REF_ARRAY_TYPE("array[]");
static const corral_type long_array_type = CORRAL_DATA_ARRAY_TYPE("long[]", long);

enum { TABLE = 48 };

/* Lengths around the thresholds the runner's modes use (8K default, 1K..64K). */
static const uint64_t lengths[] = {0, 1, 2, 7, 126, 127, 128, 500, 1021, 1022, 1023, 1024,
                                   2047, 2048, 4000, 8190, 8191, 12000, 30000, 100000};

static uint64_t random_state;
static long sums[TABLE];          /* expected sum of element values per array */
static long counts[TABLE];        /* expected non-null elements */
static long next_value = 1;

static noderef new_node(long value)
{
    noderef n = corral_alloc(&node_type);
    n->value = value;
    return n;
}

static uint64_t pick_length(void)
{
    uint64_t index = torture_below(&random_state, sizeof lengths / sizeof lengths[0]);
    /* The two biggest are rarer, or the run is all memset. */
    if (index >= sizeof lengths / sizeof lengths[0] - 2 && torture_below(&random_state, 4))
        index = torture_below(&random_state, 10);
    /* Scaled-down work (TORTURE_WORK) keeps to the threshold region. */
    if (torture_work < 100 && lengths[index] > 12000)
        index = torture_below(&random_state, 16);
    return lengths[index];
}

static corral_ref fill_array(long slot, uint64_t length)
{
    corral_ref array = corral_alloc_array(&ref_array_type, length);
    CHECK_EQ(TORTURE_LENGTH(array), length, "length word of a new array");
    noderef CORRAL_REF *elements = TORTURE_ELEMENTS(noderef, array);
    long sum = 0, count = 0;
    for (uint64_t i = 0; i < length; i++) {
        /* Leave some holes; stride so long arrays are not all allocation. */
        if (torture_below(&random_state, 8) == 0 || (length > 4096 && i % 16))
            continue;
        long value = next_value++;
        noderef n = new_node(value);
        elements[i] = n;
        sum += value;
        count++;
    }
    sums[slot] = sum;
    counts[slot] = count;
    return array;
}

static void check_array(corral_ref array, long slot)
{
    if (!array) {
        CHECK_EQ(counts[slot], -1, "an empty table slot");
        return;
    }
    uint64_t length = TORTURE_LENGTH(array);
    noderef CORRAL_REF *elements = TORTURE_ELEMENTS(noderef, array);
    long sum = 0, count = 0;
    for (uint64_t i = 0; i < length; i++) {
        noderef n = elements[i];
        if (!n)
            continue;
        CHECK(n->header.type == &node_type, "element %llu of array %ld has a bad header",
              (unsigned long long)i, slot);
        sum += n->value;
        count++;
        if (n->array)
            CHECK(TORTURE_LENGTH(n->array) <= 100000, "a back pointer to a sane array");
    }
    CHECK_EQ(count, counts[slot], "non-null elements of an array");
    CHECK_EQ(sum, sums[slot], "sum of an array's element values");
}

static void mutate(corral_ref table)
{
    corral_ref CORRAL_REF *arrays = TORTURE_ELEMENTS(corral_ref, table);
    long slot = (long)torture_below(&random_state, TABLE);
    switch (torture_below(&random_state, 7)) {
    case 0: /* replace the whole array */
        arrays[slot] = fill_array(slot, pick_length());
        break;
    case 1: /* drop it */
        arrays[slot] = NULL;
        counts[slot] = -1;
        sums[slot] = 0;
        break;
    case 2: { /* replace one element */
        corral_ref array = arrays[slot];
        if (!array || TORTURE_LENGTH(array) == 0)
            break;
        uint64_t i = torture_below(&random_state, TORTURE_LENGTH(array));
        noderef CORRAL_REF *elements = TORTURE_ELEMENTS(noderef, array);
        noderef old = elements[i];
        long value = next_value++;
        noderef fresh = new_node(value);
        elements = TORTURE_ELEMENTS(noderef, array); /* reloaded: the call may have moved it */
        elements[i] = fresh;
        if (old) {
            sums[slot] -= old->value;
            counts[slot]--;
        }
        sums[slot] += value;
        counts[slot]++;
        break;
    }
    case 3: { /* a node points back at another array */
        corral_ref array = arrays[slot];
        corral_ref other = arrays[torture_below(&random_state, TABLE)];
        if (!array || TORTURE_LENGTH(array) == 0)
            break;
        noderef n = TORTURE_ELEMENTS(noderef, array)[torture_below(&random_state, TORTURE_LENGTH(array))];
        if (n)
            n->array = other;
        break;
    }
    case 4: { /* C code inserting in front: the rest shifted by libc's memmove */
        corral_ref array = arrays[slot];
        if (!array || TORTURE_LENGTH(array) < 2)
            break;
        uint64_t length = TORTURE_LENGTH(array);
        noderef last = TORTURE_ELEMENTS(noderef, array)[length - 1];
        if (last) {
            sums[slot] -= last->value;
            counts[slot]--;
        }
        memmove((void *)&TORTURE_ELEMENTS(noderef, array)[1],
                (const void *)TORTURE_ELEMENTS(noderef, array), (length - 1) * sizeof(noderef));
        long value = next_value++;
        noderef fresh = new_node(value);
        TORTURE_ELEMENTS(noderef, array)[0] = fresh;
        sums[slot] += value;
        counts[slot]++;
        break;
    }
    case 5: { /* a batch of new nodes copied in by libc's memcpy */
        corral_ref array = arrays[slot];
        uint64_t length = array ? TORTURE_LENGTH(array) : 0;
        if (length == 0)
            break;
        uint64_t count = 1 + torture_below(&random_state, length < 16 ? length : 16);
        corral_ref batch = corral_alloc_array(&ref_array_type, count);
        long added = 0;
        for (uint64_t i = 0; i < count; i++) {
            long value = next_value++;
            noderef fresh = new_node(value);
            TORTURE_ELEMENTS(noderef, batch)[i] = fresh;
            added += value;
        }
        uint64_t at = torture_below(&random_state, length - count + 1);
        for (uint64_t i = at; i < at + count; i++) {
            noderef old = TORTURE_ELEMENTS(noderef, array)[i];
            if (old) {
                sums[slot] -= old->value;
                counts[slot]--;
            }
        }
        memcpy((void *)&TORTURE_ELEMENTS(noderef, array)[at],
               (const void *)TORTURE_ELEMENTS(noderef, batch), count * sizeof(noderef));
        sums[slot] += added;
        counts[slot] += (long)count;
        break;
    }
    default: { /* a large data array, checked and dropped */
        uint64_t length = 1000 + torture_below(&random_state, 20000);
        corral_ref numbers = corral_alloc_array(&long_array_type, length);
        long CORRAL_REF *elements = TORTURE_ELEMENTS(long, numbers);
        for (uint64_t i = 0; i < length; i += 97)
            elements[i] = (long)i;
        new_node(0);
        long sum = 0;
        for (uint64_t i = 0; i < length; i += 97)
            sum += TORTURE_ELEMENTS(long, numbers)[i];
        long n = (long)((length + 96) / 97);
        CHECK_EQ(sum, 97 * n * (n - 1) / 2, "a large data array");
        break;
    }
    }
}

int main(int argc, char **argv)
{
    torture_start("large_arrays", argc, argv);
    random_state = torture_stream(1);
    corral_ref table = corral_alloc_array(&table_type, TABLE);
    /* Fewer arrays to start with when the work is scaled down (TORTURE_WORK):
     * under alloc:1 every element allocated is a collection. */
    long filled = torture_count(TABLE, 8);
    for (long slot = 0; slot < TABLE; slot++) {
        if (slot >= filled) {
            counts[slot] = -1;
            continue;
        }
        corral_ref array = fill_array(slot, pick_length());
        TORTURE_ELEMENTS(corral_ref, table)[slot] = array;
    }
    long rounds = torture_count(60, 3);
    for (long round = 0; round < rounds; round++) {
        for (int i = 0; i < 20; i++)
            mutate(table);
        if (round % 10 == 0)
            corral_collect();
        for (long slot = 0; slot < TABLE; slot++)
            check_array(TORTURE_ELEMENTS(corral_ref, table)[slot], slot);
    }
    return torture_finish();
}
