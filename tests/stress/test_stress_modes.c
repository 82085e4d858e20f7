/* test_stress_modes.c — the stress modes catch bugs and replay.
 *
 *  1. A deliberately broken managed program (broken_hidden_integer.c: a
 *     reference hidden in an integer across an allocation) passes without
 *     stress and fails under CORRAL_GC_STRESS=alloc:1,poison with a report
 *     naming the signal, the poison pattern, the GC count, the seed, the
 *     stress mode, the thread and the site of the collection.
 *  2. The same seed replays the same failure.
 *  3. A single-threaded program run twice with one CORRAL_GC_SEED under
 *     alloc:random collects at the same allocations (the CORRAL_LOG=stress,gc
 *     lines, addresses removed, are identical); another seed differs.
 *  4. CORRAL_LOG=stress says why each stress collection ran, per mode.
 *  5. A configuration error is printed once, by corral_init.
 *  6. quarantine catches stale references that no other mode reports: an
 *     unregistered global ("moved to B") and a reference hidden in an
 *     integer ("freed") in managed C (plain C: quarantine_c.t), naming the faulting
 *     function; the same programs without quarantine are not caught; and
 *     correct programs (trees on 1 and 4 threads, list_threads) pass.
 *  7. CORRAL_GC_VERIFY=satb names an overwrite in list_threads built without
 *     corralc --satb-barrier, and passes it built with the barrier.
 *
 * Every program runs in a child with a timeout; its output is captured.
 */
#include <stdbool.h>

#include "corral_test.h"

/* The schedule lines of a CORRAL_LOG=stress,gc run: "corral: stress: MODE
 * at allocation #K after gc N" and "corral: gc N cause=C", with thread names, sites and times removed. */
static char *schedule_of(const char *output)
{
    size_t size = strlen(output) + 1;
    char *schedule = calloc(size, 1);
    const char *line = output;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "corral: stress: ", 16) == 0 && strstr(line, " after gc ") &&
            strstr(line, " after gc ") < line + length) {
            const char *cut = strstr(line, " (");
            size_t keep = cut && cut < line + length ? (size_t)(cut - line) : length;
            strncat(schedule, line, keep);
            strcat(schedule, "\n");
        } else if (strncmp(line, "corral: gc ", 11) == 0) {
            const char *cut = strstr(line, " ttsp=");
            size_t keep = cut && cut < line + length ? (size_t)(cut - line) : length;
            strncat(schedule, line, keep);
            strcat(schedule, "\n");
        }
        line = end ? end + 1 : line + length;
    }
    return schedule;
}

static size_t count_lines(const char *text, const char *prefix)
{
    size_t count = 0;
    for (const char *p = text; (p = strstr(p, prefix)); p++)
        count++;
    return count;
}

static void broken_program(void)
{
    run_result clean = run_program(BROKEN_PROGRAM, "", 60);
    if (!ok(exited_ok(&clean) && strstr(clean.output, "49\n"),
            "the broken program passes without stress"))
        show_output(&clean);

    const char *stress = "CORRAL_GC_STRESS=alloc:1,poison CORRAL_GC_SEED=424242";
    run_result bad = run_program(BROKEN_PROGRAM, stress, 60);
    if (!ok(!bad.timed_out && WIFSIGNALED(bad.status) && WTERMSIG(bad.status) == SIGSEGV,
            "under alloc:1,poison it dies by SIGSEGV"))
        show_output(&bad);
    like_str(bad.output, "corral: fatal: SIGSEGV", "the report is a corral fatal report");
    like_str(bad.output, "poison pattern 0xbadc0ffee0ddf00d",
             "the report recognises the poison pattern");
    like_str(bad.output, "register ", "the report names the register holding it");
    like_str(bad.output, "collections completed", "the report gives the GC count");
    like_str(bad.output, "seed: 424242 (replay: CORRAL_GC_SEED=424242)",
             "the report gives the seed and how to replay");
    like_str(bad.output, "stress: alloc:1,poison", "the report gives the stress modes");
    like_str(bad.output, "at pc 0x", "the report gives the faulting pc");
    like_str(bad.output, "(broken_hidden_integer+0x", "the pc is named by function");
    like_str(bad.output, "last stress collection: alloc, requested after gc ",
             "the report names the last stress collection");
    like_str(bad.output, "by thread 1 (tid ", "the report names the thread");
    const char *site = strstr(bad.output, "last stress collection:");
    like_str(site, "at broken_hidden_integer+0x", "the report names the site of the collection");

    /* Replay: the same seed gives the same report, addresses aside. */
    run_result again = run_program(BROKEN_PROGRAM, stress, 60);
    const char *gc_line = strstr(bad.output, "  gc: ");
    char expected[128] = "";
    if (gc_line)
        snprintf(expected, sizeof expected, "%.*s", (int)strcspn(gc_line, "\n"), gc_line);
    ok(WIFSIGNALED(again.status) && expected[0] && strstr(again.output, expected),
       "the same seed replays the same failure (%s)", expected);

    /* Poison is what makes it loud: without it the stale read may pass. */
    run_result quiet = run_program(BROKEN_PROGRAM, "CORRAL_GC_STRESS=alloc:1", 60);
    diag("without poison the broken program %s (stale memory still holds the old values)",
         exited_ok(&quiet) ? "passes by luck" : "fails too");
    free(clean.output);
    free(bad.output);
    free(again.output);
    free(quiet.output);
}

static void replayed_schedule(void)
{
    const char *base = "CORRAL_TLAB_SIZE=4k CORRAL_LOG=stress,gc CORRAL_GC_STRESS=alloc:random:4";
    char first_settings[256], second_settings[256];
    snprintf(first_settings, sizeof first_settings, "%s CORRAL_GC_SEED=777", base);
    snprintf(second_settings, sizeof second_settings, "%s CORRAL_GC_SEED=778", base);
    run_result a = run_program(REPLAY_PROGRAM, first_settings, 120);
    run_result b = run_program(REPLAY_PROGRAM, first_settings, 120);
    run_result c = run_program(REPLAY_PROGRAM, second_settings, 120);
    if (!ok(exited_ok(&a) && exited_ok(&b) && exited_ok(&c), "the replay program passes"))
        show_output(&a);
    char *sa = schedule_of(a.output), *sb = schedule_of(b.output), *sc = schedule_of(c.output);
    size_t collections = count_lines(sa, "corral: gc ");
    ok(collections >= 20, "alloc:random:4 collected %zu times", collections);
    ok(count_lines(sa, "corral: stress: alloc:random at allocation #") == collections,
       "every collection has its stress line (allocation number and GC count)");
    ok(strcmp(sa, sb) == 0, "the same seed replays the same schedule");
    if (strcmp(sa, sb) != 0)
        diag("first run:\n%.2000s\nsecond run:\n%.2000s", sa, sb);
    ok(strcmp(sa, sc) != 0, "another seed gives another schedule");
    free(sa);
    free(sb);
    free(sc);
    free(a.output);
    free(b.output);
    free(c.output);

    /* thread-alloc:N is a fixed schedule: the same every run, seed or not. */
    run_result t1 = run_program(REPLAY_PROGRAM, "CORRAL_TLAB_SIZE=4k CORRAL_LOG=stress,gc "
                                                "CORRAL_GC_STRESS=thread-alloc:5", 120);
    run_result t2 = run_program(REPLAY_PROGRAM, "CORRAL_TLAB_SIZE=4k CORRAL_LOG=stress,gc "
                                                "CORRAL_GC_STRESS=thread-alloc:5", 120);
    char *s1 = schedule_of(t1.output), *s2 = schedule_of(t2.output);
    ok(exited_ok(&t1) && count_lines(s1, "thread-alloc at allocation #5 ") == 1 &&
           strcmp(s1, s2) == 0,
       "thread-alloc:5 collects at allocation 5, 10, ... the same in every run");
    free(s1);
    free(s2);
    free(t1.output);
    free(t2.output);
}

static void stress_log_lines(void)
{
    run_result polls = run_program(REPLAY_PROGRAM, "CORRAL_LOG=stress CORRAL_GC_STRESS=polls", 120);
    ok(exited_ok(&polls), "the replay program passes under polls");
    like_str(polls.output, "corral: stress: polls: first visit of a poll site after gc ",
             "polls says which poll site it collected at");
    free(polls.output);
    run_result transitions =
        run_program(REPLAY_PROGRAM, "CORRAL_LOG=stress CORRAL_GC_STRESS=transitions", 120);
    ok(exited_ok(&transitions), "the replay program passes under transitions");
    like_str(transitions.output, "corral: stress: transitions after gc ",
             "transitions says which transition it collected at");
    free(transitions.output);
}

/* corral_init prints a configuration error itself; a program that prints
 * corral_last_error() again shows it twice. */
static void configuration_error_once(void)
{
    run_result bad = run_program(TORTURE_PROGRAM, "CORRAL_HEAP_MAX=lots", 60);
    size_t count = count_lines(bad.output, "CORRAL_HEAP_MAX='lots'");
    if (!ok(!bad.timed_out && WIFEXITED(bad.status) && WEXITSTATUS(bad.status) == 2 &&
                count == 1,
            "a torture program prints a configuration error once (%zu times)", count))
        show_output(&bad);
    free(bad.output);
}

/* A torture program run under settings ends with its ": ok (" line. */
static void torture_passes(const char *program, const char *settings, double timeout,
                           const char *what)
{
    run_result result = run_program(program, settings, timeout);
    if (!ok(exited_ok(&result) && strstr(result.output, ": ok ("), "%s", what))
        show_output(&result);
    free(result.output);
}

static void quarantine(void)
{
    free(quarantine_catches("managed, unregistered global", GLOBAL_PROGRAM, NULL, "move-all",
                            "moved to 0x[0-9a-f]+", "broken_unregistered_global"));
    free(quarantine_catches("managed, integer across a poll", BROKEN_PROGRAM, NULL,
                            "move-all,alloc:1", "freed", "broken_hidden_integer"));
    /* Plain C (no corralc): tests/gc/test_quarantine_c.c. */
    /* Correct programs: no false positives, one thread and several. */
    const char *trees_threads[] = {"1", "4"};
    for (int i = 0; i < 2; i++) {
        run_result trees = run_program_with(TREES_PROGRAM, trees_threads[i],
                                            "CORRAL_GC_STRESS=quarantine,move-all", 120);
        if (!ok(exited_ok(&trees) && strstr(trees.output, "trees: ok"),
                "trees on %s thread(s) pass under quarantine,move-all", trees_threads[i]))
            show_output(&trees);
        free(trees.output);
    }
    torture_passes(THREADED_PROGRAM,
                   "CORRAL_GC_STRESS=quarantine,move-all,alloc:random:64 CORRAL_GC_SEED=5 "
                   "TORTURE_WORK=20",
                   240, "list_threads passes under quarantine,move-all,alloc:random");
}

/* CORRAL_GC_VERIFY=satb: list_threads built without corralc --satb-barrier
 * overwrites references the check then names; built with it (the torture
 * build), it passes with references logged. */
static void deletion_barrier(void)
{
    const char *settings = "CORRAL_GC_STRESS=alloc:random:8 CORRAL_GC_VERIFY=satb "
                           "CORRAL_LOG=verify CORRAL_GC_SEED=3 TORTURE_WORK=20";
    run_result bad = run_program(UNLOGGED_PROGRAM, settings, 120);
    if (!ok(WIFSIGNALED(bad.status) &&
                output_matches(bad.output, "corral: verify satb gc [0-9]+: object 0x[0-9a-f]+ of "
                                           "type node was reachable when gc [0-9]+ ended"),
            "satb names an overwrite in code built without --satb-barrier"))
        show_output(&bad);
    free(bad.output);
    run_result good = run_program(THREADED_PROGRAM, settings, 120);
    if (!ok(exited_ok(&good) && strstr(good.output, ": ok (") &&
                output_matches(good.output, "[1-9][0-9]* references logged, 0 not reached"),
            "the same program built with --satb-barrier passes, its overwrites logged"))
        show_output(&good);
    free(good.output);
}

/* Code without a barrier the configuration needs is refused at start,
 * naming a function and the option that builds it (src/code_check.c): the
 * card barrier for CORRAL_GC_GENERATIONAL=1, the deletion barrier for
 * CORRAL_GC_CONCURRENT=1. Without the setting, the same build runs. */
static void refused(const char *program, const char *settings, const char *message,
                    const char *what)
{
    run_result result = run_program(program, settings, 60);
    if (!ok(!exited_ok(&result) && output_matches(result.output, message), "%s", what))
        show_output(&result);
    free(result.output);
}

static void barriers_checked_at_start(void)
{
    refused(UNLOGGED_PROGRAM, "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_CONCURRENT=1",
            "corral: error: executable: function [^ ]+ \\([^)]*list_threads_unlogged\\) was "
            "compiled without the deletion barrier that CORRAL_GC_CONCURRENT=1 needs "
            "\\(statepoint id 0x636f7201\\): build it with corralc --satb-barrier",
            "CORRAL_GC_CONCURRENT=1 refuses code built without --satb-barrier");
    refused(UNCARDED_PROGRAM, "CORRAL_GC_GENERATIONAL=1",
            "corral: error: executable: function [^ ]+ \\([^)]*list_threads_uncarded\\) was "
            "compiled without the card-marking write barrier that CORRAL_GC_GENERATIONAL=1 "
            "needs \\(statepoint id 0x636f7200\\): build it with corralc without "
            "--no-write-barrier",
            "CORRAL_GC_GENERATIONAL=1 refuses code built with --no-write-barrier");
    torture_passes(UNCARDED_PROGRAM, "CORRAL_GC_GENERATIONAL=0", 120,
                   "the same build runs without generations");
    torture_passes(THREADED_PROGRAM,
                   "CORRAL_GC_GENERATIONAL=1 CORRAL_GC_CONCURRENT=1 "
                   "CORRAL_GC_STRESS=alloc:random:8 TORTURE_WORK=20",
                   120, "code built with --satb-barrier runs with CORRAL_GC_CONCURRENT=1");
}

int main(void)
{
    plan(25 + 2 * 4 + 3 + 2 + 4);
    broken_program();
    replayed_schedule();
    stress_log_lines();
    configuration_error_once();
    quarantine();
    deletion_barrier();
    barriers_checked_at_start();
    return done_testing();
}
