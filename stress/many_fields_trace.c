/* many_fields_trace.c — the trace hook of many_fields' "tagged" type. Plain
 * C: a hook runs during the collection, on GC workers, and must not poll. */
#include "many_fields.h"

static void tagged_trace(void *object, corral_visit_fn visit, void *context)
{
    struct tagged *t = object;
    for (int i = 0; i < TAGGED_SLOTS; i++)
        if (t->kinds & ((uint64_t)1 << i))
            visit((void **)&t->slots[i].ref, context);
}

const corral_type tagged_type = {CORRAL_TYPE_SIGNATURE, "tagged", (uint32_t)sizeof(struct tagged),
                                 0, 0, 0, 0, tagged_trace, 0, 0, 0};
