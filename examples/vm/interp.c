/* interp.c — the tiny interpreter (see interp.h for the rooting rules). */
#include "interp.h"

#include <corral.h>

#include "io.h"
#include "value.h"

static corral_value eval(const tiny_program *program, const tiny_node *node,
                         corral_value_handle *locals);

static corral_value truth(int condition)
{
    return condition ? tiny_int(1) : NULL;
}

static int64_t integer_arg(corral_value_handle arg, tiny_builtin op)
{
    return tiny_int_value(*arg, tiny_builtins[op].name);
}

/* Every case reads its arguments' handles after any allocation it makes. */
static corral_value apply_builtin(tiny_builtin op, corral_value_handle *args)
{
    const char *name = tiny_builtins[op].name;
    switch (op) {
    case TINY_ADD:
        return tiny_int(integer_arg(args[0], op) + integer_arg(args[1], op));
    case TINY_SUBTRACT:
        return tiny_int(integer_arg(args[0], op) - integer_arg(args[1], op));
    case TINY_MULTIPLY:
        return tiny_int(integer_arg(args[0], op) * integer_arg(args[1], op));
    case TINY_LESS:
        return truth(integer_arg(args[0], op) < integer_arg(args[1], op));
    case TINY_EQUAL:
        return truth(integer_arg(args[0], op) == integer_arg(args[1], op));
    case TINY_PAIR:
        return tiny_pair_new(args[0], args[1]);
    case TINY_HEAD:
        return tiny_as_pair(*args[0], name)->head;
    case TINY_TAIL:
        return tiny_as_pair(*args[0], name)->tail;
    case TINY_IS_NIL:
        return truth(*args[0] == NULL);
    case TINY_LENGTH:
        return tiny_int((int64_t)tiny_as_string(*args[0], name)->header.length);
    case TINY_BYTE: {
        tiny_string *string = tiny_as_string(*args[0], name);
        int64_t index = integer_arg(args[1], op);
        if (index < 0 || (uint64_t)index >= string->header.length)
            tiny_fatal("byte: index %lld is outside a string of %llu bytes", (long long)index,
                       (unsigned long long)string->header.length);
        return tiny_int((unsigned char)string->bytes[index]);
    }
    case TINY_SUBSTRING:
        return tiny_substring(args[0], integer_arg(args[1], op), integer_arg(args[2], op));
    case TINY_COMPARE:
        return tiny_int(
            tiny_string_compare(tiny_as_string(*args[0], name), tiny_as_string(*args[1], name)));
    case TINY_LINE: {
        size_t length;
        const char *text = tiny_input_line(integer_arg(args[0], op), &length);
        return text ? tiny_string_new(text, length) : NULL;
    }
    case TINY_PRINT: {
        int64_t value = integer_arg(args[0], op);
        /* stdout's lock may block: hold no raw reference and let GCs run. */
        corral_enter_unmanaged();
        tiny_print_integer(value);
        corral_leave_unmanaged();
        return *args[0];
    }
    case TINY_BUILTIN_COUNT:
        break;
    }
    tiny_fatal("unknown builtin %d", (int)op);
}

static corral_value call_function(const tiny_program *program, const tiny_function *function,
                                  corral_value_handle *args)
{
    /* The dispatch point: a collection requested by another thread runs here. */
    corral_poll();
    corral_handle_scope scope = corral_handle_scope_open();
    corral_value_handle locals[TINY_MAX_LOCALS];
    for (int i = 0; i < function->local_count; i++)
        locals[i] = i < function->param_count ? args[i] : corral_handle_new_value(NULL);
    corral_value result = eval(program, function->body, locals);
    corral_handle_scope_close(scope);
    return result; /* raw: the caller uses or roots it before allocating */
}

static corral_value eval(const tiny_program *program, const tiny_node *node,
                         corral_value_handle *locals)
{
    switch (node->kind) {
    case TINY_NODE_INTEGER:
        return tiny_int(node->value);
    case TINY_NODE_NIL:
        return NULL;
    case TINY_NODE_LOCAL:
        return *locals[node->value];
    case TINY_NODE_IF:
        return eval(program, node->args[eval(program, node->args[0], locals) ? 1 : 2], locals);
    case TINY_NODE_LET:
        *locals[node->value] = eval(program, node->args[0], locals);
        return eval(program, node->args[1], locals);
    case TINY_NODE_CALL:
    case TINY_NODE_BUILTIN:
        break;
    }
    /* Arguments are evaluated left to right into handles of a scope that
     * lives until the call returns. */
    corral_handle_scope scope = corral_handle_scope_open();
    corral_value_handle args[TINY_MAX_ARGS];
    for (int i = 0; i < node->arg_count; i++)
        args[i] = corral_handle_new_value(eval(program, node->args[i], locals));
    corral_value result = node->kind == TINY_NODE_CALL
                            ? call_function(program, &program->functions[node->value], args)
                            : apply_builtin((tiny_builtin)node->value, args);
    corral_handle_scope_close(scope);
    return result;
}

int64_t tiny_interpret(const tiny_program *program, const tiny_function *function,
                       const int64_t *args)
{
    corral_handle_scope scope = corral_handle_scope_open();
    corral_value_handle handles[TINY_MAX_ARGS];
    for (int i = 0; i < function->param_count; i++)
        handles[i] = corral_handle_new_value(tiny_int(args[i]));
    int64_t result = tiny_int_value(call_function(program, function, handles), function->name);
    corral_handle_scope_close(scope);
    return result;
}
