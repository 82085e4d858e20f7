/* test_install.c — corral installed into a fresh prefix, then used from
 * outside the source tree the two ways a VM's build finds it:
 * find_package(corral) (examples/hello, C and managed C) and
 * pkg-config --cflags --libs corral. */
#include "run_program.h"

#include <sys/stat.h>
#include <unistd.h>

/* In the scratch directory, prefix/ is the install, the rest are builds. */
static int exists(const char *relative)
{
    struct stat info;
    return stat(scratch_path(relative), &info) == 0;
}

/* The build tree has install rules only once cmake/Install.cmake is included. */
static int build_has_install_rules(void)
{
    command_result found = run_command("grep -qs corralConfig.cmake '%s/cmake_install.cmake'",
                                       BUILD_DIR);
    command_result_free(&found);
    return found.status == 0;
}

static void install_into_prefix(void *unused)
{
    (void)unused;
    command_result install =
        run_command("'%s' --install '%s' --prefix '%s'", CMAKE_COMMAND_PATH, BUILD_DIR,
                    scratch_path("prefix"));
    command_ok(&install, "cmake --install");
    command_result_free(&install);
    static const char *const expected[] = {
        "prefix/include/corral.h",      "prefix/include/corral/alloc.h",
        "prefix/include/corral/abi.h",  "prefix/include/corral/safepoint_pass.h",
        "prefix/lib/libcorral.a",       "prefix/lib/libcorral.so",
        "prefix/lib/libcorral_polls.a", "prefix/bin/corralc",
        "prefix/bin/corral-opt",        "prefix/lib/cmake/corral/corralConfig.cmake",
        "prefix/lib/cmake/corral/corralConfigVersion.cmake",
        "prefix/lib/cmake/corral/corralTargets.cmake",
        "prefix/lib/pkgconfig/corral.pc",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        ok(exists(expected[i]), "installed %s", expected[i]);
}

/* command_ok with the generator's name in front of what. */
static int generator_command_ok(const command_result *result, const char *generator,
                                const char *what)
{
    char text[256];
    snprintf(text, sizeof text, "%s: %s", generator, what);
    return command_ok(result, text);
}

/* examples/hello with one generator, in build directory dir. */
static void find_package_project_with(const char *generator, const char *dir)
{
    command_result configure = run_command(
        "'%s' -G '%s' -S '%s/examples/hello' -B '%s' -DCMAKE_PREFIX_PATH='%s' "
        "-DCMAKE_C_COMPILER='%s'",
        CMAKE_COMMAND_PATH, generator, SOURCE_DIR, scratch_path(dir), scratch_path("prefix"),
        C_COMPILER);
    int configured = generator_command_ok(&configure, generator,
                                          "configure examples/hello with find_package(corral)");
    command_result_free(&configure);
    if (!configured)
        return;
    command_result build = run_command("'%s' --build '%s'", CMAKE_COMMAND_PATH, scratch_path(dir));
    int built = generator_command_ok(&build, generator, "build it: corral::corral and corralc");
    /* Make only warns of a target that depends on itself. */
    ok(!strstr(build.output, "ircular") && !strstr(build.output, "multiple rules"),
       "%s: no circular dependency and no duplicate rule", generator);
    if (strstr(build.output, "ircular"))
        diag("%s", build.output);
    command_result_free(&build);
    if (!built)
        return;
    /* A header the managed source includes changed: its object is rebuilt. */
    command_result rebuild = run_command("sleep 1 && touch '%s' && '%s' --build '%s'",
                                         scratch_path("prefix/include/corral/alloc.h"),
                                         CMAKE_COMMAND_PATH, scratch_path(dir));
    ok(rebuild.status == 0 && strstr(rebuild.output, "corralc hello_managed"),
       "%s: a changed header rebuilds the managed object", generator);
    if (rebuild.status != 0 || !strstr(rebuild.output, "corralc hello_managed"))
        diag("%s", rebuild.output);
    command_result_free(&rebuild);
    char program[256];
    snprintf(program, sizeof program, "%s/hello", dir);
    command_result hello = run_command("'%s'", scratch_path(program));
    generator_command_ok(&hello, generator, "hello (plain C, linked with corral::corral) runs");
    like_str(hello.output, "hello: ok", "and its four threads' lists are intact");
    command_result_free(&hello);
    snprintf(program, sizeof program, "%s/hello_managed", dir);
    command_result managed = run_command("'%s'", scratch_path(program));
    generator_command_ok(&managed, generator,
                         "hello_managed (managed C by the installed corralc, plain C by CMake) "
                         "runs");
    like_str(managed.output, "hello_managed: ok", "and its trees are intact");
    command_result_free(&managed);
    snprintf(program, sizeof program, "%s/hello_polls", dir);
    command_result polls = run_command("'%s'", scratch_path(program));
    generator_command_ok(&polls, generator,
                         "hello_polls (linked with corral::polls) runs the pass");
    like_str(polls.output, "hello_polls: ok", "and finds the module safe");
    command_result_free(&polls);
}

static void find_package_project(void *generator)
{
    find_package_project_with(generator, strcmp(generator, "Ninja") == 0 ? "hello-ninja"
                                                                          : "hello-make");
}

static void pkg_config_build(void *unused)
{
    (void)unused;
    const char *pc = "PKG_CONFIG_PATH='%s/prefix/lib/pkgconfig' pkg-config";
    char pkg_config[512];
    snprintf(pkg_config, sizeof pkg_config, pc, scratch_dir);
    command_result build = run_command(
        "%s --exists corral && '%s' -O2 '%s/examples/hello/hello.c' -o '%s' "
        "$(%s --cflags --libs corral) -Wl,-rpath,\"$(%s --variable=libdir corral)\"",
        pkg_config, C_COMPILER, SOURCE_DIR, scratch_path("hello-pkg-config"), pkg_config,
        pkg_config);
    int built = command_ok(&build, "cc hello.c $(pkg-config --cflags --libs corral)");
    command_result_free(&build);
    if (built) {
        command_result hello = run_command("'%s'", scratch_path("hello-pkg-config"));
        command_ok(&hello, "it runs against the installed libcorral.so");
        like_str(hello.output, "hello: ok", "with correct results");
        command_result_free(&hello);
    }
    command_result corralc = run_command("test -x \"$(%s --variable=corralc corral)\"", pkg_config);
    command_ok(&corralc, "pkg-config --variable=corralc names the installed corralc");
    command_result_free(&corralc);
}

int main(void)
{
    plan(4);
    if (strlen(SANITIZE) > 0) {
        skip(4, "sanitizer build: an outside project would need the same -fsanitize flags");
        return done_testing();
    }
    if (!HAVE_POLLS) {
        skip(4, "built without the LLVM tools (CORRAL_BUILD_POLLS=OFF): no full install to test");
        return done_testing();
    }
    if (!build_has_install_rules()) {
        skip(4, "no install rules: the top-level CMakeLists.txt must include(cmake/Install.cmake)");
        return done_testing();
    }
    scratch_dir_make("embed");
    diag("scratch directory %s", scratch_dir);
    if (tap_subtest("cmake --install: headers, libraries, tools, CMake package, corral.pc", 120,
                    install_into_prefix, NULL)) {
        tap_subtest("an outside project with find_package(corral) builds and runs (Make)", 600,
                    find_package_project, "Unix Makefiles");
        tap_subtest("an outside project with find_package(corral) builds and runs (Ninja)", 600,
                    find_package_project, "Ninja");
        tap_subtest("an outside build with pkg-config --cflags --libs corral", 300,
                    pkg_config_build, NULL);
    } else {
        skip(3, "nothing installed");
    }
    scratch_dir_remove();
    return done_testing();
}
