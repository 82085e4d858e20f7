/* corral-config-doc — prints what the configuration table generates:
 *   corral-config-doc [--markdown] [FILE]   docs/env.md (the default)
 *   corral-config-doc --help-text [FILE]    what CORRAL_HELP=1 prints
 *   corral-config-doc --dict [FILE]         a libFuzzer dictionary for fuzz_config
 * Writes to FILE when given, else to stdout. */
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* Every variable name and value word, so the fuzzer starts from real vocabulary. */
#define DICT_WORD(constant, word, help) fprintf(out, "\"%s\"\n", word);
#define DICT_STRESS_MODE(field, word, ...) fprintf(out, "\"%s\"\n", word);
#define DICT_WORDS_ENUM(field) CORRAL_CONFIG_WORDS_##field(DICT_WORD)
#define DICT_WORDS_FLAGS(field) CORRAL_CONFIG_WORDS_##field(DICT_WORD)
#define DICT_WORDS_STRESS(field) CORRAL_STRESS_MODES(DICT_STRESS_MODE)
#define DICT_WORDS_SIZE(field)
#define DICT_WORDS_UINT(field)
#define DICT_WORDS_UINT64(field)
#define DICT_WORDS_PERCENT(field)
#define DICT_WORDS_BOOL(field)
#define DICT_WORDS_STRING(field)
#define DICT_KNOB(field, NAME, TYPE, ...)                                                  \
    fprintf(out, "\"CORRAL_" #NAME "=\"\n");                                             \
    DICT_WORDS_##TYPE(field)

static void print_dictionary(FILE *out)
{
    CORRAL_CONFIG_TABLE(DICT_KNOB)
    static const char *const extras[] = {"all", "true", "off", ",", ":", "=", "\\x00", "\\x0a",
                                         "k", "M", "G", "%", "18446744073709551615", "CORRAL_"};
    for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++)
        fprintf(out, "\"%s\"\n", extras[i]);
}

int main(int argc, char **argv)
{
    void (*print)(FILE *) = corral_config_print_markdown;
    int arg = 1;
    if (arg < argc && strcmp(argv[arg], "--markdown") == 0)
        arg++;
    else if (arg < argc && strcmp(argv[arg], "--help-text") == 0)
        print = corral_config_print_help, arg++;
    else if (arg < argc && strcmp(argv[arg], "--dict") == 0)
        print = print_dictionary, arg++;
    if (argc - arg > 1 || (arg < argc && argv[arg][0] == '-')) {
        fprintf(stderr, "usage: %s [--markdown | --help-text | --dict] [FILE]\n", argv[0]);
        return 2;
    }
    FILE *out = arg < argc ? fopen(argv[arg], "w") : stdout;
    if (!out) {
        perror(argv[arg]);
        return 1;
    }
    print(out);
    if (fflush(out) != 0 || (out != stdout && fclose(out) != 0)) {
        perror("corral-config-doc: write");
        return 1;
    }
    return 0;
}
