/* fuzz_config.c — libFuzzer target for the configuration parser (src/config.c).
 *
 * The input is split at NUL and newline bytes into environment entries
 * ("CORRAL_HEAP_MAX=1G"), at most MAX_ENTRIES of them; an entry
 * "option:FIELD=NUMBER" sets a corral_options field instead, so options and
 * the environment are fuzzed together. corral_config_load must never crash,
 * leak or read out of bounds, and whatever it accepts must satisfy the
 * table's ranges and read back through corral_config_format_stress.
 *
 * Build with -DCORRAL_FUZZ=ON (clang-19), then
 *   cmake --build BUILD --target fuzz-config-run      (CORRAL_FUZZ_SECONDS, default 60)
 * or by hand, with the dictionary generated from the table:
 *   BUILD/bin/fuzz_config -dict=BUILD/fuzz/fuzz_config.dict -close_fd_mask=2 \
 *       CORPUS tests/fuzz/corpus/config
 * -close_fd_mask=2 silences the "corral: error:" lines; sanitizer reports still print.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fatal.h" /* corral_error_message: what corral_last_error() returns */

enum { MAX_ENTRIES = 64 };

#define CHECK(condition)                                                                   \
    do {                                                                                   \
        if (!(condition)) {                                                                \
            fprintf(stdout, "fuzz_config: invariant failed: %s\n", #condition);            \
            fflush(stdout);                                                                \
            __builtin_trap();                                                              \
        }                                                                                  \
    } while (0)

/* "option:heap_min=123" sets options->heap_min; returns whether entry was one. */
static int parse_option(const char *entry, corral_options *options)
{
    static const char prefix[] = "option:";
    if (strncmp(entry, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *field = entry + sizeof prefix - 1;
    const char *equals = strchr(field, '=');
    if (!equals)
        return 1;
    unsigned long long value = strtoull(equals + 1, NULL, 10);
    size_t length = (size_t)(equals - field);
#define FUZZ_OPTION(name)                                                                  \
    if (length == sizeof #name - 1 && memcmp(field, #name, length) == 0)                    \
        options->name = (__typeof__(options->name))value;
    FUZZ_OPTION(heap_min)
    FUZZ_OPTION(heap_max)
    FUZZ_OPTION(gc_threads)
    FUZZ_OPTION(tlab_size)
    FUZZ_OPTION(large_object_size)
    return 1;
}

/* The stress fields survive format -> parse unchanged. */
static void check_stress_round_trip(const corral_config *config)
{
    char text[256], entry[300];
    corral_config_format_stress(config, text, sizeof text);
    CHECK(strlen(text) < sizeof text - 1); /* never truncated: every mode fits */
    if (text[0] == '\0') {
        CHECK(!config->stress_alloc_every && !config->stress_thread_alloc_every &&
              !config->stress_alloc_random_mean && !config->stress_polls &&
              !config->stress_transitions && !config->stress_move_all && !config->stress_poison);
        return;
    }
    snprintf(entry, sizeof entry, "CORRAL_GC_STRESS=%s", text);
    char *envp[] = {entry, NULL};
    corral_config again;
    CHECK(corral_config_load(&again, NULL, envp) == CORRAL_OK);
    CHECK(again.stress_alloc_every == config->stress_alloc_every);
    CHECK(again.stress_thread_alloc_every == config->stress_thread_alloc_every);
    CHECK(again.stress_alloc_random_mean == config->stress_alloc_random_mean);
    CHECK(again.stress_polls == config->stress_polls);
    CHECK(again.stress_transitions == config->stress_transitions);
    CHECK(again.stress_move_all == config->stress_move_all);
    CHECK(again.stress_poison == config->stress_poison);
}

/* What a successful load promises. */
static void check_accepted(const corral_config *config)
{
    CHECK(config->heap_min >= CORRAL_MiB(1) && config->heap_min <= CORRAL_GiB(32));
    CHECK(config->heap_max >= CORRAL_MiB(4) && config->heap_max <= CORRAL_GiB(32));
    CHECK(config->heap_min <= config->heap_max);
    CHECK(config->gc_threads >= 1 && config->gc_threads <= 256);
    CHECK(config->tlab_size >= CORRAL_KiB(4) && config->tlab_size <= CORRAL_MiB(1));
    CHECK(config->large_object_size >= CORRAL_KiB(1) && config->large_object_size <= CORRAL_KiB(64));
    CHECK(config->heap_expansiveness <= 10000);
    CHECK(config->dense_prefix <= 100);
    CHECK(memchr(config->log_file, '\0', sizeof config->log_file) != NULL);
    CHECK(config->gc_heap_per_worker >= 1 && config->gc_heap_per_worker <= CORRAL_GiB(32));
    CHECK(config->poll_mode == CORRAL_POLL_MODE_LOAD);
    CHECK((config->log & ~(unsigned)(CORRAL_LOG_GC | CORRAL_LOG_PHASES | CORRAL_LOG_STRESS |
                                     CORRAL_LOG_THREADS | CORRAL_LOG_VERIFY)) == 0);
    int schedules = !!config->stress_alloc_every + !!config->stress_thread_alloc_every +
                    !!config->stress_alloc_random_mean;
    CHECK(schedules <= 1);
    check_stress_round_trip(config);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *envp[MAX_ENTRIES + 1];
    size_t count = 0;
    corral_options options = {0};
    char *start = copy;
    for (size_t i = 0; i <= size && count < MAX_ENTRIES; i++) {
        if (i < size && copy[i] != '\0' && copy[i] != '\n')
            continue;
        copy[i] = '\0';
        if (!parse_option(start, &options))
            envp[count++] = start;
        start = copy + i + 1;
    }
    envp[count] = NULL;

    corral_config config;
    int status = corral_config_load(&config, &options, envp);
    if (status == CORRAL_OK)
        check_accepted(&config);
    else
        CHECK(status == CORRAL_ERROR_CONFIG && corral_error_message()[0] != '\0');
    free(copy);
    return 0;
}
