/* corral/poll.h — the safepoint poll for C code (included by corral.h).
 *
 * Managed code gets its polls from the corral-opt pass; interpreters and other
 * C code that stays MANAGED for long call corral_poll() in their loops. The
 * fast path is one load from the polling page and a never-taken branch.
 */
#ifndef CORRAL_POLL_H
#define CORRAL_POLL_H

#include <stdint.h>

#include "corral/annotate.h"

#ifdef __cplusplus
extern "C" {
#endif
/* What this header declares is exported from libcorral (it is built with
 * hidden visibility). */
#pragma GCC visibility push(default)

/* The polling page: word 0 is non-zero while any thread is asked to stop.
 * Writer: the coordinator (arm/disarm, release). Readers: every poll (a
 * relaxed load; a stale 0 only delays the stop until the next poll). The page
 * holds nothing else, so it can be protected for the trap poll mode. */
extern volatile uint64_t corral_poll_page[];
#define CORRAL_POLL_WORD (corral_poll_page[0])

/* Parks the calling thread if a stop is requested. Called by polls; may GC. */
CORRAL_ANNOTATE("corral_safepoint") void corral_poll_slow(void);

/* Thread: MANAGED; may GC. A relaxed atomic load: the same single compare
 * as a plain load, and race-free for the C memory model and TSan. */
static inline __attribute__((always_inline)) void corral_poll(void)
{
    if (__builtin_expect(__atomic_load_n(&CORRAL_POLL_WORD, __ATOMIC_RELAXED) != 0, 0))
        corral_poll_slow();
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* CORRAL_POLL_H */
