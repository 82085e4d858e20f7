/* tagged.h — the process's tag scheme (corral/tagged.h) as the collector
 * reads it: which words of a tagged slot or a stack root are references.
 *
 * Set once by corral_init, before any thread allocates, and only read
 * afterwards. Without a declared scheme every word is a reference (tag 0),
 * which is how stack roots were always read.
 */
#ifndef CORRAL_TAGGED_INTERNAL_H
#define CORRAL_TAGGED_INTERNAL_H

#include <corral.h>
#include <stdbool.h>
#include <stdint.h>

/* Writer: corral_init (tagged_scheme_set), before corral_threads_ready.
 * Readers: GC workers and the verifier, with the world stopped (plain loads;
 * thread start-up orders them after the write). */
extern corral_tag_scheme tagged_scheme;
/* Writer and readers as tagged_scheme: whether the embedder declared one. */
extern bool tagged_scheme_declared;

/* What tagged_classify returns for a word the collector leaves alone (an
 * immediate, a null reference) and for one that is neither an immediate
 * nor a reference under the scheme. Both above any tag (at most 7). */
#define TAGGED_SKIP ((uintptr_t)0x100)
#define TAGGED_INVALID ((uintptr_t)0x200)

/* Checks scheme (NULL: none) and makes it the process's; on a bad one,
 * corral_set_error naming what is wrong and CORRAL_ERROR_CONFIG. */
int tagged_scheme_set(const corral_tag_scheme *scheme);

/* The tag of word when it is a non-null reference (its object is at
 * word - tag), else TAGGED_SKIP or TAGGED_INVALID. */
static inline uintptr_t tagged_classify(uintptr_t word)
{
    uintptr_t tag = word & tagged_scheme.mask;
    if ((tagged_scheme.ref_tags >> tag) & 1)
        return word != tag ? tag : TAGGED_SKIP;
    if ((tagged_scheme.immediate_tags >> tag) & 1)
        return TAGGED_SKIP;
    return TAGGED_INVALID;
}

/* The object a stack root's word refers to, NULL for anything else. */
static inline void *tagged_root_object(void *word)
{
    uintptr_t tag = tagged_classify((uintptr_t)word);
    return tag < TAGGED_SKIP ? (void *)((uintptr_t)word - tag) : NULL;
}

#endif /* CORRAL_TAGGED_INTERNAL_H */
