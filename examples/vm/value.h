/* value.h — the tiny language's values and how they sit in the corral heap.
 *
 * A value is a reference: nil (NULL), a boxed integer, a pair or a string.
 * Interpreter and JIT share these layouts; the JIT reads the offsets below.
 * Plain C (the interpreter) holds a value across a call that may GC only in
 * a handle; the constructors here may GC, so they take their inputs as
 * handles or as plain C data.
 */
#ifndef TINY_VALUE_H
#define TINY_VALUE_H

#include <corral.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tiny_int {
    corral_header header;
    int64_t value;
} tiny_int;

typedef struct tiny_pair {
    corral_header header;
    corral_ref head, tail;
} tiny_pair;

/* A byte string: a corral data array whose length word is the byte count. */
typedef struct tiny_string {
    corral_array_header header;
    char bytes[];
} tiny_string;

extern const corral_type tiny_int_type, tiny_pair_type, tiny_string_type;

/* Layout facts the JIT emits as constants. */
enum {
    TINY_INT_VALUE_OFFSET = offsetof(tiny_int, value),
    TINY_PAIR_HEAD_OFFSET = offsetof(tiny_pair, head),
    TINY_PAIR_TAIL_OFFSET = offsetof(tiny_pair, tail),
    TINY_STRING_LENGTH_OFFSET = offsetof(corral_array_header, length),
    TINY_STRING_BYTES_OFFSET = offsetof(tiny_string, bytes),
};

/* Constructors: thread MANAGED; may GC; the result is a raw reference. */
corral_ref tiny_int_new(int64_t value);
corral_ref tiny_pair_new(corral_handle head, corral_handle tail);
corral_ref tiny_string_new(const char *bytes, size_t length);
corral_ref tiny_substring(corral_handle string, int64_t start, int64_t end);

/* Checked accessors: a value of the wrong kind is a fatal type error
 * naming the operation. */
int64_t tiny_int_value(corral_ref value, const char *operation);
tiny_pair *tiny_as_pair(corral_ref value, const char *operation);
tiny_string *tiny_as_string(corral_ref value, const char *operation);

/* Three-way byte comparison of two strings: -1, 0 or 1. Never GCs, so the
 * JIT calls it directly with references (a CORRAL_LEAF function). */
int64_t tiny_string_compare(const tiny_string *a, const tiny_string *b);

/* Prints a message and exits: the programs are trusted examples. */
_Noreturn void tiny_fatal(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif /* TINY_VALUE_H */
