/* Tagged values in the heap, from plain C (corral/tagged.h): the scheme
 * checked at corral_init; fields at tagged_offsets and the elements of
 * tagged arrays (heap and large) keep their immediates and follow their
 * objects, tags kept, under the OCaml and V8 schemes, through moving
 * collections and minor ones (a tagged young reference stored into an old
 * object with corral_store_ref dirties its card); the verifier names a
 * tagged word that is neither an immediate nor a reference to an object.
 * Value handles and value globals (corral_handle_new_value,
 * corral_global_value_root_add) do the same for roots, under stress and in
 * minor collections, and their misuse is named. Each case runs in its own
 * forked child. */
#include <corral.h>
#include <stddef.h>
#include <stdlib.h>

#include "corral_test.h"

typedef struct cell {
    corral_header header;
    corral_value car; /* tagged */
    struct cell *next; /* plain reference */
    corral_value cdr; /* tagged */
    long plain;
} cell;

static const uint32_t cell_refs[] = {offsetof(cell, next)};
static const uint32_t cell_tagged[] = {offsetof(cell, car), offsetof(cell, cdr)};
static const corral_type cell_type =
    CORRAL_TAGGED_STRUCT_TYPE("cell", cell, 1, cell_refs, 2, cell_tagged);
static const corral_type tagged_array_type = CORRAL_TAGGED_ARRAY_TYPE("value[]");

static const corral_tag_scheme ocaml = CORRAL_TAG_SCHEME_OCAML;
static const corral_tag_scheme v8 = CORRAL_TAG_SCHEME_V8;
/* Two tag bits: references 0 and 2 (a second kind of pointer), integers 1;
 * tag 3 is neither, so a word with it is invalid. */
static const corral_tag_scheme wide = {3, (1u << 0) | (1u << 2), 1u << 1};

/* One case: the scheme's name (a settings prefix picks it) and settings. */
static const corral_tag_scheme *scheme_named(const char *settings)
{
    if (!strncmp(settings, "ocaml ", 6))
        return &ocaml;
    if (!strncmp(settings, "v8 ", 3))
        return &v8;
    return &wide;
}

static corral_tag_scheme scheme; /* of this child */

static void start(const char *arg)
{
    const corral_tag_scheme *chosen = scheme_named(arg);
    scheme = *chosen;
    run_setenv_list(strchr(arg, ' ') + 1);
    corral_options options = {.tag_scheme = chosen};
    if (corral_init(&options) != 0)
        bail_out("corral_init: %s", corral_last_error());
    if (corral_thread_attach() != 0)
        bail_out("corral_thread_attach: %s", corral_last_error());
}

static cell *new_cell(long plain)
{
    cell *c = corral_alloc(&cell_type);
    c->plain = plain;
    c->car = corral_tag_int(scheme, -plain);
    c->cdr = corral_tag_int(scheme, plain * 3);
    return c;
}

/* Element i of the test arrays: even i an integer, odd i a tagged cell
 * whose plain value is i, every 7th a tagged null. */
static bool element_ok(corral_value v, long i)
{
    if (i % 2 == 0)
        return corral_is_immediate(scheme, v) && corral_untag_int(scheme, v) == i * 1000 - 5;
    if (i % 7 == 0)
        return corral_is_null(scheme, v);
    if (!corral_is_ref(scheme, v) ||
        corral_tag_of(scheme, v) != (unsigned)__builtin_ctz(scheme.ref_tags))
        return false;
    cell *c = corral_untag_ref(scheme, v);
    return c->plain == i && corral_untag_int(scheme, c->car) == -i &&
           corral_untag_int(scheme, c->cdr) == i * 3;
}

static corral_value *elements(corral_ref array)
{
    return (corral_value *)((char *)array + sizeof(corral_array_header));
}

/* Element i, as element_ok expects it; may GC. */
static corral_value element_value(long i)
{
    if (i % 2 == 0)
        return corral_tag_int(scheme, i * 1000 - 5);
    if (i % 7 == 0)
        return corral_tag_ref(scheme, NULL);
    return corral_tag_ref(scheme, new_cell(i));
}

static void fill(corral_handle array, long length)
{
    for (long i = 0; i < length; i++) {
        new_cell(i); /* garbage between the survivors, whenever a collection comes */
        corral_value v = element_value(i);
        corral_store_ref(*array, &elements(*array)[i], v);
    }
}

static long count_bad(corral_handle array, long length)
{
    long bad = 0;
    for (long i = 0; i < length; i++)
        if (!element_ok(elements(*array)[i], i) && bad++ < 3)
            diag("element %ld holds %p", i, elements(*array)[i]);
    return bad;
}

enum { SMALL = 200, LARGE = 5000 }; /* LARGE: a large object, scanned in slices */

static void heap_values(void *arg)
{
    start(arg);
    corral_stats before;
    corral_get_stats(&before);
    corral_handle_scope scope = corral_handle_scope_open();
    for (int i = 0; i < 3000; i++)
        new_cell(i); /* garbage below the arrays, so they slide (unless a random
                      * collection comes first: fill interleaves more) */
    corral_handle small = corral_handle_new(corral_alloc_array(&tagged_array_type, SMALL));
    corral_handle large = corral_handle_new(corral_alloc_array(&tagged_array_type, LARGE));
    fill(small, SMALL);
    fill(large, LARGE);
    /* A chain of cells whose tagged fields point to each other. */
    corral_handle head = corral_handle_new(new_cell(0));
    for (long i = 1; i < 300; i++) {
        new_cell(i); /* garbage between the survivors, whenever a collection comes */
        cell *c = new_cell(i);
        cell *h = *head;
        corral_store_ref(c, &c->cdr, corral_tag_ref(scheme, h));
        corral_store_ref(c, (corral_ref *)&c->next, h);
        *head = c;
    }
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 3000; i++)
            new_cell(i); /* garbage below the survivors, so they slide */
        corral_collect();
    }
    corral_stats after;
    corral_get_stats(&after);
    ok(after.bytes_moved > before.bytes_moved && after.collections >= before.collections + 4,
       "%llu collections moved %llu bytes",
       (unsigned long long)(after.collections - before.collections),
       (unsigned long long)(after.bytes_moved - before.bytes_moved));
    is_int(count_bad(small, SMALL), 0, "a heap tagged array keeps its immediates and references");
    is_int(count_bad(large, LARGE), 0, "a large tagged array keeps its immediates and references");
    long broken = 0, length = 0;
    for (cell *c = *head; c; c = c->next, length++) {
        long expected = 299 - length;
        if (c->plain != expected || corral_untag_int(scheme, c->car) != -expected)
            broken++;
        else if (expected > 0 && (!corral_is_ref(scheme, c->cdr) ||
                                  corral_untag_ref(scheme, c->cdr) != (corral_ref)c->next))
            broken++;
    }
    ok(length == 300 && broken == 0,
       "a chain through tagged fields is intact (%ld cells, %ld broken)", length, broken);
    corral_handle_scope_close(scope);
}

/* Generational: an old cell and an old tagged array get tagged young
 * references through corral_store_ref, and nothing else holds them. */
static void generational(void *arg)
{
    start(arg);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle old_cell = corral_handle_new(new_cell(1));
    corral_handle old_array = corral_handle_new(corral_alloc_array(&tagged_array_type, LARGE));
    corral_collect(); /* both old now */
    bool recorded = true, intact = true;
    for (int round = 0; round < 20 && intact; round++) {
        corral_barrier_clean_all();
        corral_value young = corral_tag_ref(scheme, new_cell(100 + round));
        cell *c = *old_cell; /* read after the allocation, which may collect */
        corral_store_ref(c, &c->cdr, young);
        recorded &= corral_barrier_recorded(&c->cdr) != 0;
        long at = 1 + 64 * round;
        young = corral_tag_ref(scheme, new_cell(at));
        corral_store_ref(*old_array, &elements(*old_array)[at], young);
        recorded &= corral_barrier_recorded(&elements(*old_array)[at]) != 0;
        for (int i = 0; i < 2000; i++)
            new_cell(i);
        corral_collect_young();
        c = *old_cell;
        cell *kept = corral_untag_ref(scheme, c->cdr);
        cell *element = corral_untag_ref(scheme, elements(*old_array)[at]);
        intact = corral_is_ref(scheme, c->cdr) && kept->plain == 100 + round &&
                 corral_untag_int(scheme, kept->car) == -(100 + round) && element->plain == at;
    }
    ok(recorded, "corral_store_ref of a tagged reference dirties the card (cell, large array)");
    ok(intact, "tagged young references stored into old objects survive minor collections");
    corral_stats stats;
    corral_get_stats(&stats);
    ok(stats.minor_collections >= 20, "minor collections ran (%llu)",
       (unsigned long long)stats.minor_collections);
    corral_handle_scope_close(scope);
}

/* ---- roots holding tagged words: corral_handle_new_value and
 * corral_global_value_root_add, beside plain handles in the same blocks. */

enum { ROOTS = 300 }; /* more than a handle block holds */
static corral_value global_values[ROOTS];

/* How many references among the roots moved since first (their words). */
static long roots_moved(corral_value_handle *handles, const corral_value *first)
{
    long moved = 0;
    for (long i = 0; i < ROOTS; i++)
        moved += corral_is_ref(scheme, *handles[i]) && !corral_is_null(scheme, *handles[i]) &&
                 *handles[i] != first[i];
    return moved;
}

static void tagged_roots(void *arg)
{
    start(arg);
    corral_handle_scope scope = corral_handle_scope_open();
    /* Tagged slots that are freed and reused as plain ones below: under V8's
     * scheme a plain (untagged) reference read as tagged is an immediate,
     * left unrelocated, which the poison and the checks would catch. */
    corral_handle_scope inner = corral_handle_scope_open();
    for (long i = 0; i < ROOTS; i++)
        corral_handle_new_value(corral_tag_int(scheme, i));
    corral_handle_scope_close(inner);
    corral_value_handle handles[ROOTS];
    corral_handle plain[ROOTS];
    static corral_value first[ROOTS];
    for (long i = 0; i < ROOTS; i++) {
        for (int g = 0; g < 20; g++)
            new_cell(g); /* garbage between the survivors, so they slide */
        plain[i] = corral_handle_new(new_cell(i));
        handles[i] = corral_handle_new_value(element_value(i));
        first[i] = *handles[i];
        global_values[i] = element_value(i);
        corral_global_value_root_add(&global_values[i]);
    }
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < 3000; i++)
            new_cell(i); /* garbage below the survivors, so they slide */
        if (round % 2)
            corral_collect();
        else
            corral_collect_young(); /* a full collection when not generational */
    }
    long bad_handles = 0, bad_globals = 0, bad_plain = 0;
    for (long i = 0; i < ROOTS; i++) {
        bad_handles += !element_ok(*handles[i], i);
        bad_globals += !element_ok(global_values[i], i);
        bad_plain += ((cell *)*plain[i])->plain != i;
    }
    is_int(bad_handles, 0, "tagged handles keep immediates and nulls, follow their objects");
    is_int(bad_globals, 0, "global value roots keep immediates and nulls, follow their objects");
    is_int(bad_plain, 0, "plain handles in slots that held tagged words are plain again");
    long moved = roots_moved(handles, first);
    ok(moved > ROOTS / 4, "%ld referenced objects moved under the tagged handles", moved);
    corral_stats stats;
    corral_get_stats(&stats);
    if (getenv("CORRAL_GC_GENERATIONAL"))
        ok(stats.minor_collections >= 3, "minor collections ran (%llu)",
           (unsigned long long)stats.minor_collections);
    for (long i = 0; i < ROOTS; i++)
        corral_global_value_root_remove(&global_values[i]);
    corral_handle_scope_close(scope);
}

/* Broken programs, each run under CORRAL_GC_VERIFY=before. A bad tagged
 * word: under the wide scheme one with tag 3 (neither) in cdr, under the
 * others a tagged reference to the inside of an object in car. */
static void store_bad_word(void *context)
{
    start(context);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle c = corral_handle_new(new_cell(5));
    cell *target = new_cell(6);
    if (scheme.mask == wide.mask)
        ((cell *)*c)->cdr = (corral_value)(uintptr_t)0x1233;
    else
        ((cell *)*c)->car = corral_tag_ref(scheme, (char *)target + 8);
    corral_collect();
    corral_handle_scope_close(scope);
}

static void store_without_barrier(void *context)
{
    start(context);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle c = corral_handle_new(new_cell(5));
    corral_collect(); /* old */
    corral_barrier_clean_all();
    ((cell *)*c)->cdr = corral_tag_ref(scheme, new_cell(6)); /* no corral_store_ref */
    corral_collect_young();
    corral_handle_scope_close(scope);
}

/* A tagged handle and a global value root holding bad words. */
static void root_bad_word(void *context)
{
    start(context);
    corral_handle_scope scope = corral_handle_scope_open();
    static corral_value global;
    corral_global_value_root_add(&global);
    if (scheme.mask == wide.mask) {
        corral_handle_new_value((corral_value)(uintptr_t)0x4563);
    } else {
        global = corral_tag_ref(scheme, (char *)new_cell(6) + 8);
    }
    corral_collect();
    corral_handle_scope_close(scope);
}

static void expect_report(void (*program)(void *), const char *settings, const char *pattern,
                          const char *what)
{
    run_result r = run_child(program, (void *)settings, 60);
    if (!ok(WIFSIGNALED(r.status) && output_matches(r.output, pattern), "%s", what))
        show_output(&r);
    free(r.output);
}

/* corral_init refuses bad schemes, naming what is wrong; the message of
 * each attempt is printed for the parent to check. */
static void bad_schemes(void *context)
{
    (void)context;
    static const corral_tag_scheme bad[] = {
        {2, 1, 2}, {1, 0, 2}, {1, 1, 1}, {1, 1, 4}, {0, 1, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        corral_options options = {.tag_scheme = &bad[i]};
        int status = corral_init(&options);
        printf("scheme %zu: %d %s\n", i, status, corral_last_error());
    }
}

/* Misused tagged roots: no scheme, a remove that names the wrong kind. */
static void value_root_without_scheme(void *context)
{
    (void)context;
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return;
    corral_handle_scope_open();
    corral_handle_new_value(NULL);
}

static void remove_plain_as_value(void *context)
{
    start(context);
    static corral_ref global;
    corral_global_root_add(&global);
    corral_global_value_root_remove((corral_value *)&global);
}

static void tagged_type_without_scheme(void *context)
{
    (void)context;
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return;
    corral_alloc_slow(&cell_type, 0);
}

int main(void)
{
    plan(19);
    static const char *const cases[] = {
        "ocaml CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=before,after",
        "v8 CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=before,after",
        "wide CORRAL_GC_STRESS=alloc:random:500,move-all,poison CORRAL_GC_VERIFY=after",
    };
    for (int i = 0; i < 3; i++)
        tap_subtest(cases[i], 120, heap_values, (void *)cases[i]);
    /* The rounds clean every card to see the store dirty one: that would
     * also drop the cards that keep aging objects remembered, so survivors
     * are old after one minor collection here. */
    tap_subtest("ocaml generational", 120, generational,
                "ocaml CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=1 "
                "CORRAL_GC_VERIFY=before,after CORRAL_GC_STRESS=poison");
    tap_subtest("v8 generational", 120, generational,
                "v8 CORRAL_GC_GENERATIONAL=1 CORRAL_GC_PROMOTE_AFTER=1 "
                "CORRAL_GC_VERIFY=before,after");
    static const char *const root_cases[] = {
        "ocaml CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=before,after",
        "v8 CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=before,after",
        "wide CORRAL_GC_STRESS=alloc:random:300,move-all,poison CORRAL_GC_VERIFY=after",
        "ocaml CORRAL_GC_GENERATIONAL=1 CORRAL_GC_VERIFY=before,after CORRAL_GC_STRESS=poison",
        "v8 CORRAL_GC_GENERATIONAL=1 CORRAL_GC_VERIFY=before,after CORRAL_GC_STRESS=poison",
    };
    char name[160];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "tagged roots: %s", root_cases[i]);
        tap_subtest(name, 120, tagged_roots, (void *)root_cases[i]);
    }

    expect_report(store_bad_word, "wide CORRAL_GC_VERIFY=before",
                  "verify before gc 1: field of object 0x[0-9a-f]+ \\(slot 0x[0-9a-f]+\\) of type "
                  "cell at offset 24 holds tagged word 0x1233: a tagged word that is neither an "
                  "immediate nor a reference under the tag scheme",
                  "the verifier names object, type, offset and word of an invalid tagged word");
    expect_report(store_bad_word, "v8 CORRAL_GC_VERIFY=before",
                  "of type cell at offset 8 holds tagged word 0x[0-9a-f]+ \\(tag 1, object "
                  "0x[0-9a-f]+\\): no valid object header there",
                  "the verifier names a tagged reference that is not to an object start");
    expect_report(store_without_barrier, "v8 CORRAL_GC_GENERATIONAL=1 CORRAL_GC_VERIFY=before",
                  "missing write barrier: old object 0x[0-9a-f]+ of type cell holds young "
                  "0x[0-9a-f]+ in its slot at offset 24 ",
                  "a tagged store that skipped the barrier is named");
    expect_report(root_bad_word, "wide CORRAL_GC_VERIFY=before",
                  "verify before gc 1: handle of a stopped thread \\(nil\\) \\(slot 0x[0-9a-f]+\\) "
                  "holds tagged word 0x4563: a tagged word that is neither an immediate nor a "
                  "reference under the tag scheme",
                  "the verifier names a tagged handle holding an invalid word");
    expect_report(root_bad_word, "v8 CORRAL_GC_VERIFY=before",
                  "global root, pin or finalization entry \\(nil\\) \\(slot 0x[0-9a-f]+\\) holds "
                  "tagged word 0x[0-9a-f]+ \\(tag 1, object 0x[0-9a-f]+\\): no valid object header",
                  "the verifier names a global value root that is not to an object start");
    expect_report(value_root_without_scheme, "none",
                  "corral_handle_new_value: no tag scheme was declared",
                  "a tagged handle without a declared scheme is refused, saying why");
    expect_report(remove_plain_as_value, "v8 ",
                  "corral_global_value_root_remove: slot 0x[0-9a-f]+ was never added with "
                  "corral_global_value_root_add",
                  "removing a plain global as a value root names the mismatch");

    run_result r = run_child(bad_schemes, NULL, 30);
    static const char *const expected[] = {
        ("scheme 0: -1 corral_options.tag_scheme \\{mask 0x2, ref_tags 0x1, immediate_tags "
         "0x2\\}: mask must be 1, 3 or 7"),
        "scheme 1: -1 .*ref_tags is empty",
        "scheme 2: -1 .*ref_tags and immediate_tags share a tag",
        "scheme 3: -1 .*name a tag above the mask",
        "scheme 4: -1 .*mask must be 1, 3 or 7",
    };
    bool all = true;
    for (int i = 0; i < 5; i++)
        all &= output_matches(r.output, expected[i]);
    if (!ok(all, "corral_init refuses bad tag schemes, saying why"))
        show_output(&r);
    free(r.output);

    r = run_child(tagged_type_without_scheme, NULL, 30);
    if (!ok(WIFSIGNALED(r.status) &&
                output_matches(r.output, "cell.*tagged slots but no tag scheme was declared"),
            "a type with tagged slots is refused when no scheme was declared"))
        show_output(&r);
    free(r.output);
    return done_testing();
}
