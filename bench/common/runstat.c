/* runstat — runs one benchmark process and reports what the kernel measured.
 *
 *   runstat [--timeout SECONDS] [--out FILE] -- PROGRAM ARGS...
 *
 * The child inherits stdin/stdout/stderr. When it ends, one line goes to FILE
 * (default: stderr):
 *   RUNSTAT elapsed_ms=F user_ms=F sys_ms=F maxrss_kb=N exit=N signal=N timed_out=0|1
 * maxrss_kb is the child's peak resident set (wait4's rusage, the same figure
 * as GNU time's %M), so bench/run needs neither /usr/bin/time nor a Perl
 * module for it. On timeout the child's process group is killed: a hung
 * benchmark becomes a failed row, not a hung CI.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Written once before the alarm is armed; read by the alarm handler. */
static volatile pid_t child_pid;
/* Written by the alarm handler, read by main after wait4 returns. */
static volatile sig_atomic_t timed_out;

static void on_alarm(int signal_number)
{
    (void)signal_number;
    timed_out = 1;
    kill(-child_pid, SIGKILL);
}

static double timeval_ms(struct timeval tv)
{
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

static void usage(void)
{
    fprintf(stderr, "usage: runstat [--timeout SECONDS] [--out FILE] -- PROGRAM ARGS...\n");
    exit(64);
}

int main(int argc, char **argv)
{
    unsigned timeout = 0;
    const char *out_path = NULL;
    int arg = 1;
    for (; arg < argc; arg++) {
        if (strcmp(argv[arg], "--") == 0) {
            arg++;
            break;
        } else if (strcmp(argv[arg], "--timeout") == 0 && arg + 1 < argc) {
            char *end;
            long value = strtol(argv[++arg], &end, 10);
            if (*end || value < 0 || value > 86400) {
                fprintf(stderr, "runstat: --timeout is '%s'; expected seconds in [0, 86400]\n", argv[arg]);
                return 64;
            }
            timeout = (unsigned)value;
        } else if (strcmp(argv[arg], "--out") == 0 && arg + 1 < argc) {
            out_path = argv[++arg];
        } else {
            usage();
        }
    }
    if (arg >= argc)
        usage();

    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "runstat: fork: %s\n", strerror(errno));
        return 70;
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own group, so a timeout kills its helpers too */
        execvp(argv[arg], &argv[arg]);
        fprintf(stderr, "runstat: cannot run %s: %s\n", argv[arg], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* both sides, so the group exists before any kill */
    child_pid = pid;
    if (timeout) {
        struct sigaction action = {.sa_handler = on_alarm};
        sigaction(SIGALRM, &action, NULL);
        alarm(timeout);
    }

    int status;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "runstat: wait4: %s\n", strerror(errno));
            return 70;
        }
    }
    alarm(0);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double elapsed_ms = (double)(end.tv_sec - start.tv_sec) * 1e3 + (double)(end.tv_nsec - start.tv_nsec) / 1e6;

    FILE *out = stderr;
    if (out_path && !(out = fopen(out_path, "w"))) {
        fprintf(stderr, "runstat: cannot write %s: %s\n", out_path, strerror(errno));
        out = stderr;
    }
    int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    int signal_number = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    fprintf(out, "RUNSTAT elapsed_ms=%.3f user_ms=%.3f sys_ms=%.3f maxrss_kb=%ld exit=%d signal=%d timed_out=%d\n",
            elapsed_ms, timeval_ms(usage.ru_utime), timeval_ms(usage.ru_stime), usage.ru_maxrss, exit_code,
            signal_number, (int)timed_out);
    if (out != stderr)
        fclose(out);
    return exit_code >= 0 ? exit_code : 128 + signal_number;
}
