/* object.h — reading objects: size, reference slots, type sanity.
 *
 * Every object starts with a corral_header (a pointer to its corral_type),
 * except a headerless one, whose region records its type (typed_space.h);
 * arrays follow the header with a 64-bit length. Sizes are rounded up to the 8-byte
 * granule the heap and its bitmaps are measured in.
 */
#ifndef CORRAL_OBJECT_H
#define CORRAL_OBJECT_H

#include <corral.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tagged.h"

#define CORRAL_GRANULE 8u
#define CORRAL_GRANULE_SHIFT 3u

static inline size_t granule_round_up(size_t bytes)
{
    return (bytes + CORRAL_GRANULE - 1) & ~(size_t)(CORRAL_GRANULE - 1);
}

/* Heap regions are 2^CORRAL_REGION_SHIFT bytes (heap.h). */
#define CORRAL_REGION_SHIFT 18u

/* Where the type of a headerless object is kept: by region
 * (typed_space.h). Set up by heap_init; types[r] is written by the typed
 * allocator under the heap's allocation lock and by the collector with the
 * world stopped, and read by the collector (and the verifier) with the world
 * stopped, so plain accesses suffice. */
typedef struct region_type_table {
    uintptr_t base;           /* the heap's base */
    size_t count;             /* regions in the reservation */
    const corral_type **types; /* per region: its headerless type, or NULL */
} region_type_table;

extern region_type_table corral_region_types;

/* The headerless type of the region object lies in; NULL when it has
 * headers (or lies outside the heap: a large object). */
static inline const corral_type *region_headerless_type(const void *object)
{
    uintptr_t region = ((uintptr_t)object - corral_region_types.base) >> CORRAL_REGION_SHIFT;
    return region < corral_region_types.count ? corral_region_types.types[region] : NULL;
}

static inline const corral_type *object_type(const void *object)
{
    const corral_type *headerless = region_headerless_type(object);
    if (__builtin_expect(headerless != NULL, 0))
        return headerless;
    return ((const corral_header *)object)->type;
}

static inline uint64_t object_array_length(const void *object)
{
    return ((const corral_array_header *)object)->length;
}

/* Bytes the object occupies, granule-rounded. */
static inline size_t object_size_for(const corral_type *type, uint64_t length)
{
    size_t bytes = type->size;
    if (type->flags & CORRAL_TYPE_ARRAY)
        bytes += (size_t)length * type->element_size;
    return granule_round_up(bytes);
}

static inline size_t object_size(const void *object)
{
    const corral_type *type = object_type(object);
    return object_size_for(type, (type->flags & CORRAL_TYPE_ARRAY) ? object_array_length(object) : 0);
}

/* How the slot walk hands an object to its type's trace hook: by calling
 * hook(object, a visitor, its context), both the caller's choice. */
typedef void (*object_trace_call_fn)(void *object, corral_trace_fn hook, void *context);

/* A visitor of reference slots. tag is 0 for a plain reference slot; for a
 * tagged slot (tagged.h) the reference's tag (the object is at *slot - tag,
 * and a relocated reference keeps it), or TAGGED_INVALID for a word that is
 * neither an immediate nor a reference. Immediates and nulls of tagged slots
 * are never visited. */
typedef void (*object_slot_fn)(void **slot, uintptr_t tag, void *context);

/* The object a visited slot refers to; NULL for null and invalid words. */
static inline void *object_slot_target(void *const *slot, uintptr_t tag)
{
    return tag < TAGGED_SKIP ? (void *)((uintptr_t)*slot - tag) : NULL;
}

/* Points a visited slot at object, keeping its tag. */
static inline void object_slot_retarget(void **slot, void *object, uintptr_t tag)
{
    *slot = (void *)((uintptr_t)object + tag);
}

/* The walk over an object's reference slots, the one every part of the
 * collector uses (marker, compactor, verifier, remembered set): calls
 * visit(slot, tag, context) for every reference slot of object, null or
 * not, the fields at its type's ref_offsets and the elements of a reference
 * array (tag 0), and for the tagged fields and tagged array elements that
 * are not immediates or null (tagged.h). Elements are visited in
 * [first, end) only, so large arrays can be scanned in slices; the fields
 * only when first is 0. Pass 0, UINT64_MAX for all. A type with a trace hook
 * is handed to it instead: through call_trace(object, hook, context) when
 * given, else as hook(object, hook_visit, context).
 *
 * Always inlined, and visit and call_trace with it where the caller passes
 * static inline functions: the marker and the compactor then pay no call
 * per slot, and plain slots no tag arithmetic (their tag is the constant 0).
 * The hook is a call out of the collector; with a call_trace that gives it
 * a context of its own, the marker keeps visit's context (its prefetch
 * ring) in registers, which passing it to the hook would prevent. */
#define OBJECT_WALK_INLINE static inline __attribute__((always_inline))

OBJECT_WALK_INLINE void object_visit_tagged_slot(void **slot, object_slot_fn visit, void *context)
{
    uintptr_t tag = tagged_classify((uintptr_t)*slot);
    if (tag != TAGGED_SKIP)
        visit(slot, tag, context);
}

OBJECT_WALK_INLINE void object_walk_slots(void *object, uint64_t first, uint64_t end,
                                          object_slot_fn visit, corral_visit_fn hook_visit,
                                          void *context, object_trace_call_fn call_trace)
{
    const corral_type *type = object_type(object);
    if (type->trace) {
        if (call_trace)
            call_trace(object, type->trace, context);
        else
            type->trace(object, hook_visit, context);
        return;
    }
    char *base = object;
    if (first == 0) {
        for (uint32_t i = 0; i < type->ref_count; i++)
            visit((void **)(base + type->ref_offsets[i]), 0, context);
        if (__builtin_expect(type->tagged_count != 0, 0))
            for (uint32_t i = 0; i < type->tagged_count; i++)
                object_visit_tagged_slot((void **)(base + type->tagged_offsets[i]), visit,
                                         context);
    }
    uint32_t flags = type->flags;
    if ((flags & CORRAL_TYPE_ARRAY) &&
        (flags & (CORRAL_TYPE_REF_ARRAY | CORRAL_TYPE_TAGGED_ARRAY))) {
        uint64_t length = object_array_length(object);
        if (end > length)
            end = length;
        void **elements = (void **)(base + type->size);
        if (flags & CORRAL_TYPE_REF_ARRAY)
            for (uint64_t i = first; i < end; i++)
                visit(&elements[i], 0, context);
        else
            for (uint64_t i = first; i < end; i++)
                object_visit_tagged_slot(&elements[i], visit, context);
    }
}

/* The walk with the caller's visitors for slots and for a trace hook's. */
OBJECT_WALK_INLINE void object_visit_slots_range(void *object, uint64_t first, uint64_t end,
                                                 object_slot_fn visit, corral_visit_fn hook_visit,
                                                 void *context)
{
    object_walk_slots(object, first, end, visit, hook_visit, context, NULL);
}

OBJECT_WALK_INLINE void object_visit_slots(void *object, object_slot_fn visit,
                                           corral_visit_fn hook_visit, void *context)
{
    object_walk_slots(object, 0, UINT64_MAX, visit, hook_visit, context, NULL);
}

/* True for an array of references or tagged words: long enough, it is
 * scanned in slices. */
static inline bool object_is_slot_array(const corral_type *type)
{
    return (type->flags & CORRAL_TYPE_ARRAY) &&
           (type->flags & (CORRAL_TYPE_REF_ARRAY | CORRAL_TYPE_TAGGED_ARRAY)) && !type->trace;
}

/* Checks a type descriptor once, on the allocation slow path and in the
 * verifier; returns NULL when sound, else what is wrong. */
const char *corral_type_problem(const corral_type *type);

#endif /* CORRAL_OBJECT_H */
