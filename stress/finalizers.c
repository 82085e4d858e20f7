/* finalizers — finalizable objects dropped and kept by several threads.
 *
 * Each resource is finalizable and references a child that only it holds;
 * the finalizer (finalizers_c.c, plain C) checks that the dead object and
 * its child are still intact (resurrection must reach the child) and counts
 * runs per id. Threads create resources, keep some in a reference array and
 * drop the rest; at the end every dropped resource was finalized exactly
 * once and no kept one was finalized.
 */
#include "torture.h"

#include "finalizers.h"

static const corral_type kept_type = CORRAL_REF_ARRAY_TYPE("resource[] kept");

enum { THREADS = 2 };

static long per_thread;
static bool kept_flags[MAX_RESOURCES];
static _Atomic long next_id = 1;

static resourceref new_resource(void)
{
    long id = next_id++;
    if (id >= MAX_RESOURCES)
        TORTURE_FAIL("more than %d resources: lower SIZE", MAX_RESOURCES);
    resourceref r = corral_alloc(&resource_type);
    r->id = id;
    r->check = ~id;
    childref c = corral_alloc(&child_type);
    c->value = id * 3;
    r->child = c;
    return r;
}

static corral_ref kept_arrays[THREADS + 1]; /* global roots */

static void *resource_thread(void *arg)
{
    long self = (long)arg;
    uint64_t random = torture_stream((uint64_t)self);
    kept_arrays[self] = corral_alloc_array(&kept_type, (uint64_t)per_thread);
    for (long i = 0; i < per_thread; i++) {
        resourceref r = new_resource();
        if (torture_below(&random, 3) == 0) {
            TORTURE_ELEMENTS(resourceref, kept_arrays[self])[i] = r;
            kept_flags[r->id] = true;
        }
        if (i % 500 == 0)
            corral_collect();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("finalizers", argc, argv);
    per_thread = torture_count(2000, 100);
    for (int i = 0; i <= THREADS; i++)
        corral_global_root_add(&kept_arrays[i]);
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(resource_thread, (void *)(i + 1));
    resource_thread((void *)0);
    for (int i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    /* Found dead, finalized (by whichever thread collected), then freed. */
    corral_collect();
    corral_collect();
    CHECK_EQ(finalizer_corruptions(), 0, "finalizers that saw a corrupt object");
    long ids = next_id, finalized = 0;
    for (long id = 1; id < ids; id++) {
        long runs = finalized_count(id);
        if (kept_flags[id])
            CHECK_EQ(runs, 0, "finalizer runs of a kept resource");
        else
            CHECK_EQ(runs, 1, "finalizer runs of a dropped resource");
        finalized += runs;
    }
    for (long t = 0; t <= THREADS; t++)
        for (long i = 0; i < per_thread; i++) {
            resourceref r = TORTURE_ELEMENTS(resourceref, kept_arrays[t])[i];
            if (r)
                CHECK(r->check == ~r->id && r->child->value == r->id * 3, "a kept resource");
        }
    printf("torture: finalizers: %ld finalized, %ld kept\n", finalized, ids - 1 - finalized);
    for (int i = 0; i <= THREADS; i++)
        corral_global_root_remove(&kept_arrays[i]);
    return torture_finish();
}
