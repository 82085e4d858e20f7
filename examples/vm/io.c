/* io.c — the input text and printing. */
#include "io.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Written once by the host before threads start; read by every thread. */
static const char *const *input_lines;
static size_t input_count;

void tiny_input_set(const char *const *lines, size_t count)
{
    input_lines = lines;
    input_count = count;
}

const char *tiny_input_line(int64_t k, size_t *length)
{
    if (k < 0 || (uint64_t)k >= input_count)
        return NULL;
    *length = strlen(input_lines[k]);
    return input_lines[k];
}

int64_t tiny_input_line_length(int64_t k)
{
    size_t length;
    return tiny_input_line(k, &length) ? (int64_t)length : -1;
}

void tiny_input_copy_line(int64_t k, tiny_string *destination)
{
    size_t length;
    const char *line = tiny_input_line(k, &length);
    memcpy(destination->bytes, line, length);
}

int64_t tiny_print_integer(int64_t value)
{
    printf("tiny: %" PRId64 "\n", value);
    fflush(stdout);
    return value;
}
