/* splitmix64.h — the small, fast, well-mixed generator the runtime draws
 * from (stress schedules, steal victims); tests/tap.h has the same one, so a
 * seed means the same sequence everywhere. Not for anything secret. */
#ifndef CORRAL_BASE_SPLITMIX64_H
#define CORRAL_BASE_SPLITMIX64_H

#include <stdint.h>

/* Advances *state and returns the next value. */
static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif /* CORRAL_BASE_SPLITMIX64_H */
