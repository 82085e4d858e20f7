/* interp.h — the tiny interpreter: plain C walking the program's nodes.
 *
 * How it stays precise under a moving collector: every value it must keep
 * while something else is evaluated sits in a value handle (one handle
 * scope per call; the collector reads it under the tag scheme, so integers
 * stay immediates and never allocate), a raw reference is only used before
 * the next allocation, and
 * corral_poll() runs at every call so a thread that never allocates still
 * lets a collection in. Printing, which can block, runs UNMANAGED.
 */
#ifndef TINY_INTERP_H
#define TINY_INTERP_H

#include <stdint.h>

#include "program.h"

/* Runs function on integer arguments and returns its integer result.
 * Thread: attached and MANAGED; may GC. */
int64_t tiny_interpret(const tiny_program *program, const tiny_function *function,
                       const int64_t *args);

#endif /* TINY_INTERP_H */
