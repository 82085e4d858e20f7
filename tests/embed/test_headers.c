/* test_headers.c — corral.h and the inline headers compile warning-free
 * (-Wall -Wextra -Werror, and -pedantic) with gcc, clang, g++ and clang++,
 * and the program built from them runs against libcorral. A compiler that is
 * not installed is a skip, not a pass. */
#include "run_program.h"

typedef struct compiler {
    const char *command; /* looked up on PATH */
    const char *flags;
} compiler;

static const compiler compilers[] = {
    {"gcc", "-std=c11 -pedantic"},
    {"gcc", "-std=gnu11"},
    {"clang-19", "-std=c11 -pedantic"},
    {"g++", "-x c++ -std=c++11"},
    {"g++", "-x c++ -std=c++17 -pedantic"},
    {"clang++-19", "-x c++ -std=c++17 -pedantic"},
};

static int installed(const char *command)
{
    command_result found = run_command("command -v %s", command);
    int status = found.status;
    free(found.output);
    return status == 0;
}

static void compile_with(const compiler *c, const char *work)
{
    if (!installed(c->command)) {
        skip(2, "compiler not installed (scripts/install-deps installs it)");
        return;
    }
    command_result build = run_command(
        "cd '%s' && %s %s -Wall -Wextra -Werror -I'%s/include' "
        "-c '%s/tests/embed/headers/uses_api.c' -o uses_api.o && "
        "%s uses_api.o '%s' -lurcu-memb -lurcu-common -lurcu-cds -lpthread -lm -o uses_api",
        work, c->command, c->flags, SOURCE_DIR, SOURCE_DIR, c->command, STATIC_LIBRARY);
    if (!ok(build.status == 0 && !strstr(build.output, "warning"),
            "%s %s: the public headers compile with no warning", c->command, c->flags))
        diag("%s", build.output);
    free(build.output);
    command_result run = run_command("cd '%s' && ./uses_api", work);
    ok(build.status == 0 && run.status == 0, "%s %s: the program runs", c->command, c->flags);
    free(run.output);
}

int main(void)
{
    scratch_dir_make("headers");
    for (size_t i = 0; i < sizeof compilers / sizeof compilers[0]; i++)
        compile_with(&compilers[i], scratch_dir);
    scratch_dir_remove();
    return done_testing();
}
