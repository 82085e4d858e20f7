/* run_program.h — run a test program in a child with CORRAL_* settings and
 * a timeout (libuv style: a hang is a "not ok", not a hung CI), keeping
 * its stdout and stderr. Header-only, for the tests that drive programs. */
#ifndef CORRAL_TESTS_RUN_PROGRAM_H
#define CORRAL_TESTS_RUN_PROGRAM_H

#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "tap.h"

enum { OUTPUT_LIMIT = 1 << 20 };

typedef struct run_result {
    int status;      /* waitpid status */
    int timed_out;
    char *output;    /* stdout and stderr together, NUL-terminated */
} run_result;

/* Runs body(context) in a forked child whose stdout and stderr come back in
 * the result; a child still running after timeout seconds (scaled for slow
 * builds) is killed. body should end the child itself (exec or _exit). */
static TAP_UNUSED run_result run_child(void (*body)(void *context), void *context,
                                       double timeout)
{
    run_result result = {0, 0, calloc(OUTPUT_LIMIT, 1)};
    int pipe_fds[2];
    if (!result.output || pipe(pipe_fds) != 0)
        bail_out("pipe: %s", strerror(errno));
    fflush(stdout);
    pid_t child = fork();
    if (child < 0)
        bail_out("fork: %s", strerror(errno));
    if (child == 0) {
        dup2(pipe_fds[1], 1);
        dup2(pipe_fds[1], 2);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        body(context);
        fflush(stdout);
        _exit(0);
    }
    close(pipe_fds[1]);
    size_t used = 0;
    double start = tap_now();
    for (;;) {
        struct pollfd pfd = {pipe_fds[0], POLLIN, 0};
        int ready = poll(&pfd, 1, 50);
        if (ready > 0) {
            ssize_t got = read(pipe_fds[0], result.output + used, OUTPUT_LIMIT - 1 - used);
            if (got <= 0)
                break;
            used += (size_t)got;
            if (used == OUTPUT_LIMIT - 1)
                break;
        }
        if (tap_now() - start > timeout * tap_timeout_scale()) {
            result.timed_out = 1;
            kill(child, SIGKILL);
            break;
        }
    }
    close(pipe_fds[0]);
    waitpid(child, &result.status, 0);
    return result;
}

/* Sets each NAME=VALUE of a space-separated list in the environment. */
static TAP_UNUSED void run_setenv_list(const char *settings)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", settings);
    for (char *item = strtok(copy, " "); item; item = strtok(NULL, " ")) {
        char *eq = strchr(item, '=');
        if (!eq)
            bail_out("setting '%s' is not NAME=VALUE", item);
        *eq = '\0';
        setenv(item, eq + 1, 1);
    }
}

typedef struct program_launch {
    const char *program, *argument, *settings;
} program_launch;

/* A child that runs a program with only the given CORRAL_* settings. */
static void run_program_child(void *context)
{
    const program_launch *launch = context;
    extern char **environ;
    for (char **e = environ; *e;) {
        if (strncmp(*e, "CORRAL_", 7) == 0) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
            unsetenv(name);
            e = environ;
        } else {
            e++;
        }
    }
    run_setenv_list(launch->settings);
    execl(launch->program, launch->program, launch->argument, (char *)NULL);
    fprintf(stderr, "exec %s: %s\n", launch->program, strerror(errno));
    _exit(127);
}

/* Runs program with the space-separated NAME=VALUE settings added to the
 * environment (CORRAL_* variables of the test's own environment removed). */
static TAP_UNUSED run_result run_program_with(const char *program, const char *argument,
                                              const char *settings, double timeout)
{
    program_launch launch = {program, argument, settings};
    return run_child(run_program_child, &launch, timeout);
}

static TAP_UNUSED run_result run_program(const char *program, const char *settings, double timeout)
{
    return run_program_with(program, NULL, settings, timeout);
}

/* True when output has a line matching the extended regular expression. */
static TAP_UNUSED bool output_matches(const char *output, const char *pattern)
{
    regex_t regex;
    if (regcomp(&regex, pattern, REG_EXTENDED | REG_NEWLINE | REG_NOSUB) != 0)
        bail_out("bad pattern %s", pattern);
    bool found = output && regexec(&regex, output, 0, NULL, 0) == 0;
    regfree(&regex);
    return found;
}

static TAP_UNUSED int exited_ok(const run_result *r)
{
    return !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

static TAP_UNUSED void show_output(const run_result *r)
{
    diag("exit status %d, signal %d, timed out %d; output:\n%.3000s",
         WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1,
         WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0, r->timed_out, r->output);
}

#endif /* CORRAL_TESTS_RUN_PROGRAM_H */
