/* run_command.h — run a shell command for a test and keep what it printed.
 * Header-only, for the embedding tests that drive cmake, pkg-config, cc and
 * the programs they build. */
#ifndef CORRAL_TESTS_EMBED_RUN_COMMAND_H
#define CORRAL_TESTS_EMBED_RUN_COMMAND_H

#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct command_result {
    int status;   /* exit status; -1 when killed by a signal */
    char *output; /* stdout and stderr together */
} command_result;

/* Runs the command built from format under sh, stderr merged into stdout. */
static TAP_UNUSED __attribute__((format(printf, 1, 2))) command_result
run_command(const char *format, ...)
{
    char command[8192];
    va_list args;
    va_start(args, format);
    vsnprintf(command, sizeof command, format, args);
    va_end(args);
    char full[8300];
    snprintf(full, sizeof full, "(%s) 2>&1", command);
    FILE *pipe = popen(full, "r");
    if (!pipe)
        bail_out("popen '%s': %s", command, strerror(errno));
    size_t capacity = 8192, length = 0, got;
    command_result result = {-1, malloc(capacity)};
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

/* Reports whether the command succeeded; on failure shows its last output. */
static TAP_UNUSED int command_ok(const command_result *result, const char *what)
{
    if (!ok(result->status == 0, "%s", what)) {
        size_t length = strlen(result->output);
        diag("exit status %d; output%s:\n%s", result->status, length > 3000 ? " (end)" : "",
             length > 3000 ? result->output + length - 3000 : result->output);
        return 0;
    }
    return 1;
}

static TAP_UNUSED void command_result_free(command_result *result)
{
    free(result->output);
    result->output = NULL;
}

#endif /* CORRAL_TESTS_EMBED_RUN_COMMAND_H */
