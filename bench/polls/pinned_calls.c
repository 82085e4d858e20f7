/* pinned_calls.c — what the pass's automatic pin adds to an unmanaged call
 * that receives a raw pointer into a managed object (`(char *)b->data`):
 * the same call through its GC-transition wrapper, once with a pointer into
 * a managed byte array (pinned and unpinned around the call) and once with a
 * pointer to C memory (no pin). Then the frame pin (polls/frame_pins.c), for
 * calls that may hand a pointer into the object back: strtol with an end
 * pointer (unmanaged) and strchr (a leaf), each against the same call on C
 * memory. In each BENCH line the first column is the pinned call, the
 * second the plain one, per call. */
#include "bench_common.h"

#include <string.h>

typedef struct bytes CORRAL_REF *bytesref;
struct bytes {
    corral_array_header header;
    char data[64];
};
static const corral_type bytes_type = CORRAL_DATA_ARRAY_TYPE("bytes", char);

/* strtol is unmanaged C (not on the leaf list) and not pure (errno), so
 * every iteration makes the call and its GC transition. */
long strtol(const char *text, char **end, int base);

typedef struct call_context {
    corral_handle bytes;
    char c_bytes[64];
    long calls;
} call_context;

static long pinned_kernel(void *opaque)
{
    call_context *context = opaque;
    bytesref bytes = (bytesref)*context->bytes;
    long total = 0;
    for (long i = 0; i < context->calls; i++)
        total += strtol((char *)bytes->data, NULL, 10);
    return total;
}

static long plain_kernel(void *opaque)
{
    call_context *context = opaque;
    long total = 0;
    for (long i = 0; i < context->calls; i++)
        total += strtol(context->c_bytes, NULL, 10);
    return total;
}

/* The object is pinned until the kernel returns; each iteration's site
 * call finds its entry and stores the object again. */
static long frame_pinned_end_kernel(void *opaque)
{
    call_context *context = opaque;
    bytesref bytes = (bytesref)*context->bytes;
    long total = 0;
    for (long i = 0; i < context->calls; i++) {
        char *end;
        total += strtol((char *)bytes->data, &end, 10) + (end - (char *)bytes->data);
    }
    return total;
}

static long plain_end_kernel(void *opaque)
{
    call_context *context = opaque;
    long total = 0;
    for (long i = 0; i < context->calls; i++) {
        char *end;
        total += strtol(context->c_bytes, &end, 10) + (end - context->c_bytes);
    }
    return total;
}

/* strchr is a leaf: no transition, no call pin; only the frame pin. The
 * volatile index keeps the call in the loop. */
static long frame_pinned_leaf_kernel(void *opaque)
{
    call_context *context = opaque;
    bytesref bytes = (bytesref)*context->bytes;
    volatile int wanted = '4';
    long total = 0;
    for (long i = 0; i < context->calls; i++)
        total += strchr((char *)bytes->data, wanted) - (char *)bytes->data;
    return total;
}

static long plain_leaf_kernel(void *opaque)
{
    call_context *context = opaque;
    volatile int wanted = '4';
    long total = 0;
    for (long i = 0; i < context->calls; i++)
        total += strchr(context->c_bytes, wanted) - context->c_bytes;
    return total;
}

int main(int argc, char **argv)
{
    bench_start();
    int repeats = bench_repeats(argc, argv, 5);
    corral_handle_scope scope = corral_handle_scope_open();
    bytesref bytes = (bytesref)corral_alloc_array(&bytes_type, 64);
    call_context context = {corral_handle_new((corral_ref)bytes), {0}, 2L * 1000 * 1000};
    memcpy((char *)bytes->data, "12345", 6);
    memcpy(context.c_bytes, "12345", 6);
    bench_compare("unmanaged_call_pinned", pinned_kernel, plain_kernel, &context,
                  (double)context.calls, repeats);
    bench_compare("unmanaged_call_frame_pinned", frame_pinned_end_kernel, plain_end_kernel,
                  &context, (double)context.calls, repeats);
    bench_compare("leaf_call_frame_pinned", frame_pinned_leaf_kernel, plain_leaf_kernel, &context,
                  (double)context.calls, repeats);
    corral_handle_scope_close(scope);
    return 0;
}
