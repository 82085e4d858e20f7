/* ir_text.h — for the polls tests that run corral-opt and corralc (with
 * run_program.h's run_command, in its scratch directory) and read the IR
 * they wrote: cut one function out of it, count and order substrings, take
 * the line before or after one. Header-only. */
#ifndef CORRAL_TESTS_POLLS_IR_TEXT_H
#define CORRAL_TESTS_POLLS_IR_TEXT_H

#include "run_program.h"

/* Where the tools and the inputs are: polls_tool_test (tests/polls/CMakeLists.txt). */
#if !defined(CORRAL_OPT) || !defined(CORRALC) || !defined(POLLS_IR_DIR)
#error "CORRAL_OPT, CORRALC and POLLS_IR_DIR must be defined by the build (polls_tool_test)"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text of "define ... @name(" up to its closing "}" line; caller frees. */
static TAP_UNUSED char *ir_function(const char *ir, const char *name)
{
    char needle[256];
    snprintf(needle, sizeof needle, " @%s(", name);
    for (const char *line = ir; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "define ", 7) == 0) {
            const char *hit = strstr(line, needle);
            if (hit && hit < line + length) {
                const char *close = strstr(line, "\n}\n");
                size_t body = close ? (size_t)(close - line) + 2 : strlen(line);
                char *copy = malloc(body + 1);
                memcpy(copy, line, body);
                copy[body] = '\0';
                return copy;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

static TAP_UNUSED int count_of(const char *text, const char *needle)
{
    int count = 0;
    if (!text)
        return 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        count++;
    return count;
}

/* Does first appear before second in text (both present)? */
static TAP_UNUSED int appears_before(const char *text, const char *first, const char *second)
{
    const char *a = text ? strstr(text, first) : NULL;
    const char *b = a ? strstr(a + strlen(first), second) : NULL;
    return a && b;
}

/* The line of text following the line that contains needle; caller frees. */
static TAP_UNUSED char *line_after(const char *text, const char *needle)
{
    const char *hit = text ? strstr(text, needle) : NULL;
    const char *next = hit ? strchr(hit, '\n') : NULL;
    if (!next)
        return NULL;
    next++;
    while (*next == '\n')
        next++;
    const char *end = strchr(next, '\n');
    size_t length = end ? (size_t)(end - next) : strlen(next);
    char *line = malloc(length + 1);
    memcpy(line, next, length);
    line[length] = '\0';
    return line;
}

/* The line of text preceding the first line that contains needle. */
static TAP_UNUSED char *line_before(const char *text, const char *needle)
{
    const char *hit = text ? strstr(text, needle) : NULL;
    if (!hit)
        return NULL;
    const char *line_start = hit;
    while (line_start > text && line_start[-1] != '\n')
        line_start--;
    if (line_start == text)
        return NULL;
    const char *previous_end = line_start - 1;
    const char *previous = previous_end;
    while (previous > text && previous[-1] != '\n')
        previous--;
    size_t length = (size_t)(previous_end - previous);
    char *line = malloc(length + 1);
    memcpy(line, previous, length);
    line[length] = '\0';
    return line;
}

#endif /* CORRAL_TESTS_POLLS_IR_TEXT_H */
