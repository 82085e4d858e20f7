/* corral/annotate.h — CORRAL_ANNOTATE(marker), how corral.h and
 * corral/poll.h mark functions for the pass.
 *
 * clang's annotate attribute carries the markers to the pass; other
 * compilers (gcc, for plain C that includes these headers) would ignore it
 * with a warning, so they get nothing. */
#ifndef CORRAL_ANNOTATE_H
#define CORRAL_ANNOTATE_H

#ifndef CORRAL_ANNOTATE
#if defined(__has_attribute)
#if __has_attribute(annotate)
#define CORRAL_ANNOTATE(marker) __attribute__((annotate(marker)))
#endif
#endif
#endif
#ifndef CORRAL_ANNOTATE
#define CORRAL_ANNOTATE(marker)
#endif

#endif /* CORRAL_ANNOTATE_H */
