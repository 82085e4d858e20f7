/* many_fields.h — the "tagged" type of many_fields, shared by its managed
 * half and its plain C trace hook (many_fields_trace.c). */
#ifndef CORRAL_STRESS_MANY_FIELDS_H
#define CORRAL_STRESS_MANY_FIELDS_H

#include <corral.h>

#define TAGGED_SLOTS 16

/* Slot i is a reference when bit i of kinds is set, else an odd integer.
 * Managed code writes integers through raw[], never as a reference value:
 * a non-reference in a reference-typed SSA value can become a stack root. */
typedef struct tagged CORRAL_REF *tagged_ref;
struct tagged {
    corral_header header;
    uint64_t kinds;
    union {
        corral_ref ref;
        uint64_t raw;
    } slots[TAGGED_SLOTS];
};

/* Traced by a hook, not an offset table. */
extern const corral_type tagged_type;

#endif /* CORRAL_STRESS_MANY_FIELDS_H */
