/* Byte data in managed objects handed to C the way a VM author writes it:
 * `(char *)b->data` to memcpy, strlen, write and a C callback, raw pointers
 * into an object kept across collections that move it, and the pointers C
 * hands back into it (strchr, strtol's end, strtok_r, strsep). Built at
 * -O0..-O3: the pass recomputes each raw pointer from the relocated
 * reference after every safepoint, pins the object for a call that may
 * reach one, and for the rest of the frame where C may hand a pointer back,
 * so every level behaves alike. */
#define _DEFAULT_SOURCE 1 /* strsep, strtok_r */
#include <corral.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corral_test.h"
#include "node_arrays.h"

#define MOVING_STRESS "CORRAL_GC_STRESS=move-all,poison CORRAL_GC_VERIFY=after"

typedef struct bytes CORRAL_REF *bytesref;
struct bytes {
    corral_array_header header;
    char data[];
};
static const corral_type bytes_type = CORRAL_DATA_ARRAY_TYPE("bytes", char);

static bytesref new_bytes(size_t length)
{
    corral_alloc_array(&bytes_type, 3); /* garbage below: every collection slides */
    return (bytesref)corral_alloc_array(&bytes_type, length);
}

/* Unmanaged C (compiled plainly, see unmanaged_helpers.c). */
long unmanaged_sum_bytes(const char *bytes, long length);
long unmanaged_collect_and_sum(const char *bytes, long length, void *(*collect)(void *));

/* Managed, run by unmanaged C through corral_call_managed. */
static void *collect_with_garbage(void *unused)
{
    (void)unused;
    new_bytes(8);
    corral_collect();
    return NULL;
}

static void copy_in_and_out(void *arg)
{
    test_start(arg, true);
    bytesref b = new_bytes(64);
    const char text[] = "managed bytes survive moving collections";
    memcpy((char *)b->data, text, sizeof text);
    corral_collect();
    char out[64];
    memcpy(out, (char *)b->data, sizeof text);
    is_str(out, text, "memcpy into and out of a managed byte array");
    is_int((long)strlen((char *)b->data), (long)sizeof text - 1, "strlen of managed bytes");
}

static void raw_pointer_across_collections(void *arg)
{
    test_start(arg, true);
    bytesref b = new_bytes(32);
    char *cursor = (char *)b->data;
    for (int i = 0; i < 26; i++) {
        corral_collect(); /* b moves: cursor must follow it */
        *cursor++ = (char)('a' + i);
    }
    *cursor = '\0';
    is_str((char *)b->data, "abcdefghijklmnopqrstuvwxyz",
           "a raw pointer into an object, advanced across 26 moving GCs");
    char *middle = (char *)b->data + 10;
    corral_collect();
    is_int(*middle, 'k', "a raw interior pointer held across one GC reads the moved object");
}

static void bytes_to_unmanaged_c(void *arg)
{
    test_start(arg, true);
    bytesref b = new_bytes(100);
    for (int i = 0; i < 100; i++)
        b->data[i] = (char)i;
    is_int(unmanaged_sum_bytes((char *)b->data, 100), 4950, "bytes passed to unmanaged C");
    is_int(unmanaged_collect_and_sum((char *)b->data + 50, 50, collect_with_garbage), 3725,
           "unmanaged C that lets a GC in meanwhile reads a pinned, unmoved object");
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0)
        bail_out("pipe failed");
    memcpy((char *)b->data, "through a pipe", 15);
    is_int(write(pipe_ends[1], (char *)b->data, 15), 15, "write() from managed bytes");
    bytesref in = new_bytes(15);
    is_int(read(pipe_ends[0], (char *)in->data, 15), 15, "read() into managed bytes");
    is_str((char *)in->data, "through a pipe", "the bytes arrived");
    close(pipe_ends[0]);
    close(pipe_ends[1]);
    corral_stats before, after;
    corral_get_stats(&before);
    corral_collect();
    corral_get_stats(&after);
    ok(after.bytes_moved - before.bytes_moved >= 100 + 15,
       "nothing stays pinned after the calls (both arrays moved: %llu bytes)",
       (unsigned long long)(after.bytes_moved - before.bytes_moved));
    is_int(b->data[1] + in->data[1], 2 * 'h', "and both are intact");
}

/* A reader keeps its cursor in memory, where the pass cannot follow it; its
 * caller holds the pin, and the function that stores the cursor says so.
 * Not static: the pass would inline a static one into the caller. */
typedef struct reader {
    char *cursor;
} reader;

void reader_open(reader *r, bytesref b);
void reader_open(reader *r, bytesref b)
{
    corral_require_pinned(b);
    r->cursor = (char *)b->data;
}

/* An accessor returning a raw pointer: the caller holds the pin. Before
 * 2026-11-29 the pass refused it (the pointer was live across the return
 * poll); without a pin it is refused still ("returns a raw pointer"). */
const char *text_of_pinned(bytesref b);
const char *text_of_pinned(bytesref b)
{
    corral_require_pinned(b);
    return (const char *)b->data;
}

static void cursor_kept_by_a_callee(void *arg)
{
    test_start(arg, true);
    bytesref b = new_bytes(32);
    memcpy((char *)b->data, "pinned by the caller", 21);
    corral_pin(b);
    reader r;
    reader_open(&r, b);
    bytesref before = b;
    corral_collect();
    ok(b == before, "the pinned array stayed in place");
    is_str(r.cursor, "pinned by the caller", "a cursor a callee kept in a struct reads it");
    const char *text = text_of_pinned(b);
    corral_collect();
    is_str(text, "pinned by the caller", "so does a pointer an accessor returned");
    corral_unpin(b);
}

/* ---- pointers C hands back into an object (polls/frame_pins.c) */

static bytesref new_text(const char *text)
{
    size_t length = strlen(text) + 1;
    bytesref b = new_bytes(length);
    memcpy((char *)b->data, text, length);
    return b;
}

/* A managed parser that lets a moving collection in, then reads on from
 * the cursor local its caller made from an object. Not static, not
 * inlined: it stays a call. */
__attribute__((noinline)) long next_number(char **cursor);
long next_number(char **cursor)
{
    new_bytes(16);
    corral_collect();
    char *end;
    long value = strtol(*cursor, &end, 10);
    *cursor = *end ? end + 1 : end;
    return value;
}

/* A static helper returning strchr's result: the pass inlines it, so the
 * caller's frame pins the string (before 2026-11-29 it stayed a call and
 * its caller read the old copy; an external one is refused). */
static __attribute__((noinline)) const char *after_comma(bytesref text)
{
    return strchr((const char *)text->data, ',');
}

static void pointers_handed_back(void *arg)
{
    test_start(arg, true);
    bytesref s = new_text("12,345,6789");
    char *comma = strchr((char *)s->data, ',');
    corral_collect();
    ok(comma && comma - (char *)s->data == 2 && comma[1] == '3',
       "strchr's result points into the string after a moving GC");
    char *six = memchr((char *)s->data, '6', 11);
    corral_collect();
    ok(six && six[1] == '7', "memchr's result too");
    char *end;
    long first = strtol((char *)s->data, &end, 10);
    corral_collect();
    ok(first == 12 && end - (char *)s->data == 2 && *end == ',', "strtol's end pointer too");

    long sum = 0;
    for (char *p = (char *)s->data;; p = end + 1) {
        sum += strtol(p, &end, 10);
        new_bytes(8);
        corral_collect();
        if (*end != ',')
            break;
    }
    is_int(sum, 12 + 345 + 6789, "a parse loop stepping through strtol's end across GCs");

    bytesref words = new_text("alpha beta gamma");
    char *save;
    int count = 0;
    size_t letters = 0;
    for (char *word = strtok_r((char *)words->data, " ", &save); word;
         word = strtok_r(NULL, " ", &save)) {
        corral_collect();
        letters += strlen(word);
        count++;
    }
    ok(count == 3 && letters == 14, "strtok_r's words and save pointer across GCs");

    bytesref list = new_text("x;yy;zzz");
    char *rest = (char *)list->data, *item;
    size_t items = 0, characters = 0;
    while ((item = strsep(&rest, ";"))) {
        corral_collect();
        items++;
        characters += strlen(item);
    }
    ok(items == 3 && characters == 6, "strsep through a local holding a pointer into the object");
    char *found = strstr((char *)s->data, "345");
    corral_collect();
    ok(found && found - (char *)s->data == 3, "strstr's result and its offset after a GC");

    bytesref digits = new_text("1 22 333");
    char *cursor = (char *)digits->data;
    long total = 0;
    for (int i = 0; i < 3; i++)
        total += next_number(&cursor);
    is_int(total, 356, "a cursor local a collecting managed parser advances");

    char buffer[] = "C memory";
    char *either = count == 3 ? (char *)s->data : buffer;
    corral_collect();
    is_int(either[0], '1', "a pointer into an object or into C memory, across a GC");

    const char *rest_of_list = after_comma(s);
    corral_collect();
    ok(rest_of_list && rest_of_list[1] == '3', "a static helper's strchr result after a GC");
}

static void only_c_points_into_it(void *arg)
{
    test_start(arg, true);
    bytesref text = new_text("left,right");
    corral_weak *watch = corral_weak_new(text);
    char *comma = strchr((char *)text->data, ',');
    for (int i = 0; i < 3; i++) {
        new_bytes(64);
        corral_collect();
    }
    ok(corral_weak_get(watch) != NULL, "an object only strchr's result points into stays alive");
    is_str(comma ? comma + 1 : "", "right", "and in place");
    corral_weak_free(watch);
}

enum { TEXTS = 64, TEXT_BYTES = 1000 };

/* A string of TEXT_BYTES with its comma in the middle, garbage once used. */
static bytesref new_long_text(void)
{
    char text[TEXT_BYTES];
    memset(text, 'x', sizeof text);
    text[TEXT_BYTES / 2] = ',';
    text[TEXT_BYTES - 1] = '\0';
    return new_text(text);
}

/* A call (not static, not inlined), whose frame pin ends as it returns. */
__attribute__((noinline)) long comma_offset_in_a_new_text(void);
long comma_offset_in_a_new_text(void)
{
    bytesref s = new_long_text();
    char *comma = strchr((char *)s->data, ',');
    corral_collect();
    return comma && comma[1] == 'x' ? comma - (char *)s->data : -1;
}

/* Live bytes after a full collection. */
static uint64_t live_bytes(void)
{
    corral_collect();
    corral_stats stats;
    corral_get_stats(&stats);
    return stats.live_bytes;
}

static void frame_pins_are_bounded(void *arg)
{
    test_start(arg, true);
    uint64_t before = live_bytes();
    long found = 0;
    for (int i = 0; i < TEXTS; i++) {
        bytesref t = new_long_text();
        char *comma = strchr((char *)t->data, ',');
        found += comma[1] == 'x' ? comma - (char *)t->data : -1;
    }
    uint64_t kept = live_bytes() - before;
    ok(found == (long)TEXTS * (TEXT_BYTES / 2) && kept < 3 * TEXT_BYTES,
       "a loop's strchr keeps only its last string alive: %llu bytes more live",
       (unsigned long long)kept);
    before = live_bytes();
    long offsets = 0;
    for (int i = 0; i < TEXTS; i++)
        offsets += comma_offset_in_a_new_text();
    kept = live_bytes() - before;
    ok(offsets == (long)TEXTS * (TEXT_BYTES / 2) && kept < TEXT_BYTES,
       "a frame's pins end as it returns: %llu bytes more live", (unsigned long long)kept);
}

int main(void)
{
    plan(7);
    tap_subtest("memcpy and strlen on managed bytes", 60, copy_in_and_out, MOVING_STRESS);
    tap_subtest("raw pointers across moving collections", 60, raw_pointer_across_collections,
                MOVING_STRESS);
    tap_subtest("managed bytes to unmanaged C, pinned for the call", 60, bytes_to_unmanaged_c,
                MOVING_STRESS);
    tap_subtest("a callee keeps or returns a raw pointer while its caller pins", 60,
                cursor_kept_by_a_callee, MOVING_STRESS);
    tap_subtest("pointers C hands back into an object follow it for the frame", 60,
                pointers_handed_back, MOVING_STRESS);
    tap_subtest("an object only C's pointer reaches stays alive", 60, only_c_points_into_it,
                MOVING_STRESS);
    tap_subtest("frame pins: one per site, gone when the frame returns", 60,
                frame_pins_are_bounded, MOVING_STRESS);
    return done_testing();
}
