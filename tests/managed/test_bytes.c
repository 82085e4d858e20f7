/* Byte data in managed objects handed to C the way a VM author writes it:
 * `(char *)b->data` to memcpy, strlen, write and a C callback, and raw
 * pointers into an object kept across collections that move it. Built at
 * -O0..-O3: the pass recomputes each raw pointer from the relocated
 * reference after every safepoint, and pins the object for a call that may
 * reach one, so every level behaves alike. */
#include <corral.h>
#include <string.h>
#include <unistd.h>

#include "corral_test.h"

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
    corral_unpin(b);
}

int main(void)
{
    plan(4);
    tap_subtest("memcpy and strlen on managed bytes", 60, copy_in_and_out, MOVING_STRESS);
    tap_subtest("raw pointers across moving collections", 60, raw_pointer_across_collections,
                MOVING_STRESS);
    tap_subtest("managed bytes to unmanaged C, pinned for the call", 60, bytes_to_unmanaged_c,
                MOVING_STRESS);
    tap_subtest("a callee keeps a raw pointer in memory while its caller pins", 60,
                cursor_kept_by_a_callee, MOVING_STRESS);
    return done_testing();
}
