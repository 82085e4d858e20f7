/* Pins: the pin table follows the pins held. Millions of pin/unpin pairs on
 * ever-new objects once doubled the table forever (66 MB after 3 M pairs,
 * and every GC walked all of it); now it shrinks back, and objects pinned
 * throughout still never move. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_trees.h"
#include "corral_test.h"
#include "roots.h"

enum { HELD_PINS = 1000, CHURN_PAIRS = 3000000 };

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long resident_kib(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (status && fgets(line, sizeof line, status))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (status)
        fclose(status);
    return kib;
}

static double timed_collect_ms(void)
{
    double start = seconds_now();
    corral_collect();
    return (seconds_now() - start) * 1e3;
}

/* Pins HELD_PINS objects (after garbage, so compaction would slide them). */
static void pin_held(node **held)
{
    make_tree(10); /* garbage below them */
    for (int i = 0; i < HELD_PINS; i++) {
        held[i] = corral_alloc(&node_type);
        held[i]->value = i * 7 + 1;
        corral_pin(held[i]);
    }
}

static int held_intact(node *const *held, node *const *addresses)
{
    int wrong = 0;
    for (int i = 0; i < HELD_PINS; i++)
        wrong += held[i] != addresses[i] || held[i]->value != i * 7 + 1;
    return wrong;
}

static void churn_pins(void)
{
    for (long i = 0; i < CHURN_PAIRS; i++) {
        node *fresh = corral_alloc(&node_type);
        corral_pin(fresh);
        corral_unpin(fresh);
    }
}

static void pin_table_shrinks(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_THREADS=1", true);
    static node *held[HELD_PINS], *addresses[HELD_PINS];
    pin_held(held);
    for (int i = 0; i < HELD_PINS; i++)
        addresses[i] = held[i];
    double empty_ms = timed_collect_ms();
    churn_pins();
    size_t churned_capacity = roots_pin_table_capacity();
    double churned_ms = timed_collect_ms();
    diag("%d pins held, %d pin/unpin pairs: table %zu entries, GC %.3f ms (%.3f ms before)",
         HELD_PINS, CHURN_PAIRS, churned_capacity, churned_ms, empty_ms);
    ok(churned_capacity <= 8 * HELD_PINS,
       "after %d pairs the table holds %zu entries for %d pins (at most 8 per pin)", CHURN_PAIRS,
       churned_capacity, HELD_PINS);
    is_int(held_intact(held, addresses), 0, "objects pinned throughout did not move");
    for (int i = 0; i < HELD_PINS; i++)
        corral_unpin(held[i]);
    size_t released_capacity = roots_pin_table_capacity();
    double released_ms = timed_collect_ms();
    diag("all unpinned: table %zu entries, GC %.3f ms, resident %ld KiB", released_capacity,
         released_ms, resident_kib());
    ok(released_capacity <= 64, "with no pin held the table is back to its minimum (%zu)",
       released_capacity);
}

/* The same object pinned again and again, nested pins, and a pin that
 * outlives many rebuilds keep their counts. */
static void pin_counts_survive_rebuilds(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_THREADS=1", true);
    static node *held[HELD_PINS];
    pin_held(held);
    corral_pin(held[0]); /* held[0] pinned twice */
    for (int i = 1; i < HELD_PINS; i++)
        corral_unpin(held[i]); /* shrinks the table several times */
    corral_collect();
    ok(held[0]->value == 1, "a doubly pinned object survives the shrinking rebuilds");
    corral_unpin(held[0]);
    node *before = held[0];
    corral_collect();
    ok(held[0] == before && held[0]->value == 1, "one pin left: still pinned in place");
    corral_unpin(held[0]);
    is_int(roots_pin_table_capacity(), 64, "the last unpin leaves the minimum table");
}

/* corral_require_pinned returns for objects that cannot move. */
static void require_pinned_accepts(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_STRESS=move-all", true);
    corral_handle_scope scope = corral_handle_scope_open();
    node *n = make_tree(0);
    corral_pin(n);
    corral_require_pinned(n);
    corral_unpin(n);
    static const corral_type big_type = CORRAL_DATA_ARRAY_TYPE("big", char);
    corral_require_pinned(corral_alloc_array(&big_type, 1 << 20)); /* large: never moves */
    static const corral_type flat_type = CORRAL_HEADERLESS_LEAF_TYPE("flat", double);
    corral_require_pinned(corral_alloc(&flat_type)); /* headerless: never moves */
    pass("a pinned, a large and a headerless object are accepted");
    corral_handle_scope_close(scope);
}

/* ... and dies naming an object that can move. */
static void require_pinned_unpinned(void *context)
{
    (void)context;
    test_start("", true);
    corral_require_pinned(make_tree(0));
    printf("returned\n");
}

int main(void)
{
    plan(4);
    tap_subtest("3 M pin/unpin pairs: the table shrinks, held pins stay put", 120,
                pin_table_shrinks, NULL);
    tap_subtest("pin counts survive rebuilds", 60, pin_counts_survive_rebuilds, NULL);
    tap_subtest("corral_require_pinned accepts objects that cannot move", 60,
                require_pinned_accepts, NULL);
    run_result unpinned = run_child(require_pinned_unpinned, NULL, 60);
    ok(WIFSIGNALED(unpinned.status) && !strstr(unpinned.output, "returned") &&
           output_matches(unpinned.output,
                          "corral: fatal: corral_require_pinned: object 0x[0-9a-f]+ of type "
                          "'node' is not pinned: .* its caller must pin it \\(corral_pin\\)"),
       "corral_require_pinned dies naming an unpinned object");
    if (!strstr(unpinned.output, "is not pinned"))
        show_output(&unpinned);
    free(unpinned.output);
    return done_testing();
}
