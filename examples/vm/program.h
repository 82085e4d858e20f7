/* program.h — a parsed tiny program: functions whose bodies are trees of
 * nodes with every name resolved (locals to slots, calls to function
 * indexes, operators to builtins). Both the interpreter and the JIT run it.
 *
 * The language, in full:
 *   program    := (def (NAME PARAM...) EXPR)...
 *   EXPR       := INTEGER | nil | NAME
 *               | (if EXPR EXPR EXPR)     nil is false, everything else true
 *               | (let NAME EXPR EXPR)    binds NAME in the second EXPR
 *               | (BUILTIN EXPR...) | (NAME EXPR...)
 *   ; starts a comment that runs to the end of the line.
 */
#ifndef TINY_PROGRAM_H
#define TINY_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

typedef enum tiny_builtin {
    TINY_ADD,       /* (+ a b) */
    TINY_SUBTRACT,  /* (- a b) */
    TINY_MULTIPLY,  /* (* a b) */
    TINY_LESS,      /* (< a b): 1 or nil */
    TINY_EQUAL,     /* (= a b): integers, 1 or nil */
    TINY_PAIR,      /* (pair head tail) */
    TINY_HEAD,      /* (head pair) */
    TINY_TAIL,      /* (tail pair) */
    TINY_IS_NIL,    /* (nil? x): 1 or nil */
    TINY_LENGTH,    /* (length string) */
    TINY_BYTE,      /* (byte string index): the byte as an integer */
    TINY_SUBSTRING, /* (substring string start end) */
    TINY_COMPARE,   /* (compare string string): -1, 0 or 1 */
    TINY_LINE,      /* (line k): line k of the input text, nil past the end */
    TINY_PRINT,     /* (print integer): prints it, returns it */
    TINY_BUILTIN_COUNT
} tiny_builtin;

typedef struct tiny_builtin_info {
    const char *name;
    int arity;
} tiny_builtin_info;

extern const tiny_builtin_info tiny_builtins[TINY_BUILTIN_COUNT];

typedef enum tiny_node_kind {
    TINY_NODE_INTEGER,
    TINY_NODE_NIL,
    TINY_NODE_LOCAL,
    TINY_NODE_IF,
    TINY_NODE_LET,
    TINY_NODE_CALL,
    TINY_NODE_BUILTIN,
} tiny_node_kind;

typedef struct tiny_node {
    tiny_node_kind kind;
    /* INTEGER: the number; LOCAL, LET: the slot; CALL: the function's index;
     * BUILTIN: the tiny_builtin. */
    int64_t value;
    int arg_count;
    /* IF: test, then, else; LET: value, body; CALL, BUILTIN: arguments. */
    struct tiny_node **args;
} tiny_node;

/* Calls take at most this many arguments; a function has at most this many
 * locals (parameters and lets), so frames can live in fixed arrays. */
enum { TINY_MAX_ARGS = 8, TINY_MAX_LOCALS = 32 };

typedef struct tiny_function {
    char *name;
    int param_count;
    int local_count; /* parameters first, then one slot per let */
    tiny_node *body;
} tiny_function;

typedef struct tiny_program {
    tiny_function *functions;
    int function_count;
} tiny_program;

/* Parses source. Returns 0, or -1 with a message naming the line in error. */
int tiny_program_parse(const char *source, tiny_program *program, char *error,
                       size_t error_size);
/* The function called name, or NULL. */
const tiny_function *tiny_program_find(const tiny_program *program, const char *name);
void tiny_program_free(tiny_program *program);

#endif /* TINY_PROGRAM_H */
