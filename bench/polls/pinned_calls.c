/* pinned_calls.c — what the pass's automatic pin adds to an unmanaged call
 * that receives a raw pointer into a managed object (`(char *)b->data`):
 * the same call through its GC-transition wrapper, once with a pointer into
 * a managed byte array (pinned and unpinned around the call) and once with a
 * pointer to C memory (no pin). In the BENCH line the first column is the
 * pinned call, the second the plain one, per call. */
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
    corral_handle_scope_close(scope);
    return 0;
}
