/* verify.c — the heap verifier: from every root, check every reachable
 * reference points at the start of a valid object.
 *
 * A valid object: in the used heap, 8-byte aligned, its header a corral_type
 * carrying the signature, its end within the heap; or the start of a large
 * object. A header holding the poison pattern means the reference points at
 * memory the collector vacated (CORRAL_GC_STRESS=poison). Each problem names
 * where the reference was found. The traversal is serial and uses the
 * scratch bitmap and the LOS visited bytes as its visited set, clearing both
 * afterwards (the start bitmap and LOS marks hold which objects are old).
 *
 * Before a minor collection it also checks the remembered-set invariant
 * (generation.h): every reference from an old object to a young one lies
 * under a dirty card, else a store skipped the write barrier, and the
 * report names the object, its type and the slot.
 */
#include "verify.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "call_pins.h"
#include "config.h"
#include "fatal.h"
#include "gc.h"
#include "heap.h"
#include "los.h"
#include "mark.h"
#include "object.h"
#include "region_loop.h"
#include "satb_log.h"
#include "roots.h"
#include "stats.h"
#include "thread.h"
#include "typed_space.h"
#include "vec.h"

enum { VERIFY_REPORT_LIMIT = 10 };

typedef VEC(void *) void_list;

/* Readable address ranges of the process (from /proc/self/maps), so a
 * header that is not a type pointer is reported, not dereferenced. */
typedef struct readable_range {
    uintptr_t start, end;
} readable_range;

typedef struct verifier {
    gc_cycle *cycle;
    const char *when;
    VEC(void *) stack;        /* objects to scan */
    los_index large;          /* the large objects, for "is this one?" */
    uint64_t problems;
    uint64_t objects;
    const char *where;        /* what is being scanned, for reports */
    const void *where_object;
    VEC(readable_range) readable; /* sorted */
    bool check_remembered;    /* around a minor GC: old-to-young references remembered? */
    uint64_t missing_barriers;
    /* When set (opening a SATB window): the objects the roots hold, and
     * every object reached. */
    void_list *roots_out, *reached_out;
} verifier;

static void collect_readable_ranges(verifier *v)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps)
        return;
    char line[512];
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 || perms[0] != 'r')
            continue;
        VEC_PUSH(v->readable, ((readable_range){start, end}));
    }
    fclose(maps);
}

/* True when [address, address + size) lies in one readable mapping (maps are
 * listed in address order). Without a map, trust the address. */
static bool readable(const verifier *v, const void *address, size_t size)
{
    if (!v->readable.count)
        return true;
    uintptr_t a = (uintptr_t)address;
    size_t low = 0, high = v->readable.count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (v->readable.items[middle].end <= a)
            low = middle + 1;
        else
            high = middle;
    }
    return low < v->readable.count && v->readable.items[low].start <= a &&
           a + size <= v->readable.items[low].end;
}

/* Names the slot: its object, type and offset for a field, its address
 * for a root; then the word it holds and what is wrong with it. */
static void report(verifier *v, void **slot, uintptr_t tag, const char *problem)
{
    v->problems++;
    if (v->problems > VERIFY_REPORT_LIMIT)
        return;
    FILE *out = stderr;
    fprintf(out, "corral: verify %s gc %" PRIu64 ": %s %p (slot %p) ", v->when, v->cycle->number,
            v->where, (void *)v->where_object, (void *)slot);
    if (v->where_object && (heap_contains(v->where_object) ||
                            los_index_contains(&v->large, v->where_object)))
        fprintf(out, "of type %s at offset %zu ", object_type(v->where_object)->name,
                (size_t)((char *)slot - (const char *)v->where_object));
    if (tag == TAGGED_INVALID)
        fprintf(out, "holds tagged word %p: %s\n", *slot, problem);
    else if (tag)
        fprintf(out, "holds tagged word %p (tag %u, object %p): %s\n", *slot, (unsigned)tag,
                object_slot_target(slot, tag), problem);
    else
        fprintf(out, "holds %p: %s\n", *slot, problem);
}

/* Returns NULL when reference is a valid object start, else what is wrong. */
static const char *reference_problem(const verifier *v, const void *reference)
{
    if ((uint64_t)(uintptr_t)reference == CORRAL_POISON_PATTERN)
        return "the poison pattern itself: the field was never written since its memory was "
               "handed out or vacated (an allocation fast path that does not zero the object? "
               "corral/alloc.h, CORRAL_TLAB_ZERO)";
    if ((uintptr_t)reference & (CORRAL_GRANULE - 1))
        return "not 8-byte aligned (an interior pointer stored in the heap?)";
    if (heap_contains(reference)) {
        if (region_headerless_type(reference))
            return typed_space_reference_problem(reference);
        const corral_header *header = reference;
        if ((uint64_t)(uintptr_t)header->type == CORRAL_POISON_PATTERN)
            return "points into memory vacated by the collector (poison pattern 0xbadc0ffee0ddf00d):"
                   " a stale reference that was not relocated";
        if (((uintptr_t)header->type & 7) || !readable(v, header->type, sizeof(corral_type)))
            return "no valid object header there (the header is not a type pointer: a stale or "
                   "interior reference, or a value that is not a reference)";
        const char *type_problem = corral_type_problem(header->type);
        if (type_problem)
            return "no valid object header there (a stale or interior reference)";
        if ((const char *)reference + object_size(reference) > corral_heap.top)
            return "the object would extend past the heap top";
        return NULL;
    }
    if (los_index_contains(&v->large, reference)) {
        const corral_type *type = object_type(reference);
        if (((uintptr_t)type & 7) || !readable(v, type, sizeof(corral_type)) ||
            corral_type_problem(type))
            return "a large object with a corrupt header";
        return NULL;
    }
    return "neither in the heap nor a large object";
}

/* Marks reference visited; true the first time. */
static bool first_visit(void *reference)
{
    if (heap_contains(reference)) {
        size_t granule = heap_granule_index(reference);
        if (heap_bit(corral_heap.scratch_bits, granule))
            return false;
        corral_heap.scratch_bits[granule >> 6] |= UINT64_C(1) << (granule & 63);
        return true;
    }
    los_object *header = los_header(reference);
    if (header->verify_visited)
        return false;
    header->verify_visited = 1;
    return true;
}

/* Old, before a minor collection marks: marked by an earlier collection
 * (generation.h), so the marker's own test. */
static bool is_old(const void *object)
{
    return mark_is_marked(object);
}

static void check_remembered_slot(void **slot, uintptr_t tag, void *context)
{
    verifier *v = context;
    void *reference = object_slot_target(slot, tag);
    if (!reference || reference_problem(v, reference) || is_old(reference) ||
        barrier_recorded_in(v->where_object, slot))
        return;
    v->missing_barriers++;
    if (++v->problems > VERIFY_REPORT_LIMIT)
        return;
    const void *object = v->where_object;
    /* Before a minor collection the stores since the last one are to blame;
     * after it, the collector, which must dirty the cards of old objects
     * that hold survivors kept young. */
    bool after = strcmp(v->when, "after") == 0;
    fprintf(stderr,
            "corral: verify %s gc %" PRIu64 ": %s: old object %p of type %s holds young %p in "
            "its slot at offset %zu (%p), and the slot's card is clean: %s\n",
            v->when, v->cycle->number, after ? "unremembered reference" : "missing write barrier",
            object, object_type(object)->name, reference,
            (size_t)((char *)slot - (const char *)object), (void *)slot,
            after ? "the minor collection left an old-to-young reference off the remembered "
                    "set (a collector bug)"
                  : "a reference store into the heap skipped the barrier (plain C must use "
                    "corral_store_ref; managed code must be built with corralc's write "
                    "barrier)");
}

/* What a trace hook hands over: a plain reference. */
static void check_remembered_plain_slot(void **slot, void *context)
{
    check_remembered_slot(slot, 0, context);
}

static void check_tagged_slot(void **slot, uintptr_t tag, void *context)
{
    verifier *v = context;
    if (tag == TAGGED_INVALID) {
        report(v, slot, tag,
               "a tagged word that is neither an immediate nor a reference under the tag "
               "scheme (corral_options.tag_scheme)");
        return;
    }
    void *reference = object_slot_target(slot, tag);
    if (!reference)
        return;
    const char *problem = reference_problem(v, reference);
    if (problem) {
        report(v, slot, tag, problem);
        return;
    }
    if (v->roots_out && !v->where_object)
        VEC_PUSH(*v->roots_out, reference);
    if (first_visit(reference)) {
        VEC_PUSH(v->stack, reference);
        if (v->reached_out)
            VEC_PUSH(*v->reached_out, reference);
    }
}

/* A plain reference slot a trace hook hands over. */
static void check_slot(void **slot, void *context)
{
    check_tagged_slot(slot, 0, context);
}

/* A stack slot holds a word under the tag scheme (tagged.h), like a tagged
 * field, except that without a declared scheme every word is a reference. */
static void check_stack_slot(verifier *v, void **slot)
{
    uintptr_t tag = tagged_classify((uintptr_t)*slot);
    if (tag != TAGGED_SKIP)
        check_tagged_slot(slot, tag, v);
}

/* A frame pin's object, a root as a stack slot's word is (call_pins.c). */
static void check_frame_pin(void *word, void *context)
{
    void *copy = word; /* read only: a pinned object does not move */
    check_stack_slot(context, &copy);
}

static void check_thread(verifier *v, corral_thread *thread)
{
    thread_roots *roots = &thread->roots;
    v->where = "stack slot of a stopped thread";
    v->where_object = NULL;
    for (size_t i = 0; i < roots->base_count; i++)
        check_stack_slot(v, roots->bases[i]);
    v->where = "handle of a stopped thread";
    roots_visit_handles_from_stw(thread, check_tagged_slot, v);
    v->where = "frame pin of a stopped thread";
    call_pins_for_each_frame_pin_from_stw(thread, check_frame_pin, v);
}

static void scan(verifier *v, void *object)
{
    v->objects++;
    v->where = "field of object";
    v->where_object = object;
    object_visit_slots(object, check_tagged_slot, check_slot, v);
    if (v->check_remembered && is_old(object)) {
        v->where_object = object;
        object_visit_slots(object, check_remembered_slot, check_remembered_plain_slot, v);
    }
}

static void clear_visited(verifier *v)
{
    heap_clear_scratch_bits_from_stw();
    for (size_t i = 0; i < v->large.count; i++)
        los_header((void *)v->large.payloads[i])->verify_visited = 0;
}

/* The checks from every root; leaves v's lists for the caller to free. */
static void trace_from_roots(verifier *v)
{
    los_index_build_from_stw(&v->large);
    collect_readable_ranges(v);
    for (size_t i = 0; i < v->cycle->stop->thread_count; i++)
        check_thread(v, v->cycle->stop->threads[i]);
    v->where = "global root, pin or finalization entry";
    v->where_object = NULL;
    roots_visit_globals_from_stw(check_tagged_slot, v);
    while (v->stack.count)
        scan(v, v->stack.items[--v->stack.count]);
    clear_visited(v);
}

static void free_verifier(verifier *v)
{
    VEC_FREE(v->stack);
    los_index_free(&v->large);
    VEC_FREE(v->readable);
}

uint64_t verify_heap_from_stw(gc_cycle *cycle, const char *when)
{
    verifier v = {.cycle = cycle, .when = when,
                  .check_remembered = cycle->minor};
    trace_from_roots(&v);
    free_verifier(&v);
    if (corral_runtime_config.log & CORRAL_LOG_VERIFY)
        fprintf(stats_log_stream(), "corral: verify %s %s gc %" PRIu64 ": %" PRIu64
                                    " objects reachable, %" PRIu64 " problems\n",
                when, cycle->minor ? "minor" : "major", cycle->number, v.objects, v.problems);
    if (v.problems)
        CORRAL_FATAL("heap verification %s gc %" PRIu64 " found %" PRIu64
                     " problems, %" PRIu64 " of them old-to-young references under clean "
                     "cards (first %d listed above)",
                     when, cycle->number, v.problems, v.missing_barriers, VERIFY_REPORT_LIMIT);
    return v.problems;
}

/* ---- CORRAL_GC_VERIFY=satb: the deletion barrier's check
 *
 * Snapshot-at-the-beginning marking finds every object reachable when it
 * began if it traces the heap as it is now from the roots of then and from
 * every reference a store overwrote since (the deletion barrier's log).
 * The check: at the end of each collection (the window opens) note the
 * roots' objects and everything reachable, and turn the barrier on; at the
 * next collection (it closes) trace from those roots and the log through
 * the objects of the snapshot alone (an object allocated since is live to
 * such a marker without a trace), and report every snapshot object not
 * reached: a store overwrote a reference to it without the barrier.
 *
 *   closed ──gc ends──> open: barrier on, snapshot kept
 *     ^                   │
 *     └───next gc starts: trace, report, barrier off, log dropped
 *
 * Weak handles are not roots here: a weakly held object the mutator took
 * out of its handle after the window opened is not checked.
 */

/* Collector only, world stopped. */
static struct {
    bool open;
    uint64_t opened_after_gc;
    void_list roots;     /* objects the roots held when it opened */
    void_list snapshot;  /* every object reachable then, sorted */
} satb_window;

static int compare_addresses(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
    return (x > y) - (x < y);
}

static bool in_snapshot(const void *object)
{
    return object && bsearch(&object, satb_window.snapshot.items, satb_window.snapshot.count,
                             sizeof(void *), compare_addresses);
}

void verify_satb_open_from_stw(gc_cycle *cycle)
{
    /* Drops what stores logged while no window was open. */
    satb_log_drain_from_stw(cycle->stop->threads, cycle->stop->thread_count, NULL, NULL);
    verifier v = {.cycle = cycle, .when = "satb snapshot after",
                  .roots_out = &satb_window.roots, .reached_out = &satb_window.snapshot};
    trace_from_roots(&v);
    free_verifier(&v);
    if (v.problems)
        CORRAL_FATAL("heap verification for the SATB snapshot after gc %" PRIu64
                     " found %" PRIu64 " problems (first %d listed above)",
                     cycle->number, v.problems, VERIFY_REPORT_LIMIT);
    qsort(satb_window.snapshot.items, satb_window.snapshot.count, sizeof(void *),
          compare_addresses);
    satb_window.open = true;
    satb_window.opened_after_gc = cycle->number;
    __atomic_store_n(&corral_barrier.satb_active, 1, __ATOMIC_RELAXED);
}

/* Pushes object when it is of the snapshot and not yet reached. */
static void reach(verifier *v, void *object)
{
    if (in_snapshot(object) && first_visit(object))
        VEC_PUSH(v->stack, object);
}

static void reach_slot(void **slot, uintptr_t tag, void *context)
{
    reach(context, object_slot_target(slot, tag));
}

static void reach_hook_slot(void **slot, void *context)
{
    reach(context, object_slot_target(slot, 0));
}

static void reach_logged(void *object, void *context)
{
    reach(context, object);
}

/* Reaches from the window's roots and the stopped threads' logs; returns how
 * many references were logged. */
static size_t reach_from_snapshot_roots_and_log(verifier *v)
{
    for (size_t i = 0; i < satb_window.roots.count; i++)
        reach(v, satb_window.roots.items[i]);
    size_t logged = satb_log_drain_from_stw(v->cycle->stop->threads, v->cycle->stop->thread_count,
                                            reach_logged, v);
    while (v->stack.count)
        object_visit_slots(v->stack.items[--v->stack.count], reach_slot, reach_hook_slot, v);
    return logged;
}

static void report_unreached(verifier *v, void *object)
{
    if (++v->problems > VERIFY_REPORT_LIMIT)
        return;
    fprintf(stderr,
            "corral: verify satb gc %" PRIu64 ": object %p of type %s was reachable when gc %"
            PRIu64 " ended, and neither that moment's roots nor the references overwritten since "
            "reach it: a store overwrote a reference to it without the deletion barrier (plain "
            "C must use corral_store_ref, or corral_deletion_barrier before a memcpy or memset "
            "into an object; managed code must be built with corralc --satb-barrier)\n",
            v->cycle->number, object, object_type(object)->name, satb_window.opened_after_gc);
}

void verify_satb_close_from_stw(gc_cycle *cycle)
{
    if (!satb_window.open)
        return;
    __atomic_store_n(&corral_barrier.satb_active, 0, __ATOMIC_RELAXED);
    verifier v = {.cycle = cycle, .when = "satb"};
    los_index_build_from_stw(&v.large);
    size_t logged = reach_from_snapshot_roots_and_log(&v);
    for (size_t i = 0; i < satb_window.snapshot.count; i++) {
        void *object = satb_window.snapshot.items[i];
        if (first_visit(object))
            report_unreached(&v, object);
    }
    clear_visited(&v);
    free_verifier(&v);
    if (corral_runtime_config.log & CORRAL_LOG_VERIFY)
        fprintf(stats_log_stream(), "corral: verify satb gc %" PRIu64 ": %zu snapshot objects, "
                                    "%zu references logged, %" PRIu64 " not reached\n",
                cycle->number, satb_window.snapshot.count, logged, v.problems);
    satb_window.open = false;
    satb_window.roots.count = 0;
    satb_window.snapshot.count = 0;
    if (v.problems)
        CORRAL_FATAL("SATB verification at gc %" PRIu64 ": %" PRIu64 " objects of the snapshot "
                     "taken after gc %" PRIu64 " were overwritten without the deletion barrier "
                     "(first %d listed above)",
                     cycle->number, v.problems, satb_window.opened_after_gc, VERIFY_REPORT_LIMIT);
}
