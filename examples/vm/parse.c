/* parse.c — tiny source text to a tiny_program: an S-expression reader,
 * then a translation that resolves every name. Errors name the line. */
#include "program.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const tiny_builtin_info tiny_builtins[TINY_BUILTIN_COUNT] = {
    [TINY_ADD] = {"+", 2},          [TINY_SUBTRACT] = {"-", 2},
    [TINY_MULTIPLY] = {"*", 2},     [TINY_LESS] = {"<", 2},
    [TINY_EQUAL] = {"=", 2},        [TINY_PAIR] = {"pair", 2},
    [TINY_HEAD] = {"head", 1},      [TINY_TAIL] = {"tail", 1},
    [TINY_IS_NIL] = {"nil?", 1},    [TINY_LENGTH] = {"length", 1},
    [TINY_BYTE] = {"byte", 2},      [TINY_SUBSTRING] = {"substring", 3},
    [TINY_COMPARE] = {"compare", 2}, [TINY_LINE] = {"line", 1},
    [TINY_PRINT] = {"print", 1},
};

/* ---- reading S-expressions */

typedef struct sexpr {
    int line;
    char *atom; /* NULL for a list */
    int count;
    struct sexpr **items;
} sexpr;

typedef struct parser {
    const char *cursor;
    int line;
    char *error;
    size_t error_size;
    int failed;
} parser;

static __attribute__((format(printf, 3, 4))) void parse_error(parser *p, int line,
                                                              const char *format, ...)
{
    if (p->failed++)
        return; /* the first error is the one worth reading */
    int used = snprintf(p->error, p->error_size, "line %d: ", line);
    va_list args;
    va_start(args, format);
    if (used >= 0 && (size_t)used < p->error_size)
        vsnprintf(p->error + used, p->error_size - (size_t)used, format, args);
    va_end(args);
}

static void *checked_calloc(size_t count, size_t size)
{
    void *memory = calloc(count ? count : 1, size);
    if (!memory) {
        fputs("tiny: out of memory while parsing\n", stderr);
        exit(2);
    }
    return memory;
}

static void skip_blanks(parser *p)
{
    for (;;) {
        if (*p->cursor == '\n')
            p->line++;
        if (isspace((unsigned char)*p->cursor))
            p->cursor++;
        else if (*p->cursor == ';')
            while (*p->cursor && *p->cursor != '\n')
                p->cursor++;
        else
            return;
    }
}

static void sexpr_free(sexpr *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->count; i++)
        sexpr_free(e->items[i]);
    free(e->items);
    free(e->atom);
    free(e);
}

/* Reads one expression; NULL at the end of the text or after an error. */
static sexpr *read_sexpr(parser *p)
{
    skip_blanks(p);
    if (!*p->cursor || p->failed)
        return NULL;
    sexpr *e = checked_calloc(1, sizeof *e);
    e->line = p->line;
    if (*p->cursor == ')') {
        parse_error(p, p->line, "unexpected ')'");
        free(e);
        return NULL;
    }
    if (*p->cursor != '(') {
        const char *start = p->cursor;
        while (*p->cursor && !isspace((unsigned char)*p->cursor) && !strchr("();", *p->cursor))
            p->cursor++;
        e->atom = strndup(start, (size_t)(p->cursor - start));
        return e;
    }
    p->cursor++;
    int capacity = 0;
    for (;;) {
        skip_blanks(p);
        if (*p->cursor == ')') {
            p->cursor++;
            return e;
        }
        if (!*p->cursor) {
            parse_error(p, e->line, "'(' is never closed");
            sexpr_free(e);
            return NULL;
        }
        sexpr *item = read_sexpr(p);
        if (!item) {
            sexpr_free(e);
            return NULL;
        }
        if (e->count == capacity) {
            capacity = capacity ? 2 * capacity : 4;
            e->items = realloc(e->items, (size_t)capacity * sizeof *e->items);
        }
        e->items[e->count++] = item;
    }
}

/* ---- resolving names */

typedef struct scope {
    const char *names[TINY_MAX_LOCALS]; /* index = slot; later names shadow earlier */
    int count, most;
} scope;

typedef struct translator {
    parser *parser;
    tiny_program *program;
} translator;

static int is_atom(const sexpr *e, const char *text)
{
    return e->atom && strcmp(e->atom, text) == 0;
}

static tiny_node *new_node(tiny_node_kind kind, int64_t value, int arg_count)
{
    tiny_node *node = checked_calloc(1, sizeof *node);
    node->kind = kind;
    node->value = value;
    node->arg_count = arg_count;
    node->args = checked_calloc((size_t)arg_count, sizeof *node->args);
    return node;
}

static void node_free(tiny_node *node)
{
    if (!node)
        return;
    for (int i = 0; i < node->arg_count; i++)
        node_free(node->args[i]);
    free(node->args);
    free(node);
}

static int find_function(const tiny_program *program, const char *name)
{
    for (int i = 0; i < program->function_count; i++)
        if (strcmp(program->functions[i].name, name) == 0)
            return i;
    return -1;
}

static int find_builtin(const char *name)
{
    for (int i = 0; i < TINY_BUILTIN_COUNT; i++)
        if (strcmp(tiny_builtins[i].name, name) == 0)
            return i;
    return -1;
}

static tiny_node *translate(translator *t, const sexpr *e, scope *s);

static tiny_node *translate_atom(translator *t, const sexpr *e, const scope *s)
{
    const char *text = e->atom;
    if (isdigit((unsigned char)text[0]) || (text[0] == '-' && isdigit((unsigned char)text[1]))) {
        char *end;
        errno = 0;
        long long number = strtoll(text, &end, 10);
        if (*end || errno) {
            parse_error(t->parser, e->line, "'%s' is not an integer", text);
            return NULL;
        }
        return new_node(TINY_NODE_INTEGER, number, 0);
    }
    if (strcmp(text, "nil") == 0)
        return new_node(TINY_NODE_NIL, 0, 0);
    for (int slot = s->count - 1; slot >= 0; slot--)
        if (strcmp(s->names[slot], text) == 0)
            return new_node(TINY_NODE_LOCAL, slot, 0);
    parse_error(t->parser, e->line, "unknown variable '%s'", text);
    return NULL;
}

/* Translates items[first..] of e into node->args[0..]. */
static tiny_node *with_args(translator *t, tiny_node *node, const sexpr *e, int first, scope *s)
{
    for (int i = 0; i < node->arg_count; i++)
        if (!(node->args[i] = translate(t, e->items[first + i], s))) {
            node_free(node);
            return NULL;
        }
    return node;
}

static tiny_node *translate_let(translator *t, const sexpr *e, scope *s)
{
    if (e->count != 4 || !e->items[1]->atom) {
        parse_error(t->parser, e->line, "let takes a name, a value and a body: (let x 1 x)");
        return NULL;
    }
    if (s->count == TINY_MAX_LOCALS) {
        parse_error(t->parser, e->line, "more than %d locals in one function", TINY_MAX_LOCALS);
        return NULL;
    }
    tiny_node *node = new_node(TINY_NODE_LET, s->count, 2);
    if (!(node->args[0] = translate(t, e->items[2], s))) {
        node_free(node);
        return NULL;
    }
    s->names[s->count++] = e->items[1]->atom;
    if (s->count > s->most)
        s->most = s->count;
    node->args[1] = translate(t, e->items[3], s);
    s->count--;
    if (!node->args[1]) {
        node_free(node);
        return NULL;
    }
    return node;
}

static tiny_node *translate(translator *t, const sexpr *e, scope *s)
{
    if (e->atom)
        return translate_atom(t, e, s);
    if (e->count == 0 || !e->items[0]->atom) {
        parse_error(t->parser, e->line, "expected (operator arguments...)");
        return NULL;
    }
    const char *head = e->items[0]->atom;
    int arg_count = e->count - 1;
    if (strcmp(head, "if") == 0) {
        if (arg_count != 3) {
            parse_error(t->parser, e->line, "if takes a test, a then and an else");
            return NULL;
        }
        return with_args(t, new_node(TINY_NODE_IF, 0, 3), e, 1, s);
    }
    if (strcmp(head, "let") == 0)
        return translate_let(t, e, s);
    int builtin = find_builtin(head);
    int function = builtin < 0 ? find_function(t->program, head) : -1;
    if (builtin < 0 && function < 0) {
        parse_error(t->parser, e->line, "unknown function '%s'", head);
        return NULL;
    }
    int arity = builtin >= 0 ? tiny_builtins[builtin].arity
                             : t->program->functions[function].param_count;
    if (arg_count != arity) {
        parse_error(t->parser, e->line, "'%s' takes %d arguments, not %d", head, arity, arg_count);
        return NULL;
    }
    tiny_node *node = builtin >= 0 ? new_node(TINY_NODE_BUILTIN, builtin, arg_count)
                                   : new_node(TINY_NODE_CALL, function, arg_count);
    return with_args(t, node, e, 1, s);
}

/* (def (name params...) body): checks the shape, records name and arity. */
static int declare_function(translator *t, const sexpr *e, tiny_function *function)
{
    if (e->atom || e->count != 3 || !is_atom(e->items[0], "def") || e->items[1]->atom ||
        e->items[1]->count == 0) {
        parse_error(t->parser, e->line, "expected (def (name parameters...) body)");
        return -1;
    }
    const sexpr *signature = e->items[1];
    for (int i = 0; i < signature->count; i++)
        if (!signature->items[i]->atom) {
            parse_error(t->parser, e->line, "parameter names must be plain names");
            return -1;
        }
    if (signature->count - 1 > TINY_MAX_ARGS) {
        parse_error(t->parser, e->line, "more than %d parameters", TINY_MAX_ARGS);
        return -1;
    }
    if (find_function(t->program, signature->items[0]->atom) >= 0 ||
        find_builtin(signature->items[0]->atom) >= 0) {
        parse_error(t->parser, e->line, "'%s' is already defined", signature->items[0]->atom);
        return -1;
    }
    function->name = strdup(signature->items[0]->atom);
    function->param_count = signature->count - 1;
    return 0;
}

static int define_function(translator *t, const sexpr *e, tiny_function *function)
{
    const sexpr *signature = e->items[1];
    scope s = {.count = function->param_count, .most = function->param_count};
    for (int i = 0; i < function->param_count; i++)
        s.names[i] = signature->items[i + 1]->atom;
    function->body = translate(t, e->items[2], &s);
    function->local_count = s.most;
    return function->body ? 0 : -1;
}

int tiny_program_parse(const char *source, tiny_program *program, char *error,
                       size_t error_size)
{
    parser p = {.cursor = source, .line = 1, .error = error, .error_size = error_size};
    translator t = {&p, program};
    *program = (tiny_program){0};
    sexpr **forms = NULL;
    int count = 0;
    for (sexpr *form; (form = read_sexpr(&p));) {
        forms = realloc(forms, (size_t)(count + 1) * sizeof *forms);
        forms[count++] = form;
    }
    /* Declare every function first, so bodies may call any of them. */
    program->functions = checked_calloc((size_t)count, sizeof *program->functions);
    for (int i = 0; i < count && !p.failed; i++)
        if (declare_function(&t, forms[i], &program->functions[i]) == 0)
            program->function_count++;
    for (int i = 0; i < program->function_count && !p.failed; i++)
        define_function(&t, forms[i], &program->functions[i]);
    for (int i = 0; i < count; i++)
        sexpr_free(forms[i]);
    free(forms);
    if (p.failed) {
        tiny_program_free(program);
        return -1;
    }
    return 0;
}

const tiny_function *tiny_program_find(const tiny_program *program, const char *name)
{
    int index = find_function(program, name);
    return index < 0 ? NULL : &program->functions[index];
}

void tiny_program_free(tiny_program *program)
{
    for (int i = 0; i < program->function_count; i++) {
        free(program->functions[i].name);
        node_free(program->functions[i].body);
    }
    free(program->functions);
    *program = (tiny_program){0};
}
