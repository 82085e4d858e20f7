/* test_shared.c — corralc -shared: a library of managed code, built with
 * -fPIC, registers its stackmaps from a constructor and is walked while its
 * frames are on the stack during collections that move every object
 * (CORRAL_GC_STRESS=move-all); loaded by dlopen, and linked at start-up
 * (the constructor then runs before corral_init), at -O0 and -O2. A library
 * with no call site that can reach a safepoint is still checked for the
 * barriers CORRAL_GC_CONCURRENT=1 needs, through its module's mark. */
#include "run_program.h"

/* The hosts run GC threads: a hang ends here, as exit status 124, not in CI's limit. */
enum { HOST_TIMEOUT_S = 120 };

/* corralc -shared options source (in tests/embed/shared) -o library, and
 * host.c -o host: linked with the library at start-up, or loading it. */
static command_result build_library_and_host(const char *options, const char *source,
                                             const char *library, const char *host, int linked)
{
    return run_command(
        "cd '%s' && %s -shared -fPIC %s -I'%s/tests/managed' "
        "'%s/tests/embed/shared/%s' -o %s && "
        "%s -Wall -Wextra -Werror %s -I'%s/include' '%s/tests/embed/shared/host.c' -o %s %s "
        "-L'%s' -lcorral -ldl -Wl,-rpath,'%s'",
        scratch_dir, CORRALC, options, SOURCE_DIR, SOURCE_DIR, source, library, C_COMPILER,
        linked ? "-DHOST_LINKED" : "", SOURCE_DIR, SOURCE_DIR, host, linked ? library : "",
        LIBRARY_DIR, LIBRARY_DIR);
}

/* Builds the library at level, the host either way, and runs it. */
static void library_at(const char *level, int linked)
{
    const char *how = linked ? "linked at start-up" : "loaded by dlopen";
    char library[64], host[64];
    snprintf(library, sizeof library, "libmanaged%s.so", level);
    snprintf(host, sizeof host, "host%s-%d", level, linked);
    command_result build =
        build_library_and_host(level, "managed_library.c", library, host, linked);
    if (!ok(build.status == 0, "%s: corralc -shared builds the library; the host links (%s)",
            level, how))
        diag("%s", build.output);
    free(build.output);
    command_result run =
        run_command("cd '%s' && LD_LIBRARY_PATH=. CORRAL_GC_STRESS=move-all timeout %d ./%s %s",
                    scratch_dir, HOST_TIMEOUT_S, host, linked ? "" : library);
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

/* leaf_library.c, built with --polls=loop and satb_option, loaded by dlopen
 * into a host running concurrent minor collections. Its function keeps its
 * symbol (--keep-external-symbols): an entry would give it a record. */
static command_result leaf_library_run(const char *satb_option, const char *library)
{
    char options[96];
    snprintf(options, sizeof options, "-O2 --polls=loop --keep-external-symbols %s",
             satb_option);
    command_result build =
        build_library_and_host(options, "leaf_library.c", library, "leaf_host", 0);
    if (!ok(build.status == 0, "a library with no call site builds (%s)",
            *satb_option ? satb_option : "no --satb-barrier"))
        diag("%s", build.output);
    free(build.output);
    return run_command("cd '%s' && CORRAL_GC_GENERATIONAL=1 CORRAL_GC_CONCURRENT=1 timeout %d "
                       "./leaf_host ./%s", scratch_dir, HOST_TIMEOUT_S, library);
}

static void leaf_library_checked(void)
{
    command_result run = leaf_library_run("", "libleaf.so");
    if (!ok(run.status != 0 && strstr(run.output, "libleaf.so: function corral.module_barriers") &&
                strstr(run.output, "was compiled without the deletion barrier that "
                                   "CORRAL_GC_CONCURRENT=1 needs"),
            "CORRAL_GC_CONCURRENT=1 refuses it built without --satb-barrier, naming its mark"))
        diag("%s", run.output);
    free(run.output);
    run = leaf_library_run("--satb-barrier", "libleaf_logged.so");
    if (!ok(run.status == 0 && strstr(run.output, "wrong 0"),
            "and runs it built with --satb-barrier"))
        diag("%s", run.output);
    free(run.output);
}

int main(void)
{
    scratch_dir_make("shared");
    library_at("-O0", 0);
    library_at("-O2", 0);
    library_at("-O2", 1);
    leaf_library_checked();
    scratch_dir_remove();
    return done_testing();
}
