/* value.h — the tiny language's values and how they sit in the corral heap.
 *
 * A value is a tagged word (corral/tagged.h) under OCaml's scheme: an
 * integer is the immediate n<<1|1, and nil (word 0), a pair or a string is
 * a plain reference. That scheme rather than V8's because references keep
 * tag 0: nil stays NULL, every allocation's result is already a valid value
 * (compiled code need not tag it before the next safepoint), and only
 * integers pay for tagging, with a shift. Integers are 63-bit and wrap.
 * Interpreter and JIT share these layouts; the JIT reads the offsets below.
 * Plain C (the interpreter) holds a value across a call that may GC only in
 * a value handle (corral_handle_new_value); the constructors here may GC,
 * so they take their inputs as value handles or as plain C data.
 */
#ifndef TINY_VALUE_H
#define TINY_VALUE_H

#include <corral.h>
#include <stddef.h>
#include <stdint.h>

/* The process's tag scheme, given to corral_init (main.c). */
#define TINY_TAG_SCHEME ((corral_tag_scheme)CORRAL_TAG_SCHEME_OCAML)
extern const corral_tag_scheme tiny_tag_scheme;

/* An integer value; no allocation. */
static inline corral_value tiny_int(int64_t n)
{
    return corral_tag_int(TINY_TAG_SCHEME, n);
}

typedef struct tiny_pair {
    corral_header header;
    corral_value head, tail; /* tagged fields: integers or references */
} tiny_pair;

/* A byte string: a corral data array whose length word is the byte count. */
typedef struct tiny_string {
    corral_array_header header;
    char bytes[];
} tiny_string;

extern const corral_type tiny_pair_type, tiny_string_type;

/* Layout facts the JIT emits as constants. */
enum {
    TINY_PAIR_HEAD_OFFSET = offsetof(tiny_pair, head),
    TINY_PAIR_TAIL_OFFSET = offsetof(tiny_pair, tail),
    TINY_STRING_LENGTH_OFFSET = offsetof(corral_array_header, length),
    TINY_STRING_BYTES_OFFSET = offsetof(tiny_string, bytes),
};

/* Constructors: thread MANAGED; may GC; the result is a raw reference. */
corral_value tiny_pair_new(corral_value_handle head, corral_value_handle tail);
corral_value tiny_string_new(const char *bytes, size_t length);
corral_value tiny_substring(corral_value_handle string, int64_t start, int64_t end);

/* Checked accessors: a value of the wrong kind is a fatal type error
 * naming the operation. */
int64_t tiny_int_value(corral_value value, const char *operation);
tiny_pair *tiny_as_pair(corral_value value, const char *operation);
tiny_string *tiny_as_string(corral_value value, const char *operation);

/* Three-way byte comparison of two strings: -1, 0 or 1. Never GCs, so the
 * JIT calls it directly with references (a CORRAL_LEAF function). */
int64_t tiny_string_compare(const tiny_string *a, const tiny_string *b);

/* Prints a message and exits: the programs are trusted examples. */
_Noreturn void tiny_fatal(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif /* TINY_VALUE_H */
