/* object.c — type descriptor checks. */
#include "object.h"

/* Every field offset 8-byte aligned and within the fixed part. */
static const char *field_offsets_problem(const corral_type *type, const uint32_t *offsets,
                                         uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t offset = offsets[i];
        if (offset % sizeof(void *))
            return "a reference or tagged field offset is not 8-byte aligned";
        size_t first = (type->flags & CORRAL_TYPE_HEADERLESS) ? 0 : sizeof(corral_header);
        if (offset < first || offset + sizeof(void *) > type->size)
            return "a reference or tagged field offset lies outside the object's fixed part";
    }
    return NULL;
}

const char *corral_type_problem(const corral_type *type)
{
    if (!type)
        return "the type pointer is NULL";
    if (type->signature != CORRAL_TYPE_SIGNATURE)
        return "the type has no CORRAL_TYPE_SIGNATURE (not a corral_type, or corrupt)";
    bool array = type->flags & CORRAL_TYPE_ARRAY;
    if (type->flags & CORRAL_TYPE_HEADERLESS) {
        if (type->flags & (CORRAL_TYPE_ARRAY | CORRAL_TYPE_PINNED | CORRAL_TYPE_FINALIZABLE))
            return "a headerless type cannot be an array, pinned or finalizable "
                   "(CORRAL_TYPE_HEADERLESS with ARRAY, PINNED or FINALIZABLE)";
        if (type->size == 0 || type->size > CORRAL_HEADERLESS_MAX_SIZE)
            return "a headerless type's size must be 1 to CORRAL_HEADERLESS_MAX_SIZE (1024) bytes";
    } else if (type->size < (array ? sizeof(corral_array_header) : sizeof(corral_header)))
        return array ? "an array type's size must include the header and length word (16 bytes)"
                     : "a type's size must include the 8-byte header";
    if ((type->flags & CORRAL_TYPE_REF_ARRAY) && (!array || type->element_size != sizeof(void *)))
        return "a reference array needs CORRAL_TYPE_ARRAY and 8-byte elements";
    if ((type->flags & CORRAL_TYPE_TAGGED_ARRAY) &&
        (!array || type->element_size != sizeof(void *) || (type->flags & CORRAL_TYPE_REF_ARRAY)))
        return "a tagged array needs CORRAL_TYPE_ARRAY, 8-byte elements and no "
               "CORRAL_TYPE_REF_ARRAY";
    bool tagged = type->tagged_count || (type->flags & CORRAL_TYPE_TAGGED_ARRAY);
    if (tagged && !tagged_scheme_declared)
        return "the type has tagged slots but no tag scheme was declared "
               "(corral_options.tag_scheme)";
    if (tagged && type->trace)
        return "a type with a trace hook cannot also have tagged slots (the hook visits them)";
    if (array && type->element_size == 0)
        return "an array type needs a non-zero element size";
    if ((type->flags & CORRAL_TYPE_FINALIZABLE) && !type->finalize)
        return "a finalizable type needs a finalize function";
    if (type->ref_count && !type->ref_offsets)
        return "ref_count is non-zero but ref_offsets is NULL";
    if (type->tagged_count && !type->tagged_offsets)
        return "tagged_count is non-zero but tagged_offsets is NULL";
    const char *problem = field_offsets_problem(type, type->ref_offsets, type->ref_count);
    if (problem)
        return problem;
    return field_offsets_problem(type, type->tagged_offsets, type->tagged_count);
}
