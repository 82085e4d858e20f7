/* libcorral exports its public API and nothing else: an embedding VM with its
 * own gc_collect or heap_init must never meet ours (issue 20). Checks, with
 * nm, the shared library's dynamic symbols and the static archive's global
 * symbols: every defined one starts with corral_, and is a name the public
 * headers declare; every function and variable those headers declare (not
 * static inline) is defined. */
#include "run_program.h"

#include <stdbool.h>

/* Names declared by the public runtime headers: words corral_* followed by
 * "(" or "[" or ";" on a line that is not a static inline definition or a
 * macro, taken from the preprocessed-free text (a declaration list). */
static const char *public_header_names =
    "grep -ohE '\\bcorral_[a-z0-9_]+\\b *(\\(|\\[|;)' " SOURCE_DIR "/include/corral.h "
    SOURCE_DIR "/include/corral/alloc.h " SOURCE_DIR "/include/corral/poll.h "
    SOURCE_DIR "/include/corral/jit.h " SOURCE_DIR "/include/corral/barrier.h "
    SOURCE_DIR "/include/corral/shadow_stack.h "
    "| grep -oE 'corral_[a-z0-9_]+' | sort -u";

static char *names_of(const char *what, const char *command)
{
    command_result result = run_command("%s", command);
    if (result.status != 0)
        bail_out("%s: '%s' failed:\n%s", what, command, result.output);
    return result.output;
}

static bool listed(const char *list, const char *name)
{
    size_t length = strlen(name);
    for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
        if ((p == list || p[-1] == '\n') && (p[length] == '\n' || p[length] == '\0'))
            return true;
    return false;
}

/* Each line of defined is a corral_ name the headers declare. */
static void check_defined(const char *library, const char *defined, const char *declared)
{
    int foreign = 0, undeclared = 0, count = 0;
    char *copy = strdup(defined);
    for (char *name = strtok(copy, "\n"); name; name = strtok(NULL, "\n")) {
        count++;
        if (strncmp(name, "corral_", 7) != 0) {
            if (foreign++ < 10)
                diag("%s defines %s", library, name);
        } else if (!listed(declared, name)) {
            if (undeclared++ < 10)
                diag("%s exports %s, which no public header declares", library, name);
        }
    }
    free(copy);
    ok(count > 20, "%s: %d global symbols read", library, count);
    ok(foreign == 0, "%s: no global symbol outside the corral_ prefix (%d found)", library,
       foreign);
    ok(undeclared == 0, "%s: no internal corral_ symbol exported (%d found)", library,
       undeclared);
}

int main(void)
{
    plan(7);
    char *declared = names_of("headers", public_header_names);
    char *shared_names = names_of("nm -D", "nm -D --defined-only " SHARED_LIBRARY
                                           " | awk 'NF == 3 { print $3 }' | sort -u");
    char *static_names = names_of("nm", "nm -g --defined-only " STATIC_LIBRARY
                                        " | awk 'NF == 3 { print $3 }' | sort -u");
    check_defined("libcorral.so", shared_names, declared);
    check_defined("libcorral.a", static_names, declared);
    /* The other way: what the headers promise is there (inline helpers and
     * type names excepted: they are not symbols). */
    int missing = 0;
    char *copy = strdup(declared);
    for (char *name = strtok(copy, "\n"); name; name = strtok(NULL, "\n")) {
        char probe[256];
        snprintf(probe, sizeof probe,
                 "grep -qE '(static inline|define|typedef|struct|enum)[^;]*\\b%s\\b' "
                 SOURCE_DIR "/include/corral.h " SOURCE_DIR "/include/corral/*.h", name);
        if (listed(shared_names, name) || run_command("%s", probe).status == 0)
            continue;
        if (missing++ < 10)
            diag("the headers declare %s, but libcorral.so does not export it", name);
    }
    free(copy);
    ok(missing == 0, "every function and variable the headers declare is exported (%d missing)",
       missing);
    free(declared);
    free(shared_names);
    free(static_names);
    return done_testing();
}
