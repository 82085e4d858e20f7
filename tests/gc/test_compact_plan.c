/* compact_plan_check (compact.h): the plan real collections make passes it
 * (debug builds check it as every later phase starts, so each major GC here
 * does), and each way a plan can be broken is named. */
#include <string.h>

#include "c_trees.h"
#include "compact.h"
#include "corral_test.h"
#include "heap.h"

/* A plan as a collection with nothing to move makes it: every region below
 * the top stays, and one free range runs from the top to the end. */
static compact_plan sound_plan(void)
{
    compact_plan plan = {.old_top = corral_heap.top};
    plan.source_regions = plan.used_regions = heap_region_index(corral_heap.top - 1) + 1;
    VEC_PUSH(plan.free_ranges, ((heap_free_range){corral_heap.top, corral_heap.end}));
    return plan;
}

static void checks(void *arg)
{
    test_start(arg, true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle live = corral_handle_new(make_tree(14));
    for (int i = 0; i < 4; i++)
        make_tree(14); /* garbage, so the collections move the live tree */
    corral_collect();
    corral_collect();
    is_int(checksum(*live), expected_checksum(14), "the live tree survives two compactions");
    corral_handle_scope_close(scope);

    compact_plan plan = sound_plan();
    is_str(compact_plan_check(&plan), NULL, "a sound plan passes");

    plan.old_top = corral_heap.end + 1;
    like_str(compact_plan_check(&plan), "outside the reservation", "old top past the end");
    plan = sound_plan();

    plan.source_regions--;
    like_str(compact_plan_check(&plan), "not the regions below the old heap top",
             "source regions that are not those below the top");
    plan = sound_plan();

    plan.used_regions++;
    like_str(compact_plan_check(&plan), "without quarantining",
             "a region above the top used without quarantine");
    plan.quarantining = true;
    is_str(compact_plan_check(&plan), NULL, "... which quarantine may");
    plan.used_regions = corral_heap.region_count + 1;
    like_str(compact_plan_check(&plan), "more than the heap has", "more regions than the heap");
    plan = sound_plan();

    plan.free_ranges.items[0].end = corral_heap.end - 8;
    like_str(compact_plan_check(&plan), "does not run to the end",
             "a last free range short of the end");
    plan = sound_plan();

    heap_free_range last = plan.free_ranges.items[0];
    plan.free_ranges.items[0] = (heap_free_range){last.start, last.start + 64};
    VEC_PUSH(plan.free_ranges, ((heap_free_range){last.start + 32, last.end}));
    like_str(compact_plan_check(&plan), "overlap or are out of address order",
             "overlapping free ranges");
    plan = sound_plan();

    plan.free_ranges.items[0] = (heap_free_range){corral_heap.base - 64, corral_heap.end};
    like_str(compact_plan_check(&plan), "starts below the heap", "a free range below the heap");
    VEC_FREE(plan.free_ranges);
}

int main(void)
{
    plan(2);
    tap_subtest("compaction plan checks, one GC worker", 60, checks,
                "CORRAL_HEAP_MIN=8M CORRAL_GC_THREADS=1 CORRAL_GC_STRESS=move-all");
    tap_subtest("compaction plan checks, quarantine, two GC workers", 60, checks,
                "CORRAL_HEAP_MIN=8M CORRAL_GC_THREADS=2 CORRAL_GC_STRESS=quarantine");
    return done_testing();
}
