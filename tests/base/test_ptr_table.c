/* test_ptr_table.c — base/ptr_table.h against a model: random inserts,
 * removals and lookups over keys that share their low bits, with the table
 * checked whole after every step (every key found with its value, nothing
 * else found, a walk visits each key once, the sizing rule holds); then
 * churn through ever-new keys, which must not grow it, and a NULL key, which
 * is a fatal error.
 *
 * Usage: ptr_table.t [seed]
 */
#include <stdint.h>

#include "ptr_table.h"
#include "run_program.h"
#include "tap.h"

enum { KEY_POOL = 3000, RANDOM_STEPS = 200000 };

/* Keys 4 KiB apart: their low 12 bits are all equal, as for page-aligned
 * objects, so a hash that ignored the high bits would pile them up. */
static void *pool_key(size_t i)
{
    return (void *)(uintptr_t)(0x7f0000000000u + (i + 1) * 4096);
}

static size_t pool_index(const void *key)
{
    return (size_t)(((uintptr_t)key - 0x7f0000000000u) / 4096) - 1;
}

typedef struct model {
    bool present[KEY_POOL];
    uintptr_t value[KEY_POOL];
    size_t count;
} model;

/* Returns what differs between table and model, or NULL. */
static const char *mismatch(const ptr_table *table, const model *m)
{
    static char problem[256];
    if (table->count != m->count)
        return "the count differs from the model's";
    for (size_t i = 0; i < KEY_POOL; i++) {
        const ptr_table_entry *entry = ptr_table_find(table, pool_key(i));
        if (m->present[i] && (!entry || entry->key != pool_key(i) || entry->value != m->value[i])) {
            snprintf(problem, sizeof problem, "key %zu is missing or has the wrong value", i);
            return problem;
        }
        if (!m->present[i] && entry) {
            snprintf(problem, sizeof problem, "removed key %zu is still found", i);
            return problem;
        }
    }
    static unsigned char seen[KEY_POOL];
    memset(seen, 0, sizeof seen);
    size_t walked = 0;
    PTR_TABLE_FOR_EACH(entry, table) {
        size_t i = pool_index(entry->key);
        if (i >= KEY_POOL || !m->present[i] || seen[i]++)
            return "the walk visits a key twice or one that is not there";
        walked++;
    }
    if (walked != m->count)
        return "the walk misses keys";
    size_t capacity = table->capacity;
    if (capacity && (capacity < PTR_TABLE_MINIMUM_CAPACITY || (capacity & (capacity - 1))))
        return "the capacity is not a power of two of at least the minimum";
    if (table->used * 2 > capacity || table->used < table->count)
        return "more than half the slots are in use";
    if (capacity > PTR_TABLE_MINIMUM_CAPACITY && table->count * 16 < capacity)
        return "under a sixteenth full above the minimum: it did not shrink";
    return NULL;
}

static void test_empty(void)
{
    ptr_table table = {0};
    ok(!ptr_table_find(&table, pool_key(0)) && !ptr_table_find(&table, NULL) &&
           !ptr_table_next(&table, NULL) && !ptr_table_remove(&table, pool_key(0)),
       "an empty table finds, walks and removes nothing");
    bool added = false;
    ptr_table_entry *entry = ptr_table_insert(&table, pool_key(1), &added);
    ok(added && entry->key == pool_key(1) && entry->value == 0 &&
           table.capacity == PTR_TABLE_MINIMUM_CAPACITY,
       "the first insert adds the key with value 0 in a minimum table");
    entry->value = 41;
    entry = ptr_table_insert(&table, pool_key(1), &added);
    ok(!added && entry->value == 41, "inserting it again finds the same entry");
    ptr_table_put(&table, pool_key(2), 7);
    uintptr_t value = 0;
    ok(ptr_table_get(&table, pool_key(2), &value) && value == 7 &&
           ptr_table_contains(&table, pool_key(1)) && !ptr_table_contains(&table, pool_key(3)),
       "put, get and contains");
    ptr_table_put(&table, pool_key(2), 8);
    ok(ptr_table_get(&table, pool_key(2), &value) && value == 8 && table.count == 2,
       "put overwrites");
    ok(ptr_table_remove(&table, pool_key(1)) && !ptr_table_remove(&table, pool_key(1)) &&
           !ptr_table_contains(&table, pool_key(1)) && ptr_table_contains(&table, pool_key(2)),
       "remove takes one key once");
    ptr_table_free(&table);
    ok(!table.entries && table.capacity == 0 && table.count == 0 && table.used == 0,
       "free leaves an empty table");
}

static void test_against_model(uint64_t seed)
{
    static model m;
    ptr_table table = {0};
    uint64_t state = seed;
    const char *problem = NULL;
    size_t step = 0, largest = 0, shrinks = 0;
    for (; step < RANDOM_STEPS && !problem; step++) {
        size_t i = tap_random(&state) % KEY_POOL;
        /* Phases that mostly add, then mostly remove, so it grows and shrinks. */
        bool adding = (step / 20000) % 2 == 0 ? tap_random(&state) % 32 != 0
                                               : tap_random(&state) % 32 == 0;
        size_t before = table.capacity;
        if (adding) {
            bool added;
            ptr_table_insert(&table, pool_key(i), &added)->value += 3;
            if (added != !m.present[i])
                problem = "insert said added for a present key, or not for an absent one";
            m.count += !m.present[i];
            m.present[i] = true;
            m.value[i] += 3;
        } else {
            if (ptr_table_remove(&table, pool_key(i)) != m.present[i])
                problem = "remove disagrees with the model on whether the key was there";
            m.count -= m.present[i];
            m.present[i] = false;
            m.value[i] = 0;
        }
        shrinks += table.capacity < before;
        if (table.capacity > largest)
            largest = table.capacity;
        if (!problem && (step % 97 == 0 || step + 1 == RANDOM_STEPS))
            problem = mismatch(&table, &m);
    }
    if (!ok(!problem, "%d random inserts and removals agree with the model", RANDOM_STEPS))
        diag("at step %zu: %s", step, problem);
    ok(largest >= 4096 && shrinks > 0, "it grew (to %zu) and shrank (%zu times) on the way",
       largest, shrinks);
    ptr_table_free(&table);
}

static void test_churn(void)
{
    ptr_table table = {0};
    for (size_t i = 0; i < 10; i++)
        ptr_table_put(&table, pool_key(i), i);
    size_t largest = 0;
    for (uintptr_t n = 0; n < 1000000; n++) {
        void *fresh = (void *)(uintptr_t)(0x100000000u + n * 16);
        ptr_table_insert(&table, fresh, NULL);
        ptr_table_remove(&table, fresh);
        if (table.capacity > largest)
            largest = table.capacity;
    }
    ok(largest == PTR_TABLE_MINIMUM_CAPACITY && table.count == 10,
       "a million insert/remove pairs of new keys beside 10 held: never above %d slots (%zu)",
       PTR_TABLE_MINIMUM_CAPACITY, largest);
    uintptr_t value = 99;
    bool held = true;
    for (size_t i = 0; i < 10; i++)
        held &= ptr_table_get(&table, pool_key(i), &value) && value == i;
    ok(held, "the held keys keep their values through the churn");
    ptr_table_free(&table);
}

static void insert_null(void *context)
{
    (void)context;
    ptr_table table = {0};
    ptr_table_insert(&table, NULL, NULL);
    printf("survived\n");
}

static void test_null_key(void)
{
    run_result result = run_child(insert_null, NULL, 30);
    bool died = !result.timed_out && WIFSIGNALED(result.status) &&
                WTERMSIG(result.status) == SIGABRT;
    if (!ok(died && output_matches(result.output, "^corral: fatal: check failed: .*key"),
            "a NULL key is a fatal error"))
        show_output(&result);
    free(result.output);
}

int main(int argc, char **argv)
{
    uint64_t seed = tap_seed(argc, argv);
    plan(12);
    test_empty();
    test_against_model(seed);
    test_churn();
    test_null_key();
    return done_testing();
}
