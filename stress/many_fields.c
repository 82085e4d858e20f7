/* many_fields — objects with many reference fields, and a type traced by an
 * embedder hook instead of an offset table.
 *
 * A graph of "wide" objects (48 reference fields interleaved with scalars,
 * so an offset table with gaps) is rewired at random; a shadow model in
 * plain memory says, for every field, which object (id and generation) it
 * must point at, and the whole graph is compared with it after collections.
 * Objects are replaced by new generations while old ones stay reachable
 * from stale edges, so both live and superseded objects are checked.
 * A second type, "tagged", mixes references and odd integers in one slot
 * array and is traced by tagged_trace (many_fields_trace.c, plain C: a trace
 * hook runs inside the collection and must not be managed code that polls).
 */
#include "torture.h"

#include "many_fields.h"

enum { WIDE_FIELDS = 48, OBJECTS = 300 };

typedef struct wide CORRAL_REF *wideref;
struct wide {
    corral_header header;
    long id;
    struct {
        wideref ref;
        long scalar; /* holds the expected target's id, a second check */
    } fields[WIDE_FIELDS];
    long generation;
};

static uint32_t wide_refs[WIDE_FIELDS];
static corral_type wide_type;
static const corral_type table_type = CORRAL_REF_ARRAY_TYPE("wide[]");
static const corral_type tagged_table_type = CORRAL_REF_ARRAY_TYPE("tagged[]");

/* The model: the target of each field as id + 1 (0: NULL) and generation. */
static int model_id[OBJECTS][WIDE_FIELDS];
static long model_generation[OBJECTS][WIDE_FIELDS];
static long generation_of[OBJECTS];
static uint64_t random_state;

static void init_types(void)
{
    for (int i = 0; i < WIDE_FIELDS; i++)
        wide_refs[i] = (uint32_t)(offsetof(struct wide, fields) + i * sizeof(((struct wide *)0)->fields[0]));
    wide_type = (corral_type)CORRAL_STRUCT_TYPE("wide", struct wide, wide_refs);
}

static wideref new_wide(long id, long generation)
{
    wideref w = corral_alloc(&wide_type);
    w->id = id;
    w->generation = generation;
    return w;
}

static void check_object(wideref w, long id)
{
    CHECK(w->header.type == &wide_type, "object %ld has a bad header", id);
    CHECK_EQ(w->id, id, "object id");
    for (int f = 0; f < WIDE_FIELDS; f++) {
        wideref target = w->fields[f].ref;
        int expected = w->generation == generation_of[id] ? model_id[id][f] : -1;
        if (expected < 0)
            continue; /* a superseded generation: only its own consistency is checked */
        if (expected == 0) {
            CHECK(target == NULL, "field %d of object %ld should be NULL", f, id);
            continue;
        }
        CHECK(target != NULL, "field %d of object %ld is NULL", f, id);
        CHECK_EQ(target->id, expected - 1, "target id of a field");
        CHECK_EQ(target->generation, model_generation[id][f], "target generation of a field");
        CHECK_EQ(w->fields[f].scalar, expected - 1, "scalar beside a reference field");
    }
}

static void rewire(corral_ref table)
{
    wideref CORRAL_REF *objects = TORTURE_ELEMENTS(wideref, table);
    long from = (long)torture_below(&random_state, OBJECTS);
    int field = (int)torture_below(&random_state, WIDE_FIELDS);
    if (torture_below(&random_state, 20) == 0) {
        /* A new generation of object 'from', with the same edges. */
        wideref old = objects[from];
        wideref fresh = new_wide(from, old->generation + 1);
        for (int f = 0; f < WIDE_FIELDS; f++) {
            fresh->fields[f].ref = old->fields[f].ref;
            fresh->fields[f].scalar = old->fields[f].scalar;
        }
        TORTURE_ELEMENTS(wideref, table)[from] = fresh;
        generation_of[from] = fresh->generation;
        return;
    }
    if (torture_below(&random_state, 6) == 0) {
        objects[from]->fields[field].ref = NULL;
        objects[from]->fields[field].scalar = -1;
        model_id[from][field] = 0;
        return;
    }
    long to = (long)torture_below(&random_state, OBJECTS);
    wideref target = objects[to];
    objects[from]->fields[field].ref = target;
    objects[from]->fields[field].scalar = to;
    model_id[from][field] = (int)to + 1;
    model_generation[from][field] = target->generation;
}

/* --- the traced type: bit i of kinds says slot i holds a reference */

static corral_ref new_tagged(long seed)
{
    tagged_ref t = corral_alloc(&tagged_type);
    t->kinds = 0;
    for (int i = 0; i < TAGGED_SLOTS; i++)
        t->slots[i].raw = ((uint64_t)(seed + i) << 1) | 1; /* an odd integer */
    return t;
}

static void tagged_round(corral_ref tagged_table, long round)
{
    tagged_ref CORRAL_REF *all = TORTURE_ELEMENTS(tagged_ref, tagged_table);
    long count = (long)TORTURE_LENGTH(tagged_table);
    long i = (long)torture_below(&random_state, (uint64_t)count);
    long j = (long)torture_below(&random_state, (uint64_t)count);
    int slot = (int)torture_below(&random_state, TAGGED_SLOTS);
    if (!all[i])
        all[i] = new_tagged(round);
    if (!all[j])
        all[j] = new_tagged(round);
    tagged_ref a = all[i];
    if (torture_below(&random_state, 3) == 0) {
        a->kinds &= ~(UINT64_C(1) << slot);
        a->slots[slot].raw = ((uint64_t)round << 1) | 1;
    } else {
        a->slots[slot].ref = (corral_ref)all[j];
        a->kinds |= UINT64_C(1) << slot;
    }
}

static void check_tagged(corral_ref tagged_table)
{
    tagged_ref CORRAL_REF *all = TORTURE_ELEMENTS(tagged_ref, tagged_table);
    for (uint64_t i = 0; i < TORTURE_LENGTH(tagged_table); i++) {
        tagged_ref t = all[i];
        if (!t)
            continue;
        CHECK(t->header.type == &tagged_type, "tagged object %llu has a bad header",
              (unsigned long long)i);
        for (int s = 0; s < TAGGED_SLOTS; s++) {
            if (t->kinds & (UINT64_C(1) << s)) {
                tagged_ref target = (tagged_ref)t->slots[s].ref;
                CHECK(target && target->header.type == &tagged_type,
                      "slot %d of tagged object %llu: a reference to a tagged object", s,
                      (unsigned long long)i);
            } else {
                CHECK((t->slots[s].raw & 1) == 1, "an integer slot kept its tag bit");
            }
        }
    }
}

int main(int argc, char **argv)
{
    torture_start("many_fields", argc, argv);
    init_types();
    random_state = torture_stream(1);
    corral_ref table = corral_alloc_array(&table_type, OBJECTS);
    for (long i = 0; i < OBJECTS; i++) {
        wideref w = new_wide(i, 0);
        TORTURE_ELEMENTS(wideref, table)[i] = w;
    }
    corral_ref tagged_table = corral_alloc_array(&tagged_table_type, 64);
    long rounds = torture_count(40, 3);
    for (long round = 0; round < rounds; round++) {
        for (int i = 0; i < 500; i++)
            rewire(table);
        for (int i = 0; i < 100; i++)
            tagged_round(tagged_table, round);
        if (round % 8 == 0)
            corral_collect();
        for (long i = 0; i < OBJECTS; i++)
            check_object(TORTURE_ELEMENTS(wideref, table)[i], i);
        check_tagged(tagged_table);
    }
    return torture_finish();
}
