/* finalizers_c.c — the finalizer of finalizers' resource type, in plain C: it
 * runs inside the runtime after a collection and must not be managed code. */
#include <stdatomic.h>
#include <stdio.h>

#include "finalizers.h"

static _Atomic unsigned char runs[MAX_RESOURCES];
static _Atomic long corruptions;

static void finalize_resource(void *object)
{
    struct resource *r = object;
    /* The object and what it references are still readable. */
    if (r->id <= 0 || r->id >= MAX_RESOURCES || r->check != ~r->id || !r->child ||
        r->child->value != r->id * 3) {
        if (atomic_fetch_add(&corruptions, 1) < 5)
            fprintf(stderr, "torture: finalizers: finalizer saw a corrupt object %p: id %ld "
                            "check %ld child %p\n",
                    object, r->id, r->check, (void *)r->child);
        return;
    }
    atomic_fetch_add(&runs[r->id], 1);
}

static const uint32_t resource_refs[] = {offsetof(struct resource, child)};
const corral_type resource_type = {CORRAL_TYPE_SIGNATURE, "resource", sizeof(struct resource), 0,
                                   CORRAL_TYPE_FINALIZABLE, 1, resource_refs, 0,
                                   finalize_resource, 0, 0};
const corral_type child_type = CORRAL_LEAF_TYPE("child", struct child);

long finalized_count(long id)
{
    return atomic_load(&runs[id]);
}

long finalizer_corruptions(void)
{
    return atomic_load(&corruptions);
}
