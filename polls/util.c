/* util.c — checked allocation and string helpers. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void print_message_line(const char *prefix, const char *format, va_list args)
{
    fputs(prefix, stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
}

void polls_fatal(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    print_message_line("corral: fatal: ", format, args);
    va_end(args);
    abort();
}

void *xmalloc(size_t size)
{
    void *block = malloc(size ? size : 1);
    if (!block)
        polls_fatal("out of memory allocating %zu bytes", size);
    return block;
}

void *xcalloc(size_t count, size_t size)
{
    void *block = calloc(count ? count : 1, size ? size : 1);
    if (!block)
        polls_fatal("out of memory allocating %zu x %zu bytes", count, size);
    return block;
}

void *xrealloc(void *block, size_t size)
{
    void *grown = realloc(block, size ? size : 1);
    if (!grown)
        polls_fatal("out of memory growing a block to %zu bytes", size);
    return grown;
}

char *xstrdup(const char *text)
{
    return xstrndup(text, strlen(text));
}

char *xstrndup(const char *text, size_t length)
{
    char *copy = xmalloc(length + 1);
    memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

char *xvasprintf(const char *format, va_list args)
{
    char *text;
    if (vasprintf(&text, format, args) < 0)
        polls_fatal("out of memory formatting '%s'", format);
    return text;
}

char *xasprintf(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *text = xvasprintf(format, args);
    va_end(args);
    return text;
}

void string_list_add_csv(string_list *list, const char *csv)
{
    const char *start = csv;
    for (;;) {
        const char *end = strchr(start, ',');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        if (length > 0)
            VEC_PUSH(*list, xstrndup(start, length));
        if (!end)
            break;
        start = end + 1;
    }
}

void string_list_free(string_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i]);
    VEC_FREE(*list);
}

int string_in(const char *text, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(text, list[i]) == 0)
            return 1;
    return 0;
}
