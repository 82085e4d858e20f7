/* tagged.c — declaring the tag scheme (tagged.h). */
#include "tagged.h"

#include "fatal.h"

corral_tag_scheme tagged_scheme = {0, 1, 0};
bool tagged_scheme_declared;

/* Why scheme is not one, or NULL. */
static const char *scheme_problem(const corral_tag_scheme *scheme)
{
    if (scheme->mask != 1 && scheme->mask != 3 && scheme->mask != 7)
        return "mask must be 1, 3 or 7 (low bits of an 8-byte aligned address)";
    uint32_t tags = (UINT32_C(1) << (scheme->mask + 1)) - 1;
    if (!scheme->ref_tags)
        return "ref_tags is empty: no word could be a reference";
    if ((scheme->ref_tags | scheme->immediate_tags) & ~tags)
        return "ref_tags or immediate_tags name a tag above the mask";
    if (scheme->ref_tags & scheme->immediate_tags)
        return "ref_tags and immediate_tags share a tag";
    return NULL;
}

int tagged_scheme_set(const corral_tag_scheme *scheme)
{
    if (!scheme)
        return CORRAL_OK;
    const char *problem = scheme_problem(scheme);
    if (problem) {
        corral_set_error("corral_options.tag_scheme {mask %#x, ref_tags %#x, immediate_tags "
                         "%#x}: %s",
                         scheme->mask, scheme->ref_tags, scheme->immediate_tags, problem);
        return CORRAL_ERROR_CONFIG;
    }
    tagged_scheme = *scheme;
    tagged_scheme_declared = true;
    return CORRAL_OK;
}
