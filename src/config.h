/* config.h — corral's configuration: defaults, corral_options, CORRAL_* variables.
 *
 * Every knob is defined once, in config_table.h; this header generates the
 * struct and the enums from it. corral_init loads the configuration once;
 * afterwards it is read-only.
 *
 * Precedence: the table's default, then a non-zero corral_options field, then
 * the CORRAL_* variable (the environment wins). Parsing is strict: a malformed,
 * out-of-range or empty value, an unknown CORRAL_* name, a variable given twice,
 * or contradictory values (heap min above heap max, two allocation stress
 * schedules) fail the load; a value is never replaced by a default silently.
 */
#ifndef CORRAL_CONFIG_H
#define CORRAL_CONFIG_H

#include <corral.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config_table.h"

/* enum corral_<field> for every ENUM knob (0, 1, ...) and every FLAGS knob (bits). */
#define CORRAL_CONFIG_WORD_CONSTANT(constant, word, help) constant,
#define CORRAL_CONFIG_WORD_INDEX(constant, word, help) constant##_INDEX,
#define CORRAL_CONFIG_WORD_BIT(constant, word, help) constant = 1u << constant##_INDEX,
/* config.c stores ENUM fields as unsigned. */
#define CORRAL_CONFIG_DECLARE_ENUM(field)                                                  \
    enum corral_##field { CORRAL_CONFIG_WORDS_##field(CORRAL_CONFIG_WORD_CONSTANT) };       \
    _Static_assert(sizeof(enum corral_##field) == sizeof(unsigned), #field " fits unsigned");
#define CORRAL_CONFIG_DECLARE_FLAGS(field)                                                 \
    enum { CORRAL_CONFIG_WORDS_##field(CORRAL_CONFIG_WORD_INDEX) };                        \
    enum corral_##field { CORRAL_CONFIG_WORDS_##field(CORRAL_CONFIG_WORD_BIT) };
#define CORRAL_CONFIG_DECLARE_SIZE(field)
#define CORRAL_CONFIG_DECLARE_UINT(field)
#define CORRAL_CONFIG_DECLARE_UINT64(field)
#define CORRAL_CONFIG_DECLARE_PERCENT(field)
#define CORRAL_CONFIG_DECLARE_BOOL(field)
#define CORRAL_CONFIG_DECLARE_STRING(field)
#define CORRAL_CONFIG_DECLARE_STRESS(field)
#define CORRAL_CONFIG_DECLARE(field, NAME, TYPE, ...) CORRAL_CONFIG_DECLARE_##TYPE(field)
CORRAL_CONFIG_TABLE(CORRAL_CONFIG_DECLARE)

/* One member per knob; STRESS knobs expand to their modes' fields. */
#define CORRAL_CONFIG_FIELD_SIZE(field) size_t field;
#define CORRAL_CONFIG_FIELD_UINT(field) unsigned field;
#define CORRAL_CONFIG_FIELD_UINT64(field) uint64_t field;
#define CORRAL_CONFIG_FIELD_PERCENT(field) unsigned field;
#define CORRAL_CONFIG_FIELD_BOOL(field) bool field;
#define CORRAL_CONFIG_FIELD_STRING(field) char field[CORRAL_CONFIG_STRING_MAX];
#define CORRAL_CONFIG_FIELD_ENUM(field) enum corral_##field field;
#define CORRAL_CONFIG_FIELD_FLAGS(field) unsigned field; /* enum corral_<field> bits */
#define CORRAL_CONFIG_STRESS_FIELD_FLAG(field) bool field;
#define CORRAL_CONFIG_STRESS_FIELD_COUNT(field) uint64_t field; /* 0: off */
#define CORRAL_CONFIG_STRESS_FIELD(field, word, KIND, ...) CORRAL_CONFIG_STRESS_FIELD_##KIND(field)
#define CORRAL_CONFIG_FIELD_STRESS(field) struct { CORRAL_STRESS_MODES(CORRAL_CONFIG_STRESS_FIELD) };
#define CORRAL_CONFIG_FIELD(field, NAME, TYPE, ...) CORRAL_CONFIG_FIELD_##TYPE(field)

typedef struct corral_config {
    CORRAL_CONFIG_TABLE(CORRAL_CONFIG_FIELD)
} corral_config;

/* The configuration corral_init loaded (init.c); read-only afterwards. */
extern corral_config corral_runtime_config;

/* Fills *config: defaults, then the non-zero fields of options (may be NULL),
 * then the CORRAL_* entries of envp (NULL-terminated, like environ; entries
 * without '=' are ignored). "auto" values are resolved, so heap_max holds
 * bytes and gc_threads a count; seed 0 stays 0 (the runtime picks one).
 * On the first error: corral_set_error() with a message naming the variable
 * (or option), the value and what is accepted; returns CORRAL_ERROR_CONFIG.
 * *config is then unspecified except config->help, which still says whether
 * CORRAL_HELP asked for the list, so init can print it before failing. */
int corral_config_load(corral_config *config, const corral_options *options, char *const *envp);

/* What CORRAL_HELP=1 prints: every variable with type, default, accepted values and help. */
void corral_config_print_help(FILE *out);
/* docs/env.md, generated from the same table. */
void corral_config_print_markdown(FILE *out);

/* The stress modes as text for log lines and fatal reports, in the syntax of
 * CORRAL_GC_STRESS ("alloc:1000,move-all"); "" when no mode is on. Always
 * NUL-terminated when size > 0; truncated to fit. */
void corral_config_format_stress(const corral_config *config, char *buffer, size_t size);

#endif /* CORRAL_CONFIG_H */
