/* run_program.h — run a test program in a child with CORRAL_* settings and
 * a timeout (libuv style: a hang is a "not ok", not a hung CI), keeping
 * its stdout and stderr; run a shell command and keep what it printed; a
 * scratch directory for what they write. Header-only, for the tests that
 * drive programs and tools. */
#ifndef CORRAL_TESTS_RUN_PROGRAM_H
#define CORRAL_TESTS_RUN_PROGRAM_H

#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <stdarg.h>
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

/* TAP_EXEC_WRAPPER (e.g. qemu-aarch64-static): what runs the programs a test
 * starts where the kernel cannot run them itself (the emulated AArch64 run
 * sets it); "" when unset, and the programs run directly. */
static TAP_UNUSED const char *exec_wrapper(void)
{
    const char *wrapper = getenv("TAP_EXEC_WRAPPER");
    return wrapper ? wrapper : "";
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
    const char *wrapper = exec_wrapper();
    if (*wrapper)
        execlp(wrapper, wrapper, launch->program, launch->argument, (char *)NULL);
    else
        execl(launch->program, launch->program, launch->argument, (char *)NULL);
    fprintf(stderr, "exec %s%s%s: %s\n", wrapper, *wrapper ? " " : "", launch->program,
            strerror(errno));
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

/* ---- shell commands */

/* All of stream, NUL-terminated; the caller frees it. */
static TAP_UNUSED char *read_all(FILE *stream)
{
    size_t capacity = 8192, length = 0, got;
    char *text = malloc(capacity);
    if (!text)
        bail_out("out of memory reading a stream");
    while ((got = fread(text + length, 1, capacity - length - 1, stream)) > 0) {
        length += got;
        if (capacity - length < 1024 && !(text = realloc(text, capacity *= 2)))
            bail_out("out of memory reading a stream (%zu bytes)", capacity);
    }
    text[length] = '\0';
    return text;
}

/* The whole of the file at path (NULL if it cannot be opened); the caller frees it. */
static TAP_UNUSED char *read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    char *text = read_all(file);
    fclose(file);
    return text;
}

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
    char full[sizeof command + 16];
    snprintf(full, sizeof full, "(%s) 2>&1", command);
    FILE *pipe = popen(full, "r");
    if (!pipe)
        bail_out("popen '%s': %s", command, strerror(errno));
    command_result result = {-1, read_all(pipe)};
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

/* The decimal number that ends right before marker in output (as in
 * "..., 287 collections in all"); -1 when there is none. */
static TAP_UNUSED long number_before(const char *output, const char *marker)
{
    const char *hit = output ? strstr(output, marker) : NULL;
    const char *start = hit;
    while (start && start > output && start[-1] >= '0' && start[-1] <= '9')
        start--;
    return !hit || start == hit ? -1 : strtol(start, NULL, 10);
}

/* An example program run with CORRAL_* settings (three tests): it exits
 * with status 0, its output has result (the line that says every result is
 * right), and the number before collections_marker is at least
 * minimum_collections (its output is shown when not). */
static TAP_UNUSED void example_run_checks(const char *program, const char *environment,
                                          const char *arguments, const char *result,
                                          const char *collections_marker,
                                          long minimum_collections)
{
    command_result run =
        run_command("env %s %s '%s' %s", environment, exec_wrapper(), program, arguments);
    command_ok(&run, "it exits with status 0");
    like_str(run.output, result, "every thread's result is right");
    long collections = number_before(run.output, collections_marker);
    if (!ok(collections >= minimum_collections, "%ld collections (at least %ld)", collections,
            minimum_collections))
        diag("%s", run.output);
    command_result_free(&run);
}

/* ---- a scratch directory */

/* The test's private directory, under $TMPDIR (or /tmp); removed by scratch_dir_remove. */
static TAP_UNUSED char scratch_dir[256];

static TAP_UNUSED void scratch_dir_make(const char *name)
{
    const char *base = getenv("TMPDIR");
    snprintf(scratch_dir, sizeof scratch_dir, "%s/corral-%s-XXXXXX",
             base && *base ? base : "/tmp", name);
    if (!mkdtemp(scratch_dir))
        bail_out("mkdtemp %s: %s", scratch_dir, strerror(errno));
}

/* A path in the scratch directory, in one of 8 static buffers used in turn. */
static TAP_UNUSED const char *scratch_path(const char *relative)
{
    static char paths[8][512];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", scratch_dir, relative);
    return path;
}

static TAP_UNUSED void scratch_dir_remove(void)
{
    command_result removed = run_command("rm -rf '%s'", scratch_dir);
    if (removed.status != 0)
        diag("could not remove %s: %s", scratch_dir, removed.output);
    command_result_free(&removed);
}

#endif /* CORRAL_TESTS_RUN_PROGRAM_H */
