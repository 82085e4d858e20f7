/* test_config.c — the configuration table, CORRAL_* parsing, help and docs/env.md.
 *
 * Every error message is compared in full: the messages are the user interface.
 * A randomised round trip (stress lists, sizes) takes a seed: argv[1] or TAP_SEED.
 */
#include "tap.h"

#include "config.h"

#define ENV(...) ((char *const[]){__VA_ARGS__, NULL})

static char *const empty_env[] = {NULL};

/* What each kind of knob accepts, as the messages end. */
#define SIZE_TEXT "a size in bytes with an optional k, M or G suffix, "
#define HEAP_MIN_ACCEPTS "expected " SIZE_TEXT "from 1M to 32G (or 0 for auto)"
#define HEAP_MAX_ACCEPTS "expected " SIZE_TEXT "from 4M to 32G (or 0 for auto)"
#define TLAB_ACCEPTS "expected " SIZE_TEXT "from 4K to 1M"
#define GC_THREADS_ACCEPTS "expected an integer from 1 to 256 (or 0 for auto)"
#define SEED_ACCEPTS "expected an integer from 0 to 18446744073709551615"
#define EXPANSIVENESS_ACCEPTS "expected an integer from 0 to 10000"
#define DENSE_ACCEPTS "expected a percentage from 0 to 100, with or without %"
#define BOOL_ACCEPTS "expected 1, 0, true, false, yes, no, on or off, in any case"
#define LOG_ACCEPTS "expected a comma-separated list of: gc, phases, stress, threads, verify, all"
#define VERIFY_ACCEPTS "expected a comma-separated list of: before, after, remark, satb, all"
#define POLL_ACCEPTS "expected one of: load"
#define FENCE_ACCEPTS "expected one of: fence, membarrier"
#define LOG_FILE_ACCEPTS "expected any text of at most 4095 bytes (empty for stderr)"
#define STRESS_ACCEPTS                                                                     \
    "expected a comma-separated list of modes: alloc:N, thread-alloc:N, "                  \
    "alloc:random[:MEAN], polls, transitions, move-all, poison, quarantine[:N], minor, "   \
    "mixed[:N]; N and MEAN are integers >= 1; at most one allocation schedule: alloc, "    \
    "thread-alloc, alloc:random; at most one collection kind: minor, mixed"
#define HELP_HINT "; CORRAL_HELP=1 lists every variable"

static int load(corral_config *config, const corral_options *options, char *const *envp)
{
    return corral_config_load(config, options, envp);
}

/* One test: loading fails with exactly this message. */
static void expect_error(const corral_options *options, char *const *envp, const char *expected,
                         const char *name)
{
    corral_config config;
    int status = load(&config, options, envp);
    const char *got = corral_last_error();
    if (!ok(status == CORRAL_ERROR_CONFIG && strcmp(got, expected) == 0, "error: %s", name))
        diag("status %d\n     got: %s\nexpected: %s", status, got, expected);
}

/* Test names are one TAP line: control characters in an entry are shown escaped. */
static void expect_env_error(const char *entry, const char *expected)
{
    char name[128];
    size_t length = 0;
    for (const char *c = entry; *c && length + 5 < sizeof name; c++)
        length += (size_t)snprintf(name + length, sizeof name - length,
                                   (unsigned char)*c < 0x20 ? "\\x%02x" : "%c", *c);
    name[length] = '\0';
    expect_error(NULL, ENV((char *)entry), expected, name);
}

/* Loads one variable and returns the config; a failure to load is a failed test. */
static corral_config load_one(const char *entry)
{
    corral_config config;
    int status = load(&config, NULL, ENV((char *)entry));
    if (status != CORRAL_OK) {
        fail("%s loads", entry);
        diag("unexpected error: %s", corral_last_error());
    }
    return config;
}

static size_t physical_half(void)
{
    return (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE) / 2;
}

static void test_defaults(void)
{
    corral_config config;
    is_int(load(&config, NULL, empty_env), CORRAL_OK, "empty environment loads");
    is_int(config.heap_min, CORRAL_MiB(16), "default heap_min 16M (auto, with an auto heap_max)");
    size_t expected_max = physical_half();
    if (expected_max > CORRAL_GiB(32))
        expected_max = CORRAL_GiB(32);
    if (expected_max < CORRAL_MiB(16))
        expected_max = CORRAL_MiB(16);
    is_int(config.heap_max, expected_max, "default heap_max: half of physical memory, <= 32G");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    ok(config.gc_threads >= 1 && config.gc_threads <= 8 && config.gc_threads <= (unsigned)cpus,
       "default gc_threads %u: between 1 and min(online CPUs %ld, 8)", config.gc_threads, cpus);
    is_int(config.tlab_size, CORRAL_KiB(32), "default tlab_size 32K");
    is_int(config.large_object_size, CORRAL_KiB(8), "default large_object_size 8K");
    is_int(config.heap_expansiveness, 16, "default heap_expansiveness 16");
    is_int(config.dense_prefix, 90, "default dense_prefix 90");
    is_int(config.log, 0, "default log: nothing");
    is_str(config.log_file, "", "default log_file: empty (stderr)");
    is_int(config.stats, 0, "default stats off");
    is_int(config.verify, 0, "default verify: nothing");
    ok(!config.stress_alloc_every && !config.stress_thread_alloc_every &&
           !config.stress_alloc_random_mean && !config.stress_polls &&
           !config.stress_transitions && !config.stress_move_all && !config.stress_poison,
       "default stress: every mode off");
    is_int(config.seed, 0, "default seed 0 (from the clock)");
    is_int(config.poll_mode, CORRAL_POLL_MODE_LOAD, "default poll_mode load");
    is_int(config.transition_fence, CORRAL_TRANSITION_FENCE_FENCE, "default transition_fence fence");
    is_int(config.help, 0, "default help off");
    is_int(load(&config, NULL, NULL), CORRAL_OK, "a NULL envp is an empty environment");
}

static void test_sizes(void)
{
    static const struct { const char *entry; uint64_t bytes; } cases[] = {
        {"CORRAL_HEAP_MIN=1048576", CORRAL_MiB(1)},  {"CORRAL_HEAP_MIN=1M", CORRAL_MiB(1)},
        {"CORRAL_HEAP_MIN=1m", CORRAL_MiB(1)},       {"CORRAL_HEAP_MIN=1024k", CORRAL_MiB(1)},
        {"CORRAL_HEAP_MIN=1024K", CORRAL_MiB(1)},    {"CORRAL_HEAP_MIN=2g", CORRAL_GiB(2)},
        {"CORRAL_HEAP_MIN=32G", CORRAL_GiB(32)},     {"CORRAL_HEAP_MIN=0016M", CORRAL_MiB(16)},
        {"CORRAL_HEAP_MIN=1536K", CORRAL_KiB(1536)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        corral_config config = load_one(cases[i].entry);
        is_int(config.heap_min, cases[i].bytes, "size: %s", cases[i].entry);
    }
    corral_config config;
    is_int(load(&config, NULL, ENV("CORRAL_HEAP_MIN=1M", "CORRAL_HEAP_MAX=4M")), CORRAL_OK,
           "heap_max lower bound 4M (with heap_min 1M)");
    is_int(config.heap_max, CORRAL_MiB(4), "... gives 4M");
    is_int(load_one("CORRAL_HEAP_MAX=32G").heap_max, CORRAL_GiB(32), "heap_max upper bound 32G");
    is_int(load_one("CORRAL_TLAB_SIZE=4K").tlab_size, CORRAL_KiB(4), "tlab_size lower bound 4K");
    is_int(load_one("CORRAL_TLAB_SIZE=1M").tlab_size, CORRAL_MiB(1), "tlab_size upper bound 1M");
    is_int(load_one("CORRAL_LARGE_OBJECT_SIZE=1K").large_object_size, CORRAL_KiB(1),
           "large_object_size lower bound 1K");
    is_int(load_one("CORRAL_LARGE_OBJECT_SIZE=65536").large_object_size, CORRAL_KiB(64),
           "large_object_size upper bound 64K");
    config = load_one("CORRAL_HEAP_MAX=0");
    ok(config.heap_max >= CORRAL_MiB(16) && config.heap_max <= CORRAL_GiB(32),
       "CORRAL_HEAP_MAX=0 resolves to auto (%zu bytes)", config.heap_max);
    config = load_one("CORRAL_HEAP_MIN=32G");
    is_int(config.heap_max, CORRAL_GiB(32), "auto heap_max is at least heap_min");
}

static void test_integers(void)
{
    is_int(load_one("CORRAL_GC_THREADS=1").gc_threads, 1, "gc_threads 1");
    is_int(load_one("CORRAL_GC_THREADS=256").gc_threads, 256, "gc_threads 256");
    unsigned automatic = load_one("CORRAL_GC_THREADS=0").gc_threads;
    ok(automatic >= 1 && automatic <= 8, "CORRAL_GC_THREADS=0 resolves to auto (%u)", automatic);
    is_int(load_one("CORRAL_GC_SEED=0").seed, 0, "seed 0 stays 0");
    ok(load_one("CORRAL_GC_SEED=18446744073709551615").seed == UINT64_MAX, "seed UINT64_MAX");
    is_int(load_one("CORRAL_GC_SEED=42").seed, 42, "seed 42");
    is_int(load_one("CORRAL_HEAP_EXPANSIVENESS=0").heap_expansiveness, 0, "expansiveness 0");
    is_int(load_one("CORRAL_HEAP_EXPANSIVENESS=10000").heap_expansiveness, 10000,
           "expansiveness upper bound 10000");
    is_int(load_one("CORRAL_DENSE_PREFIX=50%").dense_prefix, 50, "percent with a %% sign");
    is_int(load_one("CORRAL_DENSE_PREFIX=0").dense_prefix, 0, "dense_prefix 0 (off)");
    is_int(load_one("CORRAL_DENSE_PREFIX=100").dense_prefix, 100, "dense_prefix 100");
}

static void test_bools(void)
{
    static const char *const yes[] = {"1", "true", "TRUE", "yes", "Yes", "on", "ON"};
    static const char *const no[] = {"0", "false", "False", "no", "NO", "off", "oFf"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        char entry[64];
        snprintf(entry, sizeof entry, "CORRAL_STATS=%s", yes[i]);
        is_int(load_one(entry).stats, 1, "bool true: %s", entry);
        snprintf(entry, sizeof entry, "CORRAL_HELP=%s", no[i]);
        is_int(load_one(entry).help, 0, "bool false: %s", entry);
    }
}

static void test_strings(void)
{
    is_str(load_one("CORRAL_LOG_FILE=/tmp/gc.log").log_file, "/tmp/gc.log", "log_file path");
    is_str(load_one("CORRAL_LOG_FILE=").log_file, "", "an empty string value is allowed");
    static char entry[sizeof "CORRAL_LOG_FILE=" + CORRAL_CONFIG_STRING_MAX];
    int prefix = snprintf(entry, sizeof entry, "CORRAL_LOG_FILE=");
    memset(entry + prefix, 'x', CORRAL_CONFIG_STRING_MAX - 1);
    entry[prefix + CORRAL_CONFIG_STRING_MAX - 1] = '\0';
    is_int(strlen(load_one(entry).log_file), CORRAL_CONFIG_STRING_MAX - 1,
           "log_file of 4095 bytes fits");
    entry[prefix + CORRAL_CONFIG_STRING_MAX - 1] = 'x';
    entry[prefix + CORRAL_CONFIG_STRING_MAX] = '\0';
    char expected[256];
    snprintf(expected, sizeof expected,
             "CORRAL_LOG_FILE='%.64s...': too long (4096 bytes); " LOG_FILE_ACCEPTS, entry + prefix);
    expect_error(NULL, ENV(entry), expected, "CORRAL_LOG_FILE of 4096 bytes");
}

static void test_words(void)
{
    is_int(load_one("CORRAL_POLL_MODE=load").poll_mode, CORRAL_POLL_MODE_LOAD, "poll_mode load");
    is_int(load_one("CORRAL_TRANSITION_FENCE=fence").transition_fence,
           CORRAL_TRANSITION_FENCE_FENCE, "transition_fence fence");
    is_int(load_one("CORRAL_TRANSITION_FENCE=membarrier").transition_fence,
           CORRAL_TRANSITION_FENCE_MEMBARRIER, "transition_fence membarrier");
    static const struct { const char *entry; unsigned log; } logs[] = {
        {"CORRAL_LOG=gc", CORRAL_LOG_GC},           {"CORRAL_LOG=phases", CORRAL_LOG_PHASES},
        {"CORRAL_LOG=stress", CORRAL_LOG_STRESS},   {"CORRAL_LOG=threads", CORRAL_LOG_THREADS},
        {"CORRAL_LOG=verify", CORRAL_LOG_VERIFY},   {"CORRAL_LOG=gc,threads", CORRAL_LOG_GC | CORRAL_LOG_THREADS},
        {"CORRAL_LOG=all", CORRAL_LOG_GC | CORRAL_LOG_PHASES | CORRAL_LOG_STRESS |
                               CORRAL_LOG_THREADS | CORRAL_LOG_VERIFY},
        {"CORRAL_LOG=all,gc", CORRAL_LOG_GC | CORRAL_LOG_PHASES | CORRAL_LOG_STRESS |
                                  CORRAL_LOG_THREADS | CORRAL_LOG_VERIFY},
    };
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
        is_int(load_one(logs[i].entry).log, logs[i].log, "flags: %s", logs[i].entry);
    ok((CORRAL_LOG_GC & CORRAL_LOG_PHASES) == 0 && CORRAL_LOG_VERIFY == 1u << 4,
       "flag words get distinct bits in table order");
    is_int(load_one("CORRAL_GC_VERIFY=before").verify, CORRAL_VERIFY_BEFORE, "verify before");
    is_int(load_one("CORRAL_GC_VERIFY=after,remark").verify,
           CORRAL_VERIFY_AFTER | CORRAL_VERIFY_REMARK, "verify after,remark");
    is_int(load_one("CORRAL_GC_VERIFY=all").verify,
           CORRAL_VERIFY_BEFORE | CORRAL_VERIFY_AFTER | CORRAL_VERIFY_REMARK | CORRAL_VERIFY_SATB,
           "verify all");
}

static void expect_stress(const char *value, const char *formatted)
{
    char entry[256], buffer[256];
    snprintf(entry, sizeof entry, "CORRAL_GC_STRESS=%s", value);
    corral_config config = load_one(entry);
    corral_config_format_stress(&config, buffer, sizeof buffer);
    is_str(buffer, formatted, "stress '%s' reads back as '%s'", value, formatted);
}

static void test_stress(void)
{
    corral_config config = load_one("CORRAL_GC_STRESS=alloc:1000");
    ok(config.stress_alloc_every == 1000 && !config.stress_thread_alloc_every &&
           !config.stress_alloc_random_mean, "alloc:1000 sets stress_alloc_every only");
    config = load_one("CORRAL_GC_STRESS=thread-alloc:7");
    is_int(config.stress_thread_alloc_every, 7, "thread-alloc:7");
    config = load_one("CORRAL_GC_STRESS=alloc:random");
    ok(config.stress_alloc_random_mean == 1000 && !config.stress_alloc_every,
       "alloc:random has mean 1000");
    is_int(load_one("CORRAL_GC_STRESS=alloc:random:50").stress_alloc_random_mean, 50,
           "alloc:random:50");
    config = load_one("CORRAL_GC_STRESS=polls,transitions,move-all,poison");
    ok(config.stress_polls && config.stress_transitions && config.stress_move_all &&
           config.stress_poison && !config.stress_alloc_every,
       "the flag modes combine");
    expect_stress("alloc:1000,move-all", "alloc:1000,move-all");
    expect_stress("poison,alloc:1", "alloc:1,poison");
    expect_stress("alloc:random,polls", "alloc:random:1000,polls");
    expect_stress("transitions,thread-alloc:3", "thread-alloc:3,transitions");
    expect_stress("quarantine,move-all", "move-all,quarantine:2");
    expect_stress("quarantine:5", "quarantine:5");
    char buffer[32];
    corral_config none = load_one("CORRAL_STATS=0");
    corral_config_format_stress(&none, buffer, sizeof buffer);
    is_str(buffer, "", "no stress mode formats as ''");
    config = load_one("CORRAL_GC_STRESS=alloc:1000,move-all");
    corral_config_format_stress(&config, buffer, 8);
    is_str(buffer, "alloc:1", "format_stress truncates to the buffer");
    corral_config_format_stress(&config, buffer, 1);
    is_str(buffer, "", "a 1-byte buffer gets ''");
    buffer[0] = 'z';
    corral_config_format_stress(&config, buffer, 0);
    is_int(buffer[0], 'z', "a 0-byte buffer is not written");
}

/* Every kind of error a user can make, with its full message. */
static void test_value_errors(void)
{
    static const struct { const char *entry, *message; } cases[] = {
        {"CORRAL_HEAP_MAX=12Q", "CORRAL_HEAP_MAX='12Q': " HEAP_MAX_ACCEPTS},
        {"CORRAL_HEAP_MIN=5MB", "CORRAL_HEAP_MIN='5MB': " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MIN=1.5G", "CORRAL_HEAP_MIN='1.5G': " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MIN=+16M", "CORRAL_HEAP_MIN='+16M': " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MIN=-16M", "CORRAL_HEAP_MIN='-16M': " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MIN= 16M", "CORRAL_HEAP_MIN=' 16M': " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MIN=16M ", "CORRAL_HEAP_MIN='16M ': " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MIN=0x100000", "CORRAL_HEAP_MIN='0x100000': " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MIN=M", "CORRAL_HEAP_MIN='M': " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MIN=16T", "CORRAL_HEAP_MIN='16T': " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MIN=1023K", "CORRAL_HEAP_MIN='1023K': out of range; " HEAP_MIN_ACCEPTS},
        {"CORRAL_HEAP_MAX=33G", "CORRAL_HEAP_MAX='33G': out of range; " HEAP_MAX_ACCEPTS},
        {"CORRAL_HEAP_MAX=3M", "CORRAL_HEAP_MAX='3M': out of range; " HEAP_MAX_ACCEPTS},
        {"CORRAL_HEAP_MAX=18446744073709551616",
         "CORRAL_HEAP_MAX='18446744073709551616': too large; " HEAP_MAX_ACCEPTS},
        {"CORRAL_HEAP_MAX=17179869184G",
         "CORRAL_HEAP_MAX='17179869184G': too large; " HEAP_MAX_ACCEPTS},
        {"CORRAL_TLAB_SIZE=2M", "CORRAL_TLAB_SIZE='2M': out of range; " TLAB_ACCEPTS},
        {"CORRAL_GC_THREADS=257", "CORRAL_GC_THREADS='257': out of range; " GC_THREADS_ACCEPTS},
        {"CORRAL_GC_THREADS=auto", "CORRAL_GC_THREADS='auto': " GC_THREADS_ACCEPTS},
        {"CORRAL_GC_THREADS=4k", "CORRAL_GC_THREADS='4k': " GC_THREADS_ACCEPTS},
        {"CORRAL_GC_SEED=18446744073709551616",
         "CORRAL_GC_SEED='18446744073709551616': too large; " SEED_ACCEPTS},
        {"CORRAL_HEAP_EXPANSIVENESS=10001",
         "CORRAL_HEAP_EXPANSIVENESS='10001': out of range; " EXPANSIVENESS_ACCEPTS},
        {"CORRAL_HEAP_EXPANSIVENESS=1.5", "CORRAL_HEAP_EXPANSIVENESS='1.5': " EXPANSIVENESS_ACCEPTS},
        {"CORRAL_HEAP_EXPANSIVENESS=-1", "CORRAL_HEAP_EXPANSIVENESS='-1': " EXPANSIVENESS_ACCEPTS},
        {"CORRAL_DENSE_PREFIX=%", "CORRAL_DENSE_PREFIX='%': " DENSE_ACCEPTS},
        {"CORRAL_DENSE_PREFIX=101", "CORRAL_DENSE_PREFIX='101': out of range; " DENSE_ACCEPTS},
        {"CORRAL_STATS=2", "CORRAL_STATS='2': " BOOL_ACCEPTS},
        {"CORRAL_STATS=enable", "CORRAL_STATS='enable': " BOOL_ACCEPTS},
        {"CORRAL_POLL_MODE=trap",
         "CORRAL_POLL_MODE='trap': unknown word 'trap'; " POLL_ACCEPTS},
        {"CORRAL_POLL_MODE=Load",
         "CORRAL_POLL_MODE='Load': unknown word 'Load' (did you mean 'load'?); " POLL_ACCEPTS},
        {"CORRAL_POLL_MODE=signal", "CORRAL_POLL_MODE='signal': unknown word 'signal'; " POLL_ACCEPTS},
        {"CORRAL_TRANSITION_FENCE=membarier",
         "CORRAL_TRANSITION_FENCE='membarier': unknown word 'membarier' (did you mean "
         "'membarrier'?); " FENCE_ACCEPTS},
        {"CORRAL_LOG=gc,phase",
         "CORRAL_LOG='gc,phase': unknown item 'phase' (did you mean 'phases'?); " LOG_ACCEPTS},
        {"CORRAL_LOG=everything", "CORRAL_LOG='everything': unknown item 'everything'; " LOG_ACCEPTS},
        {"CORRAL_LOG=gc,,phases", "CORRAL_LOG='gc,,phases': empty item; " LOG_ACCEPTS},
        {"CORRAL_LOG=,gc", "CORRAL_LOG=',gc': empty item; " LOG_ACCEPTS},
        {"CORRAL_LOG=gc,", "CORRAL_LOG='gc,': empty item; " LOG_ACCEPTS},
        {"CORRAL_LOG=gc,gc", "CORRAL_LOG='gc,gc': 'gc' is listed twice; " LOG_ACCEPTS},
        {"CORRAL_LOG=all,all", "CORRAL_LOG='all,all': 'all' is listed twice; " LOG_ACCEPTS},
        {"CORRAL_LOG=GC", "CORRAL_LOG='GC': unknown item 'GC' (did you mean 'gc'?); " LOG_ACCEPTS},
        {"CORRAL_GC_VERIFY=befor",
         "CORRAL_GC_VERIFY='befor': unknown item 'befor' (did you mean 'before'?); " VERIFY_ACCEPTS},
        {"CORRAL_GC_STRESS=alloc:10,alloc:20",
         "CORRAL_GC_STRESS='alloc:10,alloc:20': 'alloc' is listed twice; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=polls,move-all,polls",
         "CORRAL_GC_STRESS='polls,move-all,polls': 'polls' is listed twice; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=alloc:10,alloc:random",
         "CORRAL_GC_STRESS='alloc:10,alloc:random': 'alloc:random' conflicts with 'alloc' "
         "(at most one allocation schedule); " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=thread-alloc:1,alloc:1",
         "CORRAL_GC_STRESS='thread-alloc:1,alloc:1': 'alloc' conflicts with 'thread-alloc' "
         "(at most one allocation schedule); " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=alloc:0",
         "CORRAL_GC_STRESS='alloc:0': item 'alloc:0': alloc:N needs an integer N >= 1; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=alloc",
         "CORRAL_GC_STRESS='alloc': item 'alloc': alloc:N needs an integer N >= 1; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=alloc:",
         "CORRAL_GC_STRESS='alloc:': item 'alloc:': alloc:N needs an integer N >= 1; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=alloc:1k",
         "CORRAL_GC_STRESS='alloc:1k': item 'alloc:1k': alloc:N needs an integer N >= 1; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=alloc:randm",
         "CORRAL_GC_STRESS='alloc:randm': item 'alloc:randm': alloc:N needs an integer N >= 1; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=alloc:random:0",
         "CORRAL_GC_STRESS='alloc:random:0': item 'alloc:random:0': alloc:random:MEAN needs an "
         "integer MEAN >= 1; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=polls:3",
         "CORRAL_GC_STRESS='polls:3': item 'polls:3': 'polls' takes no argument; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=move_all",
         "CORRAL_GC_STRESS='move_all': unknown mode 'move_all' (did you mean 'move-all'?); " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=everything",
         "CORRAL_GC_STRESS='everything': unknown mode 'everything'; " STRESS_ACCEPTS},
        {"CORRAL_GC_STRESS=polls,", "CORRAL_GC_STRESS='polls,': empty item; " STRESS_ACCEPTS},
        {"CORRAL_HEAP_MIN=", "CORRAL_HEAP_MIN='': empty value; " HEAP_MIN_ACCEPTS},
        {"CORRAL_STATS=", "CORRAL_STATS='': empty value; " BOOL_ACCEPTS},
        {"CORRAL_LOG=", "CORRAL_LOG='': empty value; " LOG_ACCEPTS},
        {"CORRAL_GC_STRESS=", "CORRAL_GC_STRESS='': empty value; " STRESS_ACCEPTS},
        {"CORRAL_POLL_MODE=", "CORRAL_POLL_MODE='': empty value; " POLL_ACCEPTS},
        {"CORRAL_POLL_MODE=lo\nad\x1b[2J",
         "CORRAL_POLL_MODE='lo\\x0aad\\x1b[2J': unknown word 'lo\\x0aad\\x1b[2J'; " POLL_ACCEPTS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_env_error(cases[i].entry, cases[i].message);
    char entry[256], expected[512];
    snprintf(entry, sizeof entry, "CORRAL_POLL_MODE=%0200d", 7);
    snprintf(expected, sizeof expected, "CORRAL_POLL_MODE='%.64s...': unknown word '%.64s...'; " POLL_ACCEPTS,
             entry + 17, entry + 17);
    expect_error(NULL, ENV(entry), expected, "a long value is cut to 64 bytes in the message");
}

static void test_name_errors(void)
{
    static const struct { const char *entry, *message; } cases[] = {
        {"CORRAL_HEAP_MXA=1G",
         "unknown variable CORRAL_HEAP_MXA (did you mean CORRAL_HEAP_MAX?)" HELP_HINT},
        {"CORRAL_GC_THRAEDS=2",
         "unknown variable CORRAL_GC_THRAEDS (did you mean CORRAL_GC_THREADS?)" HELP_HINT},
        {"CORRAL_heap_min=16M",
         "unknown variable CORRAL_heap_min (did you mean CORRAL_HEAP_MIN?)" HELP_HINT},
        {"CORRAL_STRESS=alloc:1",
         "unknown variable CORRAL_STRESS (did you mean CORRAL_GC_STRESS?)" HELP_HINT},
        {"CORRAL_VERIFY=after",
         "unknown variable CORRAL_VERIFY (did you mean CORRAL_GC_VERIFY?)" HELP_HINT},
        {"CORRAL_TLAB=64K", "unknown variable CORRAL_TLAB (did you mean CORRAL_TLAB_SIZE?)" HELP_HINT},
        {"CORRAL_LARGE_OBJECT=64K",
         "unknown variable CORRAL_LARGE_OBJECT (did you mean CORRAL_LARGE_OBJECT_SIZE?)" HELP_HINT},
        {"CORRAL_SEED=7", "unknown variable CORRAL_SEED (did you mean CORRAL_GC_SEED?)" HELP_HINT},
        {"CORRAL_FOO=1", "unknown variable CORRAL_FOO" HELP_HINT},
        {"CORRAL_BENCHMARK_MODE=fast", "unknown variable CORRAL_BENCHMARK_MODE" HELP_HINT},
        {"CORRAL_=1", "unknown variable CORRAL_" HELP_HINT},
        {"CORRAL_HEAP_MAX\n=1", "unknown variable CORRAL_HEAP_MAX\\x0a (did you mean CORRAL_HEAP_MAX?)" HELP_HINT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_env_error(cases[i].entry, cases[i].message);
    expect_error(NULL, ENV("CORRAL_HEAP_MAX=2G", "PATH=/bin", "CORRAL_HEAP_MAX=3G"),
                 "CORRAL_HEAP_MAX is set twice in the environment ('2G' and '3G')",
                 "a variable set twice");
    expect_error(NULL, ENV("CORRAL_LOG=bad", "CORRAL_HEAP_MIN=bad", "CORRAL_FOO=1"),
                 "CORRAL_LOG='bad': unknown item 'bad'; " LOG_ACCEPTS,
                 "several errors: the first one in envp order is reported");
}

static void test_ignored_entries(void)
{
    corral_config config;
    int status = load(&config, NULL,
                      ENV("PATH=/usr/bin", "TAP_SEED=12", "corral_heap_max=1", "CORRALX=1",
                          "CORRAL=1", "CORRAL_HEAP_MIN", "CORRAL_NO_EQUALS_SIGN", "=CORRAL_X=1",
                          "CORRAL_HEAP_MIN=32M"));
    is_int(status, CORRAL_OK, "entries that are not CORRAL_NAME=VALUE are ignored");
    is_int(config.heap_min, CORRAL_MiB(32), "... and CORRAL_HEAP_MIN=32M among them is read");
}

static void test_precedence(void)
{
    corral_options options = {.heap_min = CORRAL_MiB(32), .heap_max = CORRAL_GiB(1),
                              .gc_threads = 3, .tlab_size = CORRAL_KiB(64),
                              .large_object_size = CORRAL_KiB(16)};
    corral_config config;
    is_int(load(&config, &options, empty_env), CORRAL_OK, "options alone load");
    ok(config.heap_min == CORRAL_MiB(32) && config.heap_max == CORRAL_GiB(1) &&
           config.gc_threads == 3 && config.tlab_size == CORRAL_KiB(64) &&
           config.large_object_size == CORRAL_KiB(16),
       "non-zero options replace the defaults");
    is_int(load(&config, &options, ENV("CORRAL_HEAP_MIN=64M", "CORRAL_GC_THREADS=5")), CORRAL_OK,
           "options and environment load");
    ok(config.heap_min == CORRAL_MiB(64) && config.gc_threads == 5 &&
           config.heap_max == CORRAL_GiB(1) && config.tlab_size == CORRAL_KiB(64),
       "the environment wins over options; other options stay");
    corral_options zero = {0};
    is_int(load(&config, &zero, empty_env), CORRAL_OK, "all-zero options load");
    ok(config.heap_min == CORRAL_MiB(16) && config.tlab_size == CORRAL_KiB(32) &&
           config.large_object_size == CORRAL_KiB(8) && config.gc_threads >= 1,
       "zero options mean the defaults");
    corral_options bad = {.heap_min = 100};
    expect_error(&bad, empty_env, "corral_options.heap_min=100: out of range; " HEAP_MIN_ACCEPTS,
                 "an out-of-range option");
    corral_options bad_threads = {.gc_threads = 1000};
    expect_error(&bad_threads, ENV("CORRAL_GC_THREADS=2"),
                 "corral_options.gc_threads=1000: out of range; " GC_THREADS_ACCEPTS,
                 "a bad option is an error even when the environment overrides it");
}

static void test_relations(void)
{
    expect_error(NULL, ENV("CORRAL_HEAP_MIN=64M", "CORRAL_HEAP_MAX=32M"),
                 "the minimum heap 64M (CORRAL_HEAP_MIN='64M') is larger than the maximum heap "
                 "32M (CORRAL_HEAP_MAX='32M'); CORRAL_HEAP_MIN must not exceed CORRAL_HEAP_MAX",
                 "heap_min > heap_max, both from the environment");
    corral_options options = {.heap_max = CORRAL_MiB(32)};
    expect_error(&options, ENV("CORRAL_HEAP_MIN=64M"),
                 "the minimum heap 64M (CORRAL_HEAP_MIN='64M') is larger than the maximum heap "
                 "32M (corral_options.heap_max=33554432); CORRAL_HEAP_MIN must not exceed "
                 "CORRAL_HEAP_MAX",
                 "heap_min > heap_max, one from an option");
    corral_config small;
    is_int(load(&small, NULL, ENV("CORRAL_HEAP_MAX=8M")), CORRAL_OK,
           "CORRAL_HEAP_MAX=8M alone is valid");
    is_int(small.heap_min, CORRAL_MiB(4), "... its minimum is derived: half of 8M");
    is_int(load_one("CORRAL_HEAP_MAX=4M").heap_min, CORRAL_MiB(2), "heap_max 4M: minimum 2M");
    is_int(load_one("CORRAL_HEAP_MAX=64M").heap_min, CORRAL_MiB(16), "heap_max 64M: minimum 16M");
    is_int(load_one("CORRAL_HEAP_MIN=4M").heap_min, CORRAL_MiB(4), "an explicit minimum stays");
    corral_options small_option = {.heap_max = CORRAL_MiB(8)};
    is_int(load(&small, &small_option, NULL), CORRAL_OK, "corral_options.heap_max=8M alone is valid");
    is_int(small.heap_min, CORRAL_MiB(4), "... minimum 4M");
    corral_config config;
    is_int(load(&config, NULL, ENV("CORRAL_HEAP_MIN=64M", "CORRAL_HEAP_MAX=64M")), CORRAL_OK,
           "heap_min == heap_max is fine");
}

static void test_help_request(void)
{
    corral_config config;
    int status = load(&config, NULL, ENV("CORRAL_FOO=1", "CORRAL_HELP=1"));
    ok(status == CORRAL_ERROR_CONFIG && config.help,
       "CORRAL_HELP=1 is still seen when another variable is bad");
    status = load(&config, NULL, ENV("CORRAL_HELP=maybe"));
    ok(status == CORRAL_ERROR_CONFIG && !config.help, "CORRAL_HELP=maybe is an error, not help");
    is_int(load_one("CORRAL_HELP=yes").help, 1, "CORRAL_HELP=yes sets help");
}

static char *capture(void (*print)(FILE *))
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    print(out);
    fclose(out);
    return text;
}

#define EXPECT_KNOB_IN_HELP(field, NAME, ...)                                              \
    like_str(help, "\nCORRAL_" #NAME "  (", "help lists CORRAL_" #NAME);                    \
    like_str(markdown, "| `CORRAL_" #NAME "` |", "docs list CORRAL_" #NAME);
#define EXPECT_WORD_IN_HELP(constant, word, ...)                                           \
    like_str(help, "\n      " word " ", "help lists the word " word);                      \
    like_str(markdown, "| `" word "` |", "docs list the word " word);
#define EXPECT_MODE_IN_HELP(field, word, ...)                                              \
    like_str(help, "\n      " word, "help lists the stress mode " word);                   \
    like_str(markdown, "| `" word, "docs list the stress mode " word);
#define EXPECT_WORDS_ENUM(field) CORRAL_CONFIG_WORDS_##field(EXPECT_WORD_IN_HELP)
#define EXPECT_WORDS_FLAGS(field) CORRAL_CONFIG_WORDS_##field(EXPECT_WORD_IN_HELP)
#define EXPECT_WORDS_STRESS(field) CORRAL_STRESS_MODES(EXPECT_MODE_IN_HELP)
#define EXPECT_WORDS_SIZE(field)
#define EXPECT_WORDS_UINT(field)
#define EXPECT_WORDS_UINT64(field)
#define EXPECT_WORDS_PERCENT(field)
#define EXPECT_WORDS_BOOL(field)
#define EXPECT_WORDS_STRING(field)
#define EXPECT_WORDS_IN_HELP(field, NAME, TYPE, ...) EXPECT_WORDS_##TYPE(field)

static void test_help_and_docs(void)
{
    char *help = capture(corral_config_print_help);
    char *markdown = capture(corral_config_print_markdown);
    CORRAL_CONFIG_TABLE(EXPECT_KNOB_IN_HELP)
    CORRAL_CONFIG_TABLE(EXPECT_WORDS_IN_HELP)
    ok(!strstr(help, "(null)") && !strstr(markdown, "(null)"), "no (null) in help or docs");
    like_str(help,
             "CORRAL_HEAP_MAX  (size, default 0 (auto); also corral_options.heap_max)\n"
             "    hard limit of the heap, large objects included; auto = half of physical "
             "memory, at most 32G (and at least CORRAL_HEAP_MIN)\n    accepts a size in bytes with an optional k, M or G "
             "suffix, from 4M to 32G (or 0 for auto)\n",
             "help gives type, default, option, help and range");
    like_str(help, "CORRAL_LOG_FILE  (text, default empty (stderr))", "help: empty string default");
    like_str(help, "CORRAL_GC_STRESS  (list, default none)", "help: empty list default");
    like_str(help, "      alloc:random[:MEAN]    collect after random", "help: stress mode syntax");

    FILE *doc = fopen(CORRAL_SOURCE_DIR "/docs/env.md", "r");
    char *committed = NULL;
    size_t committed_size = 0;
    if (doc) {
        FILE *copy = open_memstream(&committed, &committed_size);
        int c;
        while ((c = fgetc(doc)) != EOF)
            fputc(c, copy);
        fclose(copy);
        fclose(doc);
    }
    if (!ok(committed && strcmp(committed, markdown) == 0,
            "docs/env.md is what corral-config-doc generates")) {
        size_t line = 1, i = 0;
        for (; committed && committed[i] && committed[i] == markdown[i]; i++)
            line += committed[i] == '\n';
        diag("docs/env.md %s at line %zu; regenerate: cmake --build BUILD --target env-doc",
             committed ? "differs" : "is missing", line);
    }
    free(committed);
    free(help);
    free(markdown);
}

static void test_error_goes_to_stderr(FILE *captured)
{
    expect_env_error("CORRAL_HEAP_MXA=1G",
                     "unknown variable CORRAL_HEAP_MXA (did you mean CORRAL_HEAP_MAX?)" HELP_HINT);
    fflush(stderr);
    char line[512] = "";
    fseek(captured, 0, SEEK_SET);
    char last[512] = "";
    while (fgets(line, sizeof line, captured))
        memcpy(last, line, sizeof last);
    is_str(last,
           "corral: error: unknown variable CORRAL_HEAP_MXA (did you mean CORRAL_HEAP_MAX?)"
           HELP_HINT "\n",
           "the error is printed on stderr as 'corral: error: ...'");
}

/* A random value of a size knob, written with a random valid suffix. */
static void random_size(uint64_t *state, uint64_t minimum, uint64_t maximum, char *text,
                        size_t size, uint64_t *bytes)
{
    static const struct { const char *suffix; unsigned shift; } units[] = {
        {"", 0}, {"k", 10}, {"K", 10}, {"m", 20}, {"M", 20}, {"g", 30}, {"G", 30}};
    for (;;) {
        unsigned u = (unsigned)(tap_random(state) % 7);
        uint64_t low = (minimum + (1ull << units[u].shift) - 1) >> units[u].shift;
        uint64_t high = maximum >> units[u].shift;
        if (low > high)
            continue;
        uint64_t count = low + tap_random(state) % (high - low + 1);
        snprintf(text, size, "%" PRIu64 "%s", count, units[u].suffix);
        *bytes = count << units[u].shift;
        return;
    }
}

/* Random valid stress lists in random order parse, format, and parse back the same. */
static void test_random_round_trip(uint64_t seed)
{
    static const char *const flags[] = {"polls", "transitions", "move-all", "poison"};
    uint64_t state = seed;
    int failures = 0;
    for (int round = 0; round < 500 && failures < 3; round++) {
        const char *items[8];
        char schedule[64];
        size_t count = 0;
        unsigned which = (unsigned)(tap_random(&state) % 4);
        uint64_t n = 1 + tap_random(&state) % (tap_random(&state) % 2 ? 10 : UINT64_MAX - 1);
        const char *names[] = {"alloc:%" PRIu64, "thread-alloc:%" PRIu64, "alloc:random:%" PRIu64};
        if (which < 3) {
            snprintf(schedule, sizeof schedule, names[which], n);
            items[count++] = schedule;
        }
        for (size_t f = 0; f < 4; f++) {
            if (tap_random(&state) % 2)
                items[count++] = flags[f];
        }
        for (size_t i = count; i > 1; i--) {
            size_t j = (size_t)(tap_random(&state) % i);
            const char *t = items[i - 1];
            items[i - 1] = items[j];
            items[j] = t;
        }
        char entry[256] = "CORRAL_GC_STRESS=", formatted[256], again[256];
        for (size_t i = 0; i < count; i++)
            snprintf(entry + strlen(entry), sizeof entry - strlen(entry), "%s%s", i ? "," : "",
                     items[i]);
        char size_entry[64], size_text[32];
        uint64_t bytes;
        random_size(&state, CORRAL_MiB(4), CORRAL_GiB(32), size_text, sizeof size_text, &bytes);
        snprintf(size_entry, sizeof size_entry, "CORRAL_HEAP_MAX=%s", size_text);
        corral_config first, second;
        int status = load(&first, NULL, count ? ENV(entry, size_entry, "CORRAL_HEAP_MIN=1M")
                                              : ENV(size_entry, "CORRAL_HEAP_MIN=1M"));
        corral_config_format_stress(&first, formatted, sizeof formatted);
        snprintf(again, sizeof again, "CORRAL_GC_STRESS=%s", formatted);
        int status2 = count ? load(&second, NULL, ENV(again)) : load(&second, NULL, empty_env);
        bool same = status == CORRAL_OK && status2 == CORRAL_OK && first.heap_max == bytes &&
                    first.stress_alloc_every == second.stress_alloc_every &&
                    first.stress_thread_alloc_every == second.stress_thread_alloc_every &&
                    first.stress_alloc_random_mean == second.stress_alloc_random_mean &&
                    first.stress_polls == second.stress_polls &&
                    first.stress_transitions == second.stress_transitions &&
                    first.stress_move_all == second.stress_move_all &&
                    first.stress_poison == second.stress_poison &&
                    (which == 3 || n == (which == 0   ? first.stress_alloc_every
                                         : which == 1 ? first.stress_thread_alloc_every
                                                      : first.stress_alloc_random_mean));
        if (!same) {
            failures++;
            diag("round %d: '%s' %s -> '%s': %s", round, entry, size_entry, formatted,
                 corral_last_error());
        }
    }
    ok(failures == 0, "500 random stress lists and sizes round-trip (seed %" PRIu64 ")", seed);
}

int main(int argc, char **argv)
{
    uint64_t seed = tap_seed(argc, argv);
    /* Every error is also printed on stderr; keep it for one check, off the TAP output. */
    FILE *captured = tmpfile();
    if (!captured)
        bail_out("tmpfile: %s", strerror(errno));
    fflush(stderr);
    int saved_stderr = dup(2);
    dup2(fileno(captured), 2);

    test_defaults();
    test_sizes();
    test_integers();
    test_bools();
    test_strings();
    test_words();
    test_stress();
    test_value_errors();
    test_name_errors();
    test_ignored_entries();
    test_precedence();
    test_relations();
    test_help_request();
    test_help_and_docs();
    test_error_goes_to_stderr(captured);
    test_random_round_trip(seed);

    fflush(stderr);
    dup2(saved_stderr, 2);
    return done_testing();
}
