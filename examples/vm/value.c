/* value.c — the tiny language's object types and constructors. */
#include "value.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t pair_values[] = {offsetof(tiny_pair, head), offsetof(tiny_pair, tail)};

const corral_tag_scheme tiny_tag_scheme = CORRAL_TAG_SCHEME_OCAML;
const corral_type tiny_pair_type =
    CORRAL_TAGGED_STRUCT_TYPE("pair", tiny_pair, 0, NULL, 2, pair_values);
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

corral_value tiny_pair_new(corral_value_handle head, corral_value_handle tail)
{
    tiny_pair *pair = corral_alloc(&tiny_pair_type);
    /* Read the handles after the allocation: it may have moved their targets.
     * Reference stores into the heap go through the write barrier. */
    corral_store_ref(pair, &pair->head, *head);
    corral_store_ref(pair, &pair->tail, *tail);
    return pair;
}

corral_value tiny_string_new(const char *bytes, size_t length)
{
    tiny_string *string = corral_alloc_array(&tiny_string_type, length);
    memcpy(string->bytes, bytes, length);
    return string;
}

corral_value tiny_substring(corral_value_handle string, int64_t start, int64_t end)
{
    int64_t length = (int64_t)tiny_as_string(*string, "substring")->header.length;
    if (start < 0 || start > end || end > length)
        tiny_fatal("substring: range [%lld, %lld) is outside a string of %lld bytes",
                   (long long)start, (long long)end, (long long)length);
    tiny_string *result = corral_alloc_array(&tiny_string_type, (uint64_t)(end - start));
    memcpy(result->bytes, ((tiny_string *)*string)->bytes + start, (size_t)(end - start));
    return result;
}

static const char *kind_name(corral_value value)
{
    if (corral_is_immediate(TINY_TAG_SCHEME, value))
        return "an integer";
    return value ? ((corral_header *)value)->type->name : "nil";
}

int64_t tiny_int_value(corral_value value, const char *operation)
{
    if (!corral_is_immediate(TINY_TAG_SCHEME, value))
        tiny_fatal("%s expects an integer, got %s", operation, kind_name(value));
    return corral_untag_int(TINY_TAG_SCHEME, value);
}

/* The object of a reference value of type; a fatal type error otherwise. */
static void *as_object(corral_value value, const corral_type *type, const char *operation)
{
    if (!value || corral_is_immediate(TINY_TAG_SCHEME, value) ||
        ((corral_header *)value)->type != type)
        tiny_fatal("%s expects a %s, got %s", operation, type->name, kind_name(value));
    return value;
}

tiny_pair *tiny_as_pair(corral_value value, const char *operation)
{
    return as_object(value, &tiny_pair_type, operation);
}

tiny_string *tiny_as_string(corral_value value, const char *operation)
{
    return as_object(value, &tiny_string_type, operation);
}

int64_t tiny_string_compare(const tiny_string *a, const tiny_string *b)
{
    size_t a_length = a->header.length, b_length = b->header.length;
    int order = memcmp(a->bytes, b->bytes, a_length < b_length ? a_length : b_length);
    if (order == 0)
        return a_length < b_length ? -1 : a_length > b_length;
    return order < 0 ? -1 : 1;
}
