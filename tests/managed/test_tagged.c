/* Tagged values in compiled code (corral/tagged.h), built by corralc at
 * -O0..-O3 under one scheme each (-DTAG_SCHEME=OCAML, V8 or WIDE): integers
 * and tagged references mixed in locals, loop phis, struct returns, tagged
 * arrays, references tagged by a +tag pointer offset and untagged ones
 * (derived pointers) live across forced and stress collections that move
 * every object, and minor collections (tagged stores into old objects); the walker skips the immediates and relocates the
 * references with their tags. Under V8's scheme an untagged reference on
 * the stack reads as an integer (tag 0), so every reference live across a
 * safepoint is kept tagged here, as there. Each case runs in its own
 * forked child. */
#include <corral.h>
#include <stddef.h>

#include "corral_test.h"

#define SCHEME_OCAML CORRAL_TAG_SCHEME_OCAML
#define SCHEME_V8 CORRAL_TAG_SCHEME_V8
/* References tagged 0 or 2, integers 1; 3 is neither. */
#define SCHEME_WIDE {3u, (1u << 0) | (1u << 2), 1u << 1}
#define SCHEME_OF(name) SCHEME_##name
#define SCHEME_NAMED(name) SCHEME_OF(name)
#define STRING_OF(name) #name
#define NAME_OF(name) STRING_OF(name)

static const corral_tag_scheme S = SCHEME_NAMED(TAG_SCHEME);
/* The tag references get from a pointer offset: the highest reference tag. */
#define OFFSET_TAG (31u - (unsigned)__builtin_clz(S.ref_tags))

typedef struct cell CORRAL_REF *cellref;
struct cell {
    corral_header header;
    corral_value car; /* tagged */
    cellref next;     /* plain */
    long plain;
};

static const uint32_t cell_refs[] = {offsetof(struct cell, next)};
static const uint32_t cell_tagged[] = {offsetof(struct cell, car)};
static const corral_type cell_type =
    CORRAL_TAGGED_STRUCT_TYPE("cell", struct cell, 1, cell_refs, 1, cell_tagged);
static const corral_type values_type = CORRAL_TAGGED_ARRAY_TYPE("value[]");

static void start(const char *settings)
{
    run_setenv_list(settings);
    corral_options options = {.tag_scheme = &S};
    if (corral_init(&options) != 0)
        bail_out("corral_init: %s", corral_last_error());
    if (corral_thread_attach() != 0)
        bail_out("corral_thread_attach: %s", corral_last_error());
}

static __attribute__((noinline)) cellref new_cell(long plain)
{
    cellref c = (cellref)corral_alloc(&cell_type);
    c->plain = plain;
    c->car = corral_tag_int(S, -plain);
    return c;
}

/* Value i: odd i a tagged cell holding i, even i the integer 7 i. */
static __attribute__((noinline)) corral_value make_value(long i)
{
    if (i % 2)
        return corral_tag_ref(S, new_cell(i));
    return corral_tag_int(S, i * 7);
}

static __attribute__((noinline)) long value_of(corral_value v)
{
    if (corral_is_immediate(S, v))
        return corral_untag_int(S, v) / 7;
    if (!corral_is_ref(S, v) || corral_is_null(S, v))
        return -1000000;
    cellref c = (cellref)corral_untag_ref(S, v);
    if (corral_untag_int(S, c->car) != -c->plain)
        return -2000000;
    return c->plain;
}

static __attribute__((noinline)) void garbage(int count)
{
    for (int i = 0; i < count; i++)
        new_cell(i);
}

static void collect_moving(void)
{
    garbage(500); /* below what survives: it slides */
    corral_collect();
}

/* The same immediate untagged before and after a call (the pass must not
 * see one cast of the word live across the call; bench/vm/arith.c's
 * interpreter loop is the case that needed corral_value_bits's asm form). */
static __attribute__((noinline)) long untag_around_call(corral_value v)
{
    long first = corral_untag_int(S, v);
    garbage(10);
    return first + corral_untag_int(S, v);
}

static void locals(void *arg)
{
    start(arg);
    garbage(2000);
    corral_value a = make_value(1), b = make_value(2), c = make_value(3), d = make_value(4);
    corral_value big = corral_tag_int(S, (intptr_t)1 << 40); /* an immediate like an address */
    corral_value null = corral_tag_ref(S, (corral_ref)0);
    cellref inner = (cellref)corral_untag_ref(S, c); /* derived from c */
    intptr_t payload = corral_untag_int(S, b);       /* an integer across the collections */
    unsigned tag = corral_tag_of(S, a);
    corral_stats before;
    corral_get_stats(&before);
    for (int round = 0; round < 4; round++)
        collect_moving();
    corral_stats after;
    corral_get_stats(&after);
    /* Random collections may have compacted the garbage below them away. */
    const char *stress = getenv("CORRAL_GC_STRESS");
    ok(after.bytes_moved > before.bytes_moved || (stress && strstr(stress, "random")),
       "objects moved (%llu bytes in %llu collections)",
       (unsigned long long)(after.bytes_moved - before.bytes_moved),
       (unsigned long long)(after.collections - before.collections));
    ok(value_of(a) == 1 && value_of(b) == 2 && value_of(c) == 3 && value_of(d) == 4,
       "tagged references and integers in locals: %ld %ld %ld %ld", value_of(a), value_of(b),
       value_of(c), value_of(d));
    ok(corral_tag_of(S, a) == (unsigned)__builtin_ctz(S.ref_tags) && tag == corral_tag_of(S, a),
       "the reference keeps its tag");
    ok(payload == 14, "an unboxed payload kept across the collections");
    ok(untag_around_call(b) == 28, "an immediate untagged on both sides of a call");
    ok(corral_untag_int(S, big) == (intptr_t)1 << 40, "an immediate is left alone");
    ok(corral_is_null(S, null), "a tagged null stays null");
    ok(inner == (cellref)corral_untag_ref(S, c) && inner->plain == 3,
       "an untagged pointer derived from a tagged one follows it");
}

static void loop_phis(void *arg)
{
    start(arg);
    corral_value previous = corral_tag_int(S, 0), older = make_value(1);
    long sum = 0, expected = 0;
    for (long i = 2; i < 3000; i++) {
        corral_value next = make_value(i);
        if (i % 250 == 0)
            collect_moving();
        sum += value_of(older);
        older = previous;
        previous = next;
    }
    sum += value_of(older) + value_of(previous);
    /* The values seen: 1, then 0, then 2 .. 2999 (older lags by two). */
    for (long i = 0; i < 3000; i++)
        expected += i;
    is_int(sum, expected, "values carried through loop phis across collections");
}

/* AArch64's ABI returns a two-word struct as [2 x i64] (polls/abi_coercion.c). */
typedef struct value_pair {
    corral_value first, second;
} value_pair;

static __attribute__((noinline)) value_pair make_pair(long i)
{
    value_pair pair = {make_value(i), make_value(i + 1)};
    return pair;
}

static void struct_returns(void *arg)
{
    start(arg);
    garbage(1000);
    value_pair p = make_pair(5), q = make_pair(8);
    collect_moving();
    collect_moving();
    ok(value_of(p.first) == 5 && value_of(p.second) == 6 && value_of(q.first) == 8 &&
           value_of(q.second) == 9,
       "tagged values returned in a struct survive collections");
}

/* A macro: a function returning this interior pointer is refused by the pass. */
#define elements(array)                                                                    \
    ((corral_value CORRAL_REF *)((char CORRAL_REF *)(array) + sizeof(corral_array_header)))

enum { LENGTH = 3000 }; /* over the large-object threshold */

static void arrays(void *arg)
{
    start(arg);
    garbage(1000);
    corral_value small = corral_tag_ref(S, corral_alloc_array(&values_type, 100));
    corral_value large = corral_tag_ref(S, corral_alloc_array(&values_type, LENGTH));
    for (long i = 0; i < LENGTH; i++) {
        corral_value v = make_value(i);
        elements(corral_untag_ref(S, large))[i] = v;
        if (i < 100)
            elements(corral_untag_ref(S, small))[i] = v;
    }
    /* A local copy of an element, and a pointer to one (derived from large). */
    corral_value kept = elements(corral_untag_ref(S, large))[77];
    corral_value CORRAL_REF *slot = &elements(corral_untag_ref(S, large))[99];
    collect_moving();
    collect_moving();
    long bad = 0;
    for (long i = 0; i < LENGTH; i++)
        bad += value_of(elements(corral_untag_ref(S, large))[i]) != i ||
               (i < 100 && value_of(elements(corral_untag_ref(S, small))[i]) != i);
    is_int(bad, 0, "tagged arrays, heap and large, keep their values");
    ok(value_of(kept) == 77 && kept == elements(corral_untag_ref(S, large))[77] &&
           value_of(*slot) == 99,
       "an element copied to a local, and a pointer to one, follow");
}

/* A reference tagged by a pointer offset, not by integer arithmetic. Told
 * the reference tags (--ref-tags), the pass makes it a base of its own;
 * else RS4GC keeps it as a pointer derived from the untagged reference,
 * which works only where tag 0 marks references, and it is no argument
 * (the pass takes it for an interior pointer). */
static void offset_tagging(void *arg)
{
    start(arg);
    garbage(1000);
    corral_value t = (corral_value)((char CORRAL_REF *)new_cell(9) + OFFSET_TAG);
    corral_value c = corral_tag_ref(S, new_cell(10));
    corral_value eleven = (corral_value)((char CORRAL_REF *)new_cell(11) + OFFSET_TAG);
    ((cellref)corral_untag_ref(S, c))->car = eleven;
    collect_moving();
    collect_moving();
#ifdef PASS_KNOWS_REF_TAGS
    long nine_value = value_of(t); /* an argument: a tagged reference */
#else
    long nine_value = 9;
#endif
    cellref nine = (cellref)((char CORRAL_REF *)t - OFFSET_TAG);
    ok(corral_tag_of(S, t) == OFFSET_TAG && nine->plain == 9 && nine_value == 9 &&
           corral_untag_int(S, nine->car) == -9,
       "a reference tagged by a +%u offset is relocated with its tag", OFFSET_TAG);
    ok(value_of(((cellref)corral_untag_ref(S, c))->car) == 11, "and stored in a tagged field");
}

/* A broken program: a word whose tag is in neither set of the scheme held
 * across a collection; the verifier names the stack slot and the word. */
static volatile uintptr_t invalid_bits = 0x12343; /* not a constant: kept in the stackmap */

static void hold_invalid_word(void *context)
{
    start(context);
    corral_value bad = (corral_value)invalid_bits;
    corral_collect();
    printf("still holding a word worth %ld\n", value_of(bad));
}

int main(void)
{
    plan(16);
    /* The third: minor collections, whose verifier checks that every tagged
     * young reference stored into an old object dirtied its card. */
    static const char *const modes[] = {
        "CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=before,after",
        "CORRAL_GC_STRESS=alloc:random:200,move-all,poison CORRAL_HEAP_MIN=4M",
        "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_STRESS=alloc:random:300,mixed:4,poison "
        "CORRAL_GC_VERIFY=before",
    };
    for (int m = 0; m < 3; m++) {
        char name[200];
        snprintf(name, sizeof name, "%s: %%s (%s)", NAME_OF(TAG_SCHEME), modes[m]);
        char title[256];
        void *mode = (void *)modes[m];
        snprintf(title, sizeof title, name, "locals");
        tap_subtest(title, 60, locals, mode);
        snprintf(title, sizeof title, name, "loop phis");
        tap_subtest(title, 60, loop_phis, mode);
        snprintf(title, sizeof title, name, "struct returns");
        tap_subtest(title, 60, struct_returns, mode);
        snprintf(title, sizeof title, name, "arrays");
        tap_subtest(title, 60, arrays, mode);
        snprintf(title, sizeof title, name, "offset tagging");
#ifndef PASS_KNOWS_REF_TAGS
        if (!(S.ref_tags & 1))
            skip(1, "tag 0 marks immediates and the pass was not given --ref-tags");
        else
#endif
            tap_subtest(title, 60, offset_tagging, mode);
    }
    if ((S.ref_tags | S.immediate_tags) == (1u << (S.mask + 1)) - 1) {
        skip(1, "every tag is valid in this scheme");
    } else {
        run_result r = run_child(hold_invalid_word, (void *)"CORRAL_GC_VERIFY=before", 60);
        if (!ok(WIFSIGNALED(r.status) &&
                    output_matches(r.output, "verify before gc 1: stack slot of a stopped thread "
                                             "\\(nil\\) \\(slot 0x[0-9a-f]+\\) holds tagged "
                                             "word 0x12343: a tagged word that is neither"),
                "the verifier names a stack slot holding an invalid tagged word"))
            show_output(&r);
        free(r.output);
    }
    return done_testing();
}
