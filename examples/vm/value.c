/* value.c — the tiny language's object types and constructors. */
#include "value.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t pair_refs[] = {offsetof(tiny_pair, head), offsetof(tiny_pair, tail)};

const corral_type tiny_int_type = CORRAL_LEAF_TYPE("int", tiny_int);
const corral_type tiny_pair_type = CORRAL_STRUCT_TYPE("pair", tiny_pair, pair_refs);
const corral_type tiny_string_type = CORRAL_DATA_ARRAY_TYPE("string", char);

_Noreturn void tiny_fatal(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("tiny: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(2);
}

corral_ref tiny_int_new(int64_t value)
{
    tiny_int *box = corral_alloc(&tiny_int_type);
    box->value = value;
    return box;
}

corral_ref tiny_pair_new(corral_handle head, corral_handle tail)
{
    tiny_pair *pair = corral_alloc(&tiny_pair_type);
    /* Read the handles after the allocation: it may have moved their targets.
     * Reference stores into the heap go through the write barrier. */
    corral_store_ref(pair, &pair->head, *head);
    corral_store_ref(pair, &pair->tail, *tail);
    return pair;
}

corral_ref tiny_string_new(const char *bytes, size_t length)
{
    tiny_string *string = corral_alloc_array(&tiny_string_type, length);
    memcpy(string->bytes, bytes, length);
    return string;
}

corral_ref tiny_substring(corral_handle string, int64_t start, int64_t end)
{
    int64_t length = (int64_t)tiny_as_string(*string, "substring")->header.length;
    if (start < 0 || start > end || end > length)
        tiny_fatal("substring: range [%lld, %lld) is outside a string of %lld bytes",
                   (long long)start, (long long)end, (long long)length);
    tiny_string *result = corral_alloc_array(&tiny_string_type, (uint64_t)(end - start));
    memcpy(result->bytes, ((tiny_string *)*string)->bytes + start, (size_t)(end - start));
    return result;
}

static const char *kind_name(corral_ref value)
{
    return value ? ((corral_header *)value)->type->name : "nil";
}

int64_t tiny_int_value(corral_ref value, const char *operation)
{
    if (!value || ((corral_header *)value)->type != &tiny_int_type)
        tiny_fatal("%s expects an integer, got %s", operation, kind_name(value));
    return ((tiny_int *)value)->value;
}

tiny_pair *tiny_as_pair(corral_ref value, const char *operation)
{
    if (!value || ((corral_header *)value)->type != &tiny_pair_type)
        tiny_fatal("%s expects a pair, got %s", operation, kind_name(value));
    return value;
}

tiny_string *tiny_as_string(corral_ref value, const char *operation)
{
    if (!value || ((corral_header *)value)->type != &tiny_string_type)
        tiny_fatal("%s expects a string, got %s", operation, kind_name(value));
    return value;
}

int64_t tiny_string_compare(const tiny_string *a, const tiny_string *b)
{
    size_t a_length = a->header.length, b_length = b->header.length;
    int order = memcmp(a->bytes, b->bytes, a_length < b_length ? a_length : b_length);
    if (order == 0)
        return a_length < b_length ? -1 : a_length > b_length;
    return order < 0 ? -1 : 1;
}
