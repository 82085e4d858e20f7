/* object.c — type descriptor checks. */
#include "object.h"

const char *corral_type_problem(const corral_type *type)
{
    if (!type)
        return "the type pointer is NULL";
    if (type->signature != CORRAL_TYPE_SIGNATURE)
        return "the type has no CORRAL_TYPE_SIGNATURE (not a corral_type, or corrupt)";
    bool array = type->flags & CORRAL_TYPE_ARRAY;
    if (type->size < (array ? sizeof(corral_array_header) : sizeof(corral_header)))
        return array ? "an array type's size must include the header and length word (16 bytes)"
                     : "a type's size must include the 8-byte header";
    if ((type->flags & CORRAL_TYPE_REF_ARRAY) && (!array || type->element_size != sizeof(void *)))
        return "a reference array needs CORRAL_TYPE_ARRAY and 8-byte elements";
    if (array && type->element_size == 0)
        return "an array type needs a non-zero element size";
    if ((type->flags & CORRAL_TYPE_FINALIZABLE) && !type->finalize)
        return "a finalizable type needs a finalize function";
    if (type->ref_count && !type->ref_offsets)
        return "ref_count is non-zero but ref_offsets is NULL";
    for (uint32_t i = 0; i < type->ref_count; i++) {
        uint32_t offset = type->ref_offsets[i];
        if (offset % sizeof(void *))
            return "a reference field offset is not 8-byte aligned";
        if (offset < sizeof(corral_header) || offset + sizeof(void *) > type->size)
            return "a reference field offset lies outside the object's fixed part";
    }
    return NULL;
}
