/* tool_run.h — helpers for the polls tests that run corral-opt and corralc
 * and read what they wrote: run a command, read a file, cut one function
 * out of printed IR, count and order substrings. Header-only. */
#ifndef CORRAL_TESTS_POLLS_TOOL_RUN_H
#define CORRAL_TESTS_POLLS_TOOL_RUN_H

#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The test's private scratch directory (removed by the caller's cleanup). */
static char tool_temp_dir[256];

static TAP_UNUSED void tool_make_temp_dir(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tool_temp_dir, sizeof tool_temp_dir, "%s/corral-polls-test-XXXXXX",
             base && *base ? base : "/tmp");
    if (!mkdtemp(tool_temp_dir))
        bail_out("mkdtemp %s: %s", tool_temp_dir, strerror(errno));
}

static TAP_UNUSED void tool_remove_temp_dir(void)
{
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", tool_temp_dir);
    if (system(command) != 0)
        diag("could not remove %s", tool_temp_dir);
}

/* A path in the scratch directory; returns a static buffer per call slot. */
static TAP_UNUSED const char *tool_temp(const char *name)
{
    static char paths[8][512];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 512, "%s/%s", tool_temp_dir, name);
    return path;
}

static TAP_UNUSED char *tool_read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    size_t capacity = 4096, length = 0;
    char *text = malloc(capacity);
    size_t got;
    while ((got = fread(text + length, 1, capacity - length - 1, file)) > 0) {
        length += got;
        if (capacity - length < 1024)
            text = realloc(text, capacity *= 2);
    }
    fclose(file);
    text[length] = '\0';
    return text;
}

typedef struct tool_result {
    int status;   /* exit status, or -1 when killed */
    char *output; /* stdout and stderr together */
} tool_result;

/* Runs a shell command built from format; output is collected. */
static TAP_UNUSED __attribute__((format(printf, 1, 2))) tool_result tool_run(const char *format, ...)
{
    char command[8192];
    va_list args;
    va_start(args, format);
    vsnprintf(command, sizeof command, format, args);
    va_end(args);
    char full[8448];
    snprintf(full, sizeof full, "(%s) 2>&1", command);
    tool_result result = {-1, NULL};
    FILE *pipe = popen(full, "r");
    if (!pipe)
        bail_out("popen '%s': %s", command, strerror(errno));
    size_t capacity = 4096, length = 0, got;
    result.output = malloc(capacity);
    while ((got = fread(result.output + length, 1, capacity - length - 1, pipe)) > 0) {
        length += got;
        if (capacity - length < 1024)
            result.output = realloc(result.output, capacity *= 2);
    }
    result.output[length] = '\0';
    int status = pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

static TAP_UNUSED void tool_result_free(tool_result *result)
{
    free(result->output);
    result->output = NULL;
}

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

#endif /* CORRAL_TESTS_POLLS_TOOL_RUN_H */
