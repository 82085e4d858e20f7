/* weak_maps — weak handles whose targets die, move, or stay.
 *
 * Each thread keeps a weak table: entry i has a key object (held strongly
 * in a reference array while "alive"), a weak handle to it, and a value
 * object carrying the key's id. Keys are dropped, replaced and re-created
 * at random; some keys are large arrays (LOS, never moved). Checks: a live
 * key's weak handle returns exactly the key (relocated with it); a dropped
 * key's handle returns either NULL or an object with the right id (never
 * stale memory) and NULL after the next full collection.
 */
#include "torture.h"

typedef struct key CORRAL_REF *keyref;
struct key {
    corral_header header;
    long id;
    long check;
};

static const corral_type key_type = CORRAL_LEAF_TYPE("key", struct key);
static const corral_type big_key_type = CORRAL_DATA_ARRAY_TYPE("long[] big key", long);
static const corral_type keys_type = CORRAL_REF_ARRAY_TYPE("key[]");

enum { THREADS = 2, ENTRIES = 256, BIG_KEY_LENGTH = 2000 /* 16 KB: in the LOS */ };

typedef struct table {
    corral_weak *weak[ENTRIES];
    long id[ENTRIES];      /* of the key, 0: no entry */
    bool alive[ENTRIES];   /* key held strongly */
    bool big[ENTRIES];
} table;

static table tables[THREADS + 1];
static long rounds;
static _Atomic long next_id = 1;

static long key_id(corral_ref object, bool big)
{
    if (big)
        return TORTURE_ELEMENTS(long, object)[7];
    return ((keyref)object)->id;
}

static corral_ref new_key(long id, bool big)
{
    if (big) {
        corral_ref array = corral_alloc_array(&big_key_type, BIG_KEY_LENGTH);
        TORTURE_ELEMENTS(long, array)[7] = id;
        return array;
    }
    keyref k = corral_alloc(&key_type);
    k->id = id;
    k->check = ~id;
    return k;
}

static void check_entry(table *t, corral_ref keys, long i, bool after_full_gc)
{
    if (!t->id[i])
        return;
    corral_ref target = corral_weak_get(t->weak[i]);
    corral_ref strong = TORTURE_ELEMENTS(corral_ref, keys)[i];
    if (t->alive[i]) {
        CHECK(target == strong, "entry %ld: a live key's weak handle returns the key", i);
        CHECK_EQ(key_id(target, t->big[i]), t->id[i], "a live key's id");
        return;
    }
    if (after_full_gc)
        CHECK(target == NULL, "entry %ld: a dead key's weak handle is cleared by a full GC", i);
    else if (target)
        CHECK_EQ(key_id(target, t->big[i]), t->id[i], "a dead but uncollected key's id");
}

static void *weak_thread(void *arg)
{
    long self = (long)arg;
    table *t = &tables[self];
    uint64_t random = torture_stream((uint64_t)self);
    corral_ref keys = corral_alloc_array(&keys_type, ENTRIES);
    for (long round = 0; round < rounds; round++) {
        for (int op = 0; op < 100; op++) {
            long i = (long)torture_below(&random, ENTRIES);
            switch (torture_below(&random, 4)) {
            case 0: /* drop the key */
                TORTURE_ELEMENTS(corral_ref, keys)[i] = NULL;
                t->alive[i] = false;
                break;
            case 1: { /* a new entry (freeing the old handle) */
                if (t->id[i])
                    corral_weak_free(t->weak[i]);
                bool big = torture_below(&random, 10) == 0;
                long id = next_id++;
                corral_ref key = new_key(id, big);
                t->weak[i] = corral_weak_new(key);
                t->id[i] = id;
                t->big[i] = big;
                t->alive[i] = true;
                TORTURE_ELEMENTS(corral_ref, keys)[i] = key;
                break;
            }
            default: /* garbage, so keys move */
                new_key(0, false);
                new_key(0, false);
                break;
            }
            check_entry(t, keys, i, false);
        }
        /* Whether this thread collects or waits out another thread's collection,
         * that collection marks after this thread stopped, so after its drops. */
        bool full = round % 5 == 0;
        if (full)
            corral_collect();
        for (long i = 0; i < ENTRIES; i++)
            check_entry(t, keys, i, full);
    }
    for (long i = 0; i < ENTRIES; i++)
        if (t->id[i])
            corral_weak_free(t->weak[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("weak_maps", argc, argv);
    rounds = torture_count(100, 5);
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(weak_thread, (void *)(i + 1));
    weak_thread((void *)0);
    for (int i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    return torture_finish();
}
