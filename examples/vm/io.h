/* io.h — what tiny programs read and write: the input text, shared by every
 * thread and read-only while programs run, and printed integers. */
#ifndef TINY_IO_H
#define TINY_IO_H

#include <stddef.h>
#include <stdint.h>

#include "value.h"

/* Sets the input text (lines without their newlines). The strings must stay
 * valid while programs run. Call before starting threads. */
void tiny_input_set(const char *const *lines, size_t count);
/* Line k, or NULL past the end. */
const char *tiny_input_line(int64_t k, size_t *length);

/* For compiled code, which allocates the string itself: the length of line k
 * or -1, then a copy into a string of that length. Neither blocks nor GCs,
 * so the JIT declares them gc-leaf and may pass the string reference. */
int64_t tiny_input_line_length(int64_t k);
void tiny_input_copy_line(int64_t k, tiny_string *destination);

/* Prints "tiny: <value>" on stdout. Takes the stdout lock, so it may block:
 * the interpreter calls it UNMANAGED, compiled code through a GC transition. */
int64_t tiny_print_integer(int64_t value);

#endif /* TINY_IO_H */
