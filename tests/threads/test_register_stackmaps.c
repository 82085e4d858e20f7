/* corral_register_stackmaps from every kind of thread while another thread
 * collects in a loop: MANAGED threads (a JIT compiling from its interpreter
 * thread), a thread that goes UNMANAGED and back, and a thread that never
 * attaches. Growing the return-address index waits for an RCU grace period,
 * and the collector holds an RCU read lock while it waits for MANAGED
 * threads: a MANAGED registrar waiting there (or for the registry lock held
 * by one that does) deadlocked the process. Each round is a fresh process
 * (the registry cannot be emptied), so the index grows through every size
 * again; a deadlock is a timeout, a lost registration a failed lookup. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "c_trees.h"
#include "corral_test.h"
#include "stackmap/registry.h"
/* The builder carries helpers (poke) that this test does not need. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "stackmap/table_builder.h"
#pragma GCC diagnostic pop

enum { REGISTRARS = 4, TABLES = 400, FUNCTIONS = 2, RECORDS = 4 };
enum registrar_kind { MANAGED_REGISTRAR, ALTERNATING_REGISTRAR, DETACHED_REGISTRAR };

/* Fake code addresses, never mapped: one 1 MiB window per table. */
#define REGION ((uintptr_t)0x200000000000ull)

static uintptr_t table_base(unsigned registrar, unsigned table)
{
    return REGION + ((uintptr_t)registrar * TABLES + table) * 0x100000;
}

static uintptr_t record_address(uintptr_t base, unsigned function, unsigned record)
{
    return base + (uintptr_t)function * 0x1000 + 16 * (record + 1);
}

/* FUNCTIONS functions of RECORDS records, one base and one derived pointer each. */
static void build_table(builder *b, uintptr_t base)
{
    static const test_location locations[] = {STATEPOINT_HEADER(0), LOC_SPILL(8), LOC_SPILL(8),
                                              LOC_SPILL(8), LOC_SPILL(16)};
    test_function functions[FUNCTIONS];
    test_record records[FUNCTIONS * RECORDS];
    for (unsigned f = 0; f < FUNCTIONS; f++) {
        functions[f] = (test_function){base + (uintptr_t)f * 0x1000, 40, RECORDS};
        for (unsigned r = 0; r < RECORDS; r++)
            records[f * RECORDS + r] = (test_record){
                .id = f * 100 + r,
                .instruction_offset = 16 * (r + 1),
                .location_count = COUNT_OF(locations),
                .locations = locations,
            };
    }
    emit_table(b, &(test_table){functions, FUNCTIONS, NULL, 0, records, FUNCTIONS * RECORDS});
}

/* Written by the round's main thread, read by the collector (relaxed: a stop flag). */
static atomic_bool registrars_done;
/* Collections completed this round. Written by the collector, read by the
 * registrars (which wait for one halfway) and the main thread. */
static atomic_long collections;
/* Written by every thread of a round, read by the main thread after the joins. */
static atomic_long failures;

typedef struct registrar {
    unsigned index;
    enum registrar_kind kind;
} registrar;

/* Registers one table from the state the registrar's kind asks for. */
static int register_one(const registrar *self, unsigned table, const builder *b)
{
    bool unmanaged = self->kind == ALTERNATING_REGISTRAR && table % 2;
    if (unmanaged)
        corral_enter_unmanaged();
    int status = corral_register_stackmaps(b->bytes, b->length, "jit module");
    if (unmanaged)
        corral_leave_unmanaged();
    return status;
}

static void *registrar_main(void *arg)
{
    const registrar *self = arg;
    bool attached = self->kind != DETACHED_REGISTRAR;
    if (attached && corral_thread_attach() != 0)
        bail_out("attach: %s", corral_last_error());
    long collections_at_start = atomic_load(&collections);
    for (unsigned t = 0; t < TABLES; t++) {
        /* Halfway, wait for a collection: on a loaded machine the collector
         * might otherwise not get a CPU before every table is registered. */
        while (t == TABLES / 2 && atomic_load(&collections) == collections_at_start) {
            if (attached)
                corral_poll();
            sched_yield();
        }
        builder b = {0};
        build_table(&b, table_base(self->index, t));
        if (register_one(self, t, &b) != 0) {
            diag("registrar %u, table %u: %s", self->index, t, corral_last_error());
            atomic_fetch_add(&failures, 1);
        }
        builder_release(&b);
        if (attached)
            corral_poll();
    }
    if (attached)
        corral_thread_detach();
    return NULL;
}

static void *collector_main(void *arg)
{
    (void)arg;
    corral_thread_attach();
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(make_tree(8));
    while (!atomic_load_explicit(&registrars_done, memory_order_relaxed)) {
        corral_collect();
        atomic_fetch_add(&collections, 1);
    }
    if (checksum(*keep) != expected_checksum(8))
        atomic_fetch_add(&failures, 1);
    corral_handle_scope_close(scope);
    corral_thread_detach();
    return NULL;
}

static long missing_records(void)
{
    long missing = 0;
    for (unsigned i = 0; i < REGISTRARS; i++)
        for (unsigned t = 0; t < TABLES; t++)
            for (unsigned f = 0; f < FUNCTIONS; f++)
                for (unsigned r = 0; r < RECORDS; r++) {
                    const stackmap_record *record =
                        stackmap_lookup(record_address(table_base(i, t), f, r));
                    missing += !record || record->id != f * 100 + r;
                }
    return missing;
}

static void registration_round(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_THREADS=2", true);
    atomic_store(&collections, 0);
    size_t linked = stackmap_registry_record_count();
    static const enum registrar_kind kinds[REGISTRARS] = {
        MANAGED_REGISTRAR, MANAGED_REGISTRAR, ALTERNATING_REGISTRAR, DETACHED_REGISTRAR};
    registrar registrars[REGISTRARS];
    pthread_t threads[REGISTRARS], collector;
    pthread_create(&collector, NULL, collector_main, NULL);
    for (unsigned i = 0; i < REGISTRARS; i++) {
        registrars[i] = (registrar){i, kinds[i]};
        pthread_create(&threads[i], NULL, registrar_main, &registrars[i]);
    }
    /* Joining blocks: UNMANAGED, or the collector would wait for us. */
    corral_enter_unmanaged();
    for (unsigned i = 0; i < REGISTRARS; i++)
        pthread_join(threads[i], NULL);
    atomic_store_explicit(&registrars_done, true, memory_order_relaxed);
    pthread_join(collector, NULL);
    corral_leave_unmanaged();
    diag("%ld collections while %d threads registered %d tables each", atomic_load(&collections),
         REGISTRARS, TABLES);
    is_int(atomic_load(&failures), 0, "every registration succeeded, the tree survived");
    is_int(stackmap_registry_record_count() - linked, REGISTRARS * TABLES * FUNCTIONS * RECORDS,
           "every record was registered");
    is_int(missing_records(), 0, "every record is found");
    ok(atomic_load(&collections) > 0, "collections ran meanwhile");
}

int main(void)
{
    enum { ROUNDS = 5 };
    plan(ROUNDS);
    for (int round = 1; round <= ROUNDS; round++) {
        char name[128];
        snprintf(name, sizeof name, "round %d: %d registrars (MANAGED, MANAGED, alternating, "
                 "detached) and a collecting thread finish", round, REGISTRARS);
        tap_subtest(name, 30, registration_round, NULL);
    }
    return done_testing();
}
