/* test_shared.c — corralc -shared: a library of managed code, built with
 * -fPIC, registers its stackmaps from a constructor and is walked while its
 * frames are on the stack during collections that move every object
 * (CORRAL_GC_STRESS=move-all); loaded by dlopen, and linked at start-up
 * (the constructor then runs before corral_init), at -O0 and -O2. */
#include "run_program.h"

/* Builds the library at level, the host either way, and runs it. */
static void library_at(const char *level, int linked)
{
    const char *how = linked ? "linked at start-up" : "loaded by dlopen";
    char library[64], host[64];
    snprintf(library, sizeof library, "libmanaged%s.so", level);
    snprintf(host, sizeof host, "host%s-%d", level, linked);
    command_result build = run_command(
        "cd '%s' && %s -shared -fPIC %s -I'%s/tests/managed' "
        "'%s/tests/embed/shared/managed_library.c' -o %s && "
        "%s -Wall -Wextra -Werror %s -I'%s/include' '%s/tests/embed/shared/host.c' -o %s %s "
        "-L'%s' -lcorral -ldl -Wl,-rpath,'%s'",
        scratch_dir, CORRALC, level, SOURCE_DIR, SOURCE_DIR, library, C_COMPILER,
        linked ? "-DHOST_LINKED" : "", SOURCE_DIR, SOURCE_DIR, host, linked ? library : "",
        LIBRARY_DIR, LIBRARY_DIR);
    if (!ok(build.status == 0, "%s: corralc -shared builds the library; the host links (%s)",
            level, how))
        diag("%s", build.output);
    free(build.output);
    command_result run =
        run_command("cd '%s' && LD_LIBRARY_PATH=. CORRAL_GC_STRESS=move-all ./%s %s",
                    scratch_dir, host, linked ? "" : library);
    unsigned long long collections = 0, moved = 0;
    long wrong = -1;
    const char *line = strstr(run.output, "wrong ");
    if (line)
        sscanf(line, "wrong %ld collections %llu moved %llu", &wrong, &collections, &moved);
    if (!ok(run.status == 0 && wrong == 0 && collections >= 20 && moved > 0,
            "%s, %s: 20 collections with its frames on the stack, objects moved, trees intact",
            level, how))
        diag("%s", run.output);
    free(run.output);
}

int main(void)
{
    scratch_dir_make("shared");
    library_at("-O0", 0);
    library_at("-O2", 0);
    library_at("-O2", 1);
    scratch_dir_remove();
    return done_testing();
}
