/* corral/tagged.h — tagged values: small immediates and references in one
 * word, told apart by low tag bits (included by corral.h).
 *
 * The embedder declares one scheme for the process in corral_options
 * (tag_scheme) and passes the same constant to these helpers, which fold to
 * a few instructions when it is a compile-time constant. A word w with tag
 * t = w & mask is
 *   a reference   when bit t of ref_tags is set: the object is at w - t, and
 *                 the tag is kept when the object moves; w - t == 0 is null;
 *   an immediate  when bit t of immediate_tags is set: never touched;
 *   invalid       otherwise: the heap verifier reports it.
 * Objects are 8-byte aligned, so the mask is 1, 3 or 7.
 *
 *   OCaml style  CORRAL_TAG_SCHEME_OCAML  refs tag 0, integers n<<1|1; word 0 is null
 *   V8 style     CORRAL_TAG_SCHEME_V8     refs tag 1 (ref+1), integers n<<1; word 1 is null
 *
 * Where the collector applies it: fields at a type's tagged_offsets, the
 * elements of a CORRAL_TYPE_TAGGED_ARRAY, and every address-space-1 value of
 * compiled code live across a safepoint (its stack slots carry no type, so
 * under a scheme whose tag 0 marks immediates, as V8's, an untagged
 * reference there reads as an immediate: tag it before the next safepoint).
 * Plain reference fields, handles and globals hold untagged references;
 * corral_handle_new_value and corral_global_value_root_add (corral.h) make
 * roots whose slots are read under the scheme.
 * Store tagged words into the heap like references (corral_store_ref in
 * plain C; managed C gets the barrier from the pass).
 */
#ifndef CORRAL_TAGGED_H
#define CORRAL_TAGGED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct corral_tag_scheme {
    uint32_t mask;           /* the low bits that hold the tag: 1, 3 or 7 */
    uint32_t ref_tags;       /* bit t set: a word with tag t is a reference */
    uint32_t immediate_tags; /* bit t set: a word with tag t is an immediate */
} corral_tag_scheme;

#define CORRAL_TAG_SCHEME_OCAML {1u, 1u << 0, 1u << 1}
#define CORRAL_TAG_SCHEME_V8 {1u, 1u << 1, 1u << 0}

/* A tagged word. In managed C it is an address-space-1 pointer, so the pass
 * keeps it in the stackmaps; in plain C it is a plain pointer-sized word. */
typedef void CORRAL_REF *corral_value;

/* Tag bits under scheme (1 for masks 1, 2 for 3, 3 for 7). */
static inline __attribute__((always_inline)) unsigned corral_tag_bits(corral_tag_scheme scheme)
{
    return (unsigned)__builtin_popcount(scheme.mask);
}

/* The word's bits as an integer, for an immediate's payload: valid across
 * a safepoint, unlike a reference's address bits. In managed code an empty
 * asm takes the word itself and gives the integer, so the pass sees no
 * integer made from a reference (its checks reject one live across a
 * safepoint; a cast before the asm would be one, and optimisation shares it
 * between two untags on either side of a call). It emits no instruction,
 * but the compiler learns nothing through it. */
static inline __attribute__((always_inline)) uintptr_t corral_value_bits(corral_value value)
{
#if defined(__CORRAL_MANAGED__)
    uintptr_t bits;
    __asm__("" : "=r"(bits) : "0"(value));
    return bits;
#else
    return (uintptr_t)value;
#endif
}

static inline __attribute__((always_inline)) unsigned corral_tag_of(corral_tag_scheme scheme,
                                                                    corral_value value)
{
    /* & 7 first: the pass knows low bits of a reference do not move. */
    return (unsigned)((uintptr_t)value & 7u & scheme.mask);
}

/* True for a reference (null included), false for an immediate. */
static inline __attribute__((always_inline)) int corral_is_ref(corral_tag_scheme scheme,
                                                               corral_value value)
{
    return (int)((scheme.ref_tags >> corral_tag_of(scheme, value)) & 1);
}

static inline __attribute__((always_inline)) int corral_is_immediate(corral_tag_scheme scheme,
                                                                     corral_value value)
{
    return (int)((scheme.immediate_tags >> corral_tag_of(scheme, value)) & 1);
}

/* The immediate (payload << tag bits) | tag; payload keeps its sign. */
static inline __attribute__((always_inline)) corral_value
corral_tag_immediate(corral_tag_scheme scheme, unsigned tag, intptr_t payload)
{
    return (corral_value)(((uintptr_t)payload << corral_tag_bits(scheme)) | tag);
}

/* A small integer under the scheme's lowest immediate tag. */
static inline __attribute__((always_inline)) corral_value corral_tag_int(corral_tag_scheme scheme,
                                                                         intptr_t n)
{
    return corral_tag_immediate(scheme, (unsigned)__builtin_ctz(scheme.immediate_tags), n);
}

/* An immediate's payload (arithmetic shift: the sign comes back). */
static inline __attribute__((always_inline)) intptr_t corral_untag_int(corral_tag_scheme scheme,
                                                                       corral_value value)
{
    return (intptr_t)corral_value_bits(value) >> corral_tag_bits(scheme);
}

/* A reference tagged with tag (one of the scheme's ref_tags). Computed as an
 * integer: in managed code the result is a base of its own, so the untagged
 * reference need not stay live beside it. */
static inline __attribute__((always_inline)) corral_value
corral_tag_ref_with(corral_tag_scheme scheme, unsigned tag, corral_ref reference)
{
    (void)scheme;
    return (corral_value)((uintptr_t)reference | tag);
}

/* A reference under the scheme's lowest reference tag; null stays null. */
static inline __attribute__((always_inline)) corral_value corral_tag_ref(corral_tag_scheme scheme,
                                                                         corral_ref reference)
{
    return corral_tag_ref_with(scheme, (unsigned)__builtin_ctz(scheme.ref_tags), reference);
}

/* The object a reference-tagged word points to. In managed code a pointer
 * offset from the tagged word, so a derived pointer of it, relocated with
 * it; in plain C integer arithmetic (a null result is no undefined pointer
 * arithmetic there). */
static inline __attribute__((always_inline)) corral_ref corral_untag_ref(corral_tag_scheme scheme,
                                                                         corral_value value)
{
#if defined(__CORRAL_MANAGED__)
    return (corral_ref)((char CORRAL_REF *)value - corral_tag_of(scheme, value));
#else
    return (corral_ref)((uintptr_t)value - corral_tag_of(scheme, value));
#endif
}

/* True for a null reference under the scheme (word 0 under OCaml's, 1 under V8's). */
static inline __attribute__((always_inline)) int corral_is_null(corral_tag_scheme scheme,
                                                                corral_value value)
{
    return corral_is_ref(scheme, value) && ((uintptr_t)value & ~(uintptr_t)scheme.mask) == 0;
}

#ifdef __cplusplus
}
#endif

#endif /* CORRAL_TAGGED_H */
