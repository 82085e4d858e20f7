/* derived_argument — an interior pointer passed to (or returned from) a
 * managed function that is not inlined would be a *base* pointer in the
 * callee's (caller's) stackmap records, and the collector would mark and
 * forward it as if it were an object start. corral-opt rejects the pattern
 * ("interior reference ... passed to 'bump_after_gc'"); tests/polls checks
 * the message on this file.
 */
#include <corral.h>
#include <stdio.h>

typedef struct record CORRAL_REF *recordref;
struct record {
    corral_header header;
    recordref next;
    long a, b;
};
typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    long value;
};

static const uint32_t record_refs[] = {offsetof(struct record, next)};
static const corral_type record_type = CORRAL_STRUCT_TYPE("record", struct record, record_refs);
static const corral_type node_type = CORRAL_LEAF_TYPE("node", struct node);

/* field is a GC pointer argument: RS4GC takes it as its own base. */
__attribute__((noinline)) long bump_after_gc(long CORRAL_REF *field)
{
    for (int i = 0; i < 1000; i++)
        corral_alloc(&node_type); /* garbage below nothing: the record slides */
    corral_collect();
    return ++*field;
}

int main(void)
{
    corral_init(NULL);
    corral_thread_attach();
    for (int i = 0; i < 1000; i++)
        corral_alloc(&node_type); /* garbage below the record, so it moves */
    recordref r = corral_alloc(&record_type);
    r->a = 41;
    r->b = 7;
    long got = bump_after_gc(&r->b);
    printf("got %ld (expected 8), r->b = %ld\n", got, r->b);
    return got == 8 && r->b == 8 ? 0 : 1;
}
