/* config.c — loads the knobs of config_table.h from defaults, corral_options and
 * CORRAL_* variables, and prints them as CORRAL_HELP=1 text and docs/env.md.
 *
 * Everything a knob needs (parser, range, error text, help) comes from its
 * table entry through the per-type functions in type_traits[]. The first
 * error ends the load: later variables are not looked at, so a message never
 * blames a value for a conflict that an earlier typo caused.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fatal.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

static const char variable_prefix[] = "CORRAL_";
enum { VARIABLE_PREFIX_LENGTH = sizeof variable_prefix - 1 };

/* Longest value or name quoted in a message; the rest becomes "...". */
enum { QUOTE_MAX = 64 };
/* Names and words longer than this get no did-you-mean (and no quadratic work). */
enum { SUGGEST_MAX = 48 };

/* ---------------------------------------------------------------------------
 * The knob descriptors, generated from the table
 */
typedef enum knob_type {
    KNOB_SIZE, KNOB_UINT, KNOB_UINT64, KNOB_PERCENT, KNOB_BOOL,
    KNOB_STRING, KNOB_ENUM, KNOB_FLAGS, KNOB_STRESS,
} knob_type;

typedef struct knob_word {
    const char *word;
    unsigned value; /* ENUM: the constant; FLAGS: its bit */
    const char *help;
} knob_word;

typedef struct knob {
    const char *name;  /* "CORRAL_HEAP_MIN" */
    const char *field; /* "heap_min" */
    knob_type type;
    const char *default_text;
    uint64_t minimum, maximum;
    const char *special;
    bool option;
    size_t offset; /* of the field in corral_config; unused for STRESS */
    const knob_word *words;
    size_t word_count;
    const char *help;
} knob;

#define WORD_ENTRY(constant, word, help) {word, constant, help},
#define DEFINE_WORDS_ENUM(field)                                                           \
    static const knob_word field##_words[] = {CORRAL_CONFIG_WORDS_##field(WORD_ENTRY)};
#define DEFINE_WORDS_FLAGS(field) DEFINE_WORDS_ENUM(field)
#define DEFINE_WORDS_SIZE(field)
#define DEFINE_WORDS_UINT(field)
#define DEFINE_WORDS_UINT64(field)
#define DEFINE_WORDS_PERCENT(field)
#define DEFINE_WORDS_BOOL(field)
#define DEFINE_WORDS_STRING(field)
#define DEFINE_WORDS_STRESS(field)
#define DEFINE_WORDS(field, NAME, TYPE, ...) DEFINE_WORDS_##TYPE(field)
CORRAL_CONFIG_TABLE(DEFINE_WORDS)

#define KNOB_WORDS_ENUM(field) field##_words, COUNT_OF(field##_words)
#define KNOB_WORDS_FLAGS(field) KNOB_WORDS_ENUM(field)
#define KNOB_WORDS_NONE(field) NULL, 0
#define KNOB_WORDS_SIZE KNOB_WORDS_NONE
#define KNOB_WORDS_UINT KNOB_WORDS_NONE
#define KNOB_WORDS_UINT64 KNOB_WORDS_NONE
#define KNOB_WORDS_PERCENT KNOB_WORDS_NONE
#define KNOB_WORDS_BOOL KNOB_WORDS_NONE
#define KNOB_WORDS_STRING KNOB_WORDS_NONE
#define KNOB_WORDS_STRESS KNOB_WORDS_NONE
/* A STRESS knob has no member of its own: its modes' fields are in stress_modes[]. */
#define KNOB_OFFSET(field) offsetof(corral_config, field)
#define KNOB_OFFSET_SIZE KNOB_OFFSET
#define KNOB_OFFSET_UINT KNOB_OFFSET
#define KNOB_OFFSET_UINT64 KNOB_OFFSET
#define KNOB_OFFSET_PERCENT KNOB_OFFSET
#define KNOB_OFFSET_BOOL KNOB_OFFSET
#define KNOB_OFFSET_STRING KNOB_OFFSET
#define KNOB_OFFSET_ENUM KNOB_OFFSET
#define KNOB_OFFSET_FLAGS KNOB_OFFSET
#define KNOB_OFFSET_STRESS(field) 0
#define KNOB_OPTION_OPTION true
#define KNOB_OPTION_NO_OPTION false

#define KNOB_ENTRY(field, NAME, TYPE, default_text, minimum, maximum, special, option, help) \
    {"CORRAL_" #NAME, #field, KNOB_##TYPE, default_text, minimum, maximum, special,          \
     KNOB_OPTION_##option, KNOB_OFFSET_##TYPE(field), KNOB_WORDS_##TYPE(field), help},
static const knob knobs[] = {CORRAL_CONFIG_TABLE(KNOB_ENTRY)};

#define KNOB_INDEX(field, ...) KNOB_INDEX_##field,
enum { CORRAL_CONFIG_TABLE(KNOB_INDEX) KNOB_COUNT };

typedef struct stress_mode {
    const char *word;
    bool takes_count;          /* "word:N" into a uint64_t; else a bool */
    const char *argument;      /* the count's name in help text: "N", "MEAN" */
    uint64_t default_argument; /* 0: the count is required */
    const char *group;         /* modes of one group exclude each other */
    size_t offset;
    const char *help;
} stress_mode;

#define STRESS_TAKES_COUNT_FLAG false
#define STRESS_TAKES_COUNT_COUNT true
#define STRESS_MODE_ENTRY(field, word, KIND, argument, default_argument, group, help)       \
    {word, STRESS_TAKES_COUNT_##KIND, argument, default_argument, group,                    \
     offsetof(corral_config, field), help},
static const stress_mode stress_modes[] = {CORRAL_STRESS_MODES(STRESS_MODE_ENTRY)};

/* ---------------------------------------------------------------------------
 * Bounded text: every message and the stress string are built with this, so
 * nothing a user types can overflow a buffer.
 */
typedef struct text {
    char *buffer;
    size_t size;   /* bytes of buffer */
    size_t length; /* characters written, < size unless size == 0 */
} text;

static text text_on(char *buffer, size_t size)
{
    if (size > 0)
        buffer[0] = '\0';
    return (text){buffer, size, 0};
}

static __attribute__((format(printf, 2, 3))) void text_append(text *out, const char *format, ...)
{
    if (out->length + 1 >= out->size)
        return;
    va_list ap;
    va_start(ap, format);
    int written = vsnprintf(out->buffer + out->length, out->size - out->length, format, ap);
    va_end(ap);
    if (written < 0)
        return;
    size_t room = out->size - out->length - 1;
    out->length += (size_t)written < room ? (size_t)written : room;
}

/* Appends up to QUOTE_MAX bytes of s[0..length), escaping what a terminal would act on. */
static void text_append_quoted(text *out, const char *s, size_t length)
{
    size_t shown = length < QUOTE_MAX ? length : QUOTE_MAX;
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isprint(c) && c != '\\')
            text_append(out, "%c", c);
        else
            text_append(out, "\\x%02x", c);
    }
    if (shown < length)
        text_append(out, "...");
}

/* Sizes as the user writes them: the largest binary suffix that divides exactly. */
static void text_append_size(text *out, uint64_t bytes)
{
    static const struct { char suffix; unsigned shift; } units[] = {{'G', 30}, {'M', 20}, {'K', 10}};
    for (size_t i = 0; i < COUNT_OF(units); i++) {
        uint64_t unit = (uint64_t)1 << units[i].shift;
        if (bytes != 0 && bytes % unit == 0) {
            text_append(out, "%" PRIu64 "%c", bytes / unit, units[i].suffix);
            return;
        }
    }
    text_append(out, "%" PRIu64, bytes);
}

/* ---------------------------------------------------------------------------
 * Did-you-mean: optimal string alignment distance (Levenshtein plus adjacent
 * transpositions, so HEAP_MXA is one edit from HEAP_MAX), ignoring case.
 */
static size_t edit_distance(const char *a, size_t a_length, const char *b, size_t b_length)
{
    size_t rows[3][SUGGEST_MAX + 1];
    size_t *before = rows[0], *previous = rows[1], *current = rows[2];
    for (size_t j = 0; j <= b_length; j++)
        previous[j] = j;
    for (size_t i = 1; i <= a_length; i++) {
        current[0] = i;
        for (size_t j = 1; j <= b_length; j++) {
            int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
            size_t best = previous[j - 1] + (ai != bj);
            if (previous[j] + 1 < best)
                best = previous[j] + 1;
            if (current[j - 1] + 1 < best)
                best = current[j - 1] + 1;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && before[j - 2] + 1 < best)
                best = before[j - 2] + 1;
            current[j] = best;
        }
        size_t *recycled = before;
        before = previous;
        previous = current;
        current = recycled;
    }
    return previous[b_length];
}

/* Edits a typo of this length may have and still get a suggestion. */
static size_t suggestion_limit(size_t length)
{
    return length < 6 ? 1 : (length + 2) / 4;
}

/* Closer candidates replace farther ones; returns the best distance so far. */
static size_t consider(const char *typo, size_t typo_length, const char *candidate,
                       size_t best_distance, const char **best)
{
    size_t candidate_length = strlen(candidate);
    if (typo_length > SUGGEST_MAX || candidate_length > SUGGEST_MAX)
        return best_distance;
    size_t distance = edit_distance(typo, typo_length, candidate, candidate_length);
    if (distance < best_distance) {
        *best = candidate;
        return distance;
    }
    return best_distance;
}

/* A name cut short at a word boundary (CORRAL_TLAB for CORRAL_TLAB_SIZE) counts as one edit. */
static size_t consider_truncated(const char *typo, size_t typo_length, const char *candidate,
                                 size_t best_distance, const char **best)
{
    if (typo_length >= 3 && best_distance > 1 && strncasecmp(candidate, typo, typo_length) == 0 &&
        candidate[typo_length] == '_') {
        *best = candidate;
        return 1;
    }
    return best_distance;
}

/* The known variable closest to CORRAL_<suffix>; "GC_" may be left out (CORRAL_STRESS). */
static const knob *suggest_knob(const char *suffix, size_t length)
{
    const char *best = NULL;
    size_t best_distance = suggestion_limit(length) + 1;
    const knob *best_knob = NULL;
    for (size_t i = 0; i < KNOB_COUNT; i++) {
        const char *known = knobs[i].name + VARIABLE_PREFIX_LENGTH;
        const char *before = best;
        best_distance = consider(suffix, length, known, best_distance, &best);
        best_distance = consider_truncated(suffix, length, known, best_distance, &best);
        if (strncmp(known, "GC_", 3) == 0)
            best_distance = consider(suffix, length, known + 3, best_distance, &best);
        if (best != before)
            best_knob = &knobs[i];
    }
    return best_knob;
}

static const char *suggest_word(const char *typo, size_t length, const char *const *words,
                                size_t count)
{
    const char *best = NULL;
    size_t best_distance = suggestion_limit(length) + 1;
    for (size_t i = 0; i < count; i++)
        best_distance = consider(typo, length, words[i], best_distance, &best);
    return best;
}

/* ---------------------------------------------------------------------------
 * Parsers. Each takes a whole value, stores it in the knob's field and returns
 * true, or returns false with a problem phrase ("" when "expected ..." says it all).
 */
typedef bool (*parse_fn)(const knob *knob, const char *value, corral_config *config,
                         text *problem);

static bool in_range(const knob *knob, uint64_t number)
{
    if (number == 0 && knob->special)
        return true;
    return number >= knob->minimum && number <= knob->maximum;
}

static void store_number(const knob *knob, corral_config *config, uint64_t number)
{
    char *field = (char *)config + knob->offset;
    switch (knob->type) {
    case KNOB_SIZE:
        *(size_t *)field = (size_t)number;
        break;
    case KNOB_UINT:
    case KNOB_PERCENT:
        *(unsigned *)field = (unsigned)number;
        break;
    case KNOB_UINT64:
        *(uint64_t *)field = number;
        break;
    default:
        CORRAL_FATAL("%s is not a numeric knob", knob->name);
    }
}

/* Decimal digits only, no sign or blanks; false on anything else or on overflow. */
static bool parse_decimal(const char *digits, size_t length, uint64_t *number, bool *overflow)
{
    *overflow = false;
    if (length == 0)
        return false;
    uint64_t value = 0;
    for (size_t i = 0; i < length; i++) {
        if (digits[i] < '0' || digits[i] > '9')
            return false;
        unsigned digit = (unsigned)(digits[i] - '0');
        if (value > (UINT64_MAX - digit) / 10) {
            *overflow = true;
            return false;
        }
        value = value * 10 + digit;
    }
    *number = value;
    return true;
}

/* The number part of a SIZE, PERCENT or integer value and its unit multiplier. */
static void split_unit(const knob *knob, const char *value, size_t *digits, uint64_t *multiplier)
{
    size_t length = strlen(value);
    *digits = length;
    *multiplier = 1;
    if (length == 0)
        return;
    char last = value[length - 1];
    if (knob->type == KNOB_PERCENT && last == '%') {
        *digits = length - 1;
    } else if (knob->type == KNOB_SIZE && strchr("kKmMgG", last) != NULL) {
        unsigned shift = (last == 'k' || last == 'K') ? 10 : (last == 'm' || last == 'M') ? 20 : 30;
        *digits = length - 1;
        *multiplier = (uint64_t)1 << shift;
    }
}

static bool parse_number(const knob *knob, const char *value, corral_config *config, text *problem)
{
    size_t digits;
    uint64_t multiplier, number;
    bool overflow;
    split_unit(knob, value, &digits, &multiplier);
    if (!parse_decimal(value, digits, &number, &overflow)) {
        if (overflow)
            text_append(problem, "too large");
        return false;
    }
    if (number > UINT64_MAX / multiplier) {
        text_append(problem, "too large");
        return false;
    }
    number *= multiplier;
    if (!in_range(knob, number)) {
        text_append(problem, "out of range");
        return false;
    }
    store_number(knob, config, number);
    return true;
}

static const struct { const char *word; bool value; } bool_words[] = {
    {"1", true}, {"0", false}, {"true", true}, {"false", false},
    {"yes", true}, {"no", false}, {"on", true}, {"off", false},
};

static bool parse_boolean(const char *value, bool *result)
{
    for (size_t i = 0; i < COUNT_OF(bool_words); i++) {
        if (strcasecmp(value, bool_words[i].word) == 0) {
            *result = bool_words[i].value;
            return true;
        }
    }
    return false;
}

static bool parse_bool(const knob *knob, const char *value, corral_config *config, text *problem)
{
    (void)problem;
    return parse_boolean(value, (bool *)((char *)config + knob->offset));
}

static bool parse_string(const knob *knob, const char *value, corral_config *config,
                         text *problem)
{
    size_t length = strlen(value);
    if (length >= CORRAL_CONFIG_STRING_MAX) {
        text_append(problem, "too long (%zu bytes)", length);
        return false;
    }
    memcpy((char *)config + knob->offset, value, length + 1);
    return true;
}

static const knob_word *find_word(const knob *knob, const char *word, size_t length)
{
    for (size_t i = 0; i < knob->word_count; i++) {
        if (strlen(knob->words[i].word) == length && memcmp(knob->words[i].word, word, length) == 0)
            return &knob->words[i];
    }
    return NULL;
}

/* "unknown item 'x' (did you mean 'y'?)" */
static void explain_unknown_word(const knob *knob, const char *what, const char *word,
                                 size_t length, text *problem)
{
    const char *candidates[16];
    size_t count = 0;
    for (size_t i = 0; i < knob->word_count && count < COUNT_OF(candidates); i++)
        candidates[count++] = knob->words[i].word;
    if (knob->type == KNOB_FLAGS && count < COUNT_OF(candidates))
        candidates[count++] = "all";
    text_append(problem, "unknown %s '", what);
    text_append_quoted(problem, word, length);
    text_append(problem, "'");
    const char *suggestion = suggest_word(word, length, candidates, count);
    if (suggestion)
        text_append(problem, " (did you mean '%s'?)", suggestion);
}

static bool parse_enum(const knob *knob, const char *value, corral_config *config, text *problem)
{
    const knob_word *word = find_word(knob, value, strlen(value));
    if (!word) {
        explain_unknown_word(knob, "word", value, strlen(value), problem);
        return false;
    }
    *(unsigned *)((char *)config + knob->offset) = word->value;
    return true;
}

/* Calls item(knob, start, length, ...) on each comma-separated item; an empty
 * value has no items, an empty item is an error. */
typedef bool (*item_fn)(const knob *knob, const char *item, size_t length, void *state,
                        text *problem);

static bool for_each_item(const knob *knob, const char *value, item_fn item, void *state,
                          text *problem)
{
    if (value[0] == '\0')
        return true;
    for (const char *start = value;;) {
        const char *comma = strchr(start, ',');
        size_t length = comma ? (size_t)(comma - start) : strlen(start);
        if (length == 0) {
            text_append(problem, "empty item");
            return false;
        }
        if (!item(knob, start, length, state, problem))
            return false;
        if (!comma)
            return true;
        start = comma + 1;
    }
}

typedef struct flags_state {
    unsigned flags;
    uint64_t listed; /* bit i: word i listed; bit word_count: "all" listed */
} flags_state;

static bool add_flag(const knob *knob, const char *item, size_t length, void *opaque,
                     text *problem)
{
    flags_state *state = opaque;
    const knob_word *word = find_word(knob, item, length);
    bool all = !word && length == 3 && memcmp(item, "all", 3) == 0;
    if (!word && !all) {
        explain_unknown_word(knob, "item", item, length, problem);
        return false;
    }
    uint64_t listed = (uint64_t)1 << (word ? (size_t)(word - knob->words) : knob->word_count);
    if (state->listed & listed) {
        text_append(problem, "'%s' is listed twice", word ? word->word : "all");
        return false;
    }
    state->listed |= listed;
    for (size_t i = 0; i < knob->word_count; i++) {
        if (all || &knob->words[i] == word)
            state->flags |= knob->words[i].value;
    }
    return true;
}

static bool parse_flags(const knob *knob, const char *value, corral_config *config, text *problem)
{
    flags_state state = {0, 0};
    if (!for_each_item(knob, value, add_flag, &state, problem))
        return false;
    *(unsigned *)((char *)config + knob->offset) = state.flags;
    return true;
}

/* The mode an item names: the longest word that the item equals or continues with ':'. */
static const stress_mode *find_stress_mode(const char *item, size_t length)
{
    const stress_mode *best = NULL;
    for (size_t i = 0; i < COUNT_OF(stress_modes); i++) {
        size_t word_length = strlen(stress_modes[i].word);
        if (word_length > length || memcmp(item, stress_modes[i].word, word_length) != 0)
            continue;
        if (word_length < length && item[word_length] != ':')
            continue;
        if (!best || word_length > strlen(best->word))
            best = &stress_modes[i];
    }
    return best;
}

static void explain_unknown_stress_mode(const char *item, size_t length, text *problem)
{
    const char *words[COUNT_OF(stress_modes)];
    for (size_t i = 0; i < COUNT_OF(stress_modes); i++)
        words[i] = stress_modes[i].word;
    const char *colon = memchr(item, ':', length);
    size_t word_length = colon ? (size_t)(colon - item) : length;
    text_append(problem, "unknown mode '");
    text_append_quoted(problem, item, length);
    text_append(problem, "'");
    const char *suggestion = suggest_word(item, word_length, words, COUNT_OF(words));
    if (suggestion)
        text_append(problem, " (did you mean '%s'?)", suggestion);
}

/* The count after "word:", or the mode's default when it has one and none is given. */
static bool parse_stress_count(const stress_mode *mode, const char *item, size_t length,
                               uint64_t *count, text *problem)
{
    size_t word_length = strlen(mode->word);
    bool overflow;
    if (word_length == length && mode->default_argument != 0) {
        *count = mode->default_argument;
        return true;
    }
    if (word_length < length &&
        parse_decimal(item + word_length + 1, length - word_length - 1, count, &overflow) &&
        *count >= 1)
        return true;
    text_append(problem, "item '");
    text_append_quoted(problem, item, length);
    text_append(problem, "': %s:%s needs an integer %s >= 1", mode->word, mode->argument,
                mode->argument);
    return false;
}

typedef struct stress_state {
    corral_config *config;
    const stress_mode *seen[COUNT_OF(stress_modes)];
    size_t seen_count;
} stress_state;

/* Refuses a mode listed twice or a second member of the same group. */
static bool check_stress_conflicts(const stress_state *state, const stress_mode *mode,
                                   text *problem)
{
    for (size_t i = 0; i < state->seen_count; i++) {
        const stress_mode *other = state->seen[i];
        if (other == mode) {
            text_append(problem, "'%s' is listed twice", mode->word);
            return false;
        }
        if (mode->group && other->group && strcmp(mode->group, other->group) == 0) {
            text_append(problem, "'%s' conflicts with '%s' (at most one %s)", mode->word,
                        other->word, mode->group);
            return false;
        }
    }
    return true;
}

static bool add_stress_mode(const knob *knob, const char *item, size_t length, void *opaque,
                            text *problem)
{
    (void)knob;
    stress_state *state = opaque;
    const stress_mode *mode = find_stress_mode(item, length);
    if (!mode) {
        explain_unknown_stress_mode(item, length, problem);
        return false;
    }
    char *field = (char *)state->config + mode->offset;
    if (mode->takes_count) {
        if (!parse_stress_count(mode, item, length, (uint64_t *)field, problem))
            return false;
    } else if (length != strlen(mode->word)) {
        text_append(problem, "item '");
        text_append_quoted(problem, item, length);
        text_append(problem, "': '%s' takes no argument", mode->word);
        return false;
    } else {
        *(bool *)field = true;
    }
    if (!check_stress_conflicts(state, mode, problem))
        return false;
    state->seen[state->seen_count++] = mode;
    return true;
}

static void clear_stress(corral_config *config)
{
    for (size_t i = 0; i < COUNT_OF(stress_modes); i++) {
        char *field = (char *)config + stress_modes[i].offset;
        if (stress_modes[i].takes_count)
            *(uint64_t *)field = 0;
        else
            *(bool *)field = false;
    }
}

static bool parse_stress(const knob *knob, const char *value, corral_config *config,
                         text *problem)
{
    stress_state state = {.config = config};
    clear_stress(config);
    return for_each_item(knob, value, add_stress_mode, &state, problem);
}

/* ---------------------------------------------------------------------------
 * What a type accepts, in words: the tail of every error message, and the
 * "accepts" line of the help and the docs.
 */
static void describe_range(const knob *knob, text *out, bool as_size)
{
    text_append(out, "from ");
    if (as_size)
        text_append_size(out, knob->minimum);
    else
        text_append(out, "%" PRIu64, knob->minimum);
    text_append(out, " to ");
    if (as_size)
        text_append_size(out, knob->maximum);
    else
        text_append(out, "%" PRIu64, knob->maximum);
    if (knob->special && knob->minimum > 0)
        text_append(out, " (or 0 for %s)", knob->special);
}

static void describe_words(const knob *knob, text *out)
{
    for (size_t i = 0; i < knob->word_count; i++)
        text_append(out, "%s%s", i ? ", " : "", knob->words[i].word);
}

/* "alloc:N", "alloc:random[:MEAN]", "polls" */
static void describe_stress_mode(const stress_mode *mode, text *out)
{
    if (!mode->takes_count)
        text_append(out, "%s", mode->word);
    else if (mode->default_argument == 0)
        text_append(out, "%s:%s", mode->word, mode->argument);
    else
        text_append(out, "%s[:%s]", mode->word, mode->argument);
}

/* "; at most one allocation schedule: alloc, thread-alloc, alloc:random" per group. */
static void describe_stress_groups(text *out)
{
    for (size_t i = 0; i < COUNT_OF(stress_modes); i++) {
        const char *group = stress_modes[i].group;
        bool first = group != NULL;
        for (size_t j = 0; j < i && first; j++)
            first = !(stress_modes[j].group && strcmp(stress_modes[j].group, group) == 0);
        if (!first)
            continue;
        text_append(out, "; at most one %s:", group);
        for (size_t j = i; j < COUNT_OF(stress_modes); j++) {
            if (stress_modes[j].group && strcmp(stress_modes[j].group, group) == 0)
                text_append(out, "%s %s", j == i ? "" : ",", stress_modes[j].word);
        }
    }
}

/* "; N and MEAN are integers >= 1", naming each argument once. */
static void describe_stress_arguments(text *out)
{
    size_t named = 0;
    for (size_t i = 0; i < COUNT_OF(stress_modes); i++) {
        const char *argument = stress_modes[i].argument;
        bool first = stress_modes[i].takes_count;
        for (size_t j = 0; j < i && first; j++)
            first = !(stress_modes[j].takes_count && strcmp(stress_modes[j].argument, argument) == 0);
        if (first)
            text_append(out, "%s%s", named++ ? " and " : "; ", argument);
    }
    if (named)
        text_append(out, named > 1 ? " are integers >= 1" : " is an integer >= 1");
}

static void describe_stress(text *out)
{
    text_append(out, "a comma-separated list of modes: ");
    for (size_t i = 0; i < COUNT_OF(stress_modes); i++) {
        text_append(out, "%s", i ? ", " : "");
        describe_stress_mode(&stress_modes[i], out);
    }
    describe_stress_arguments(out);
    describe_stress_groups(out);
}

static void describe_accepted(const knob *knob, text *out)
{
    switch (knob->type) {
    case KNOB_SIZE:
        text_append(out, "a size in bytes with an optional k, M or G suffix, ");
        describe_range(knob, out, true);
        break;
    case KNOB_UINT:
    case KNOB_UINT64:
        text_append(out, "an integer ");
        describe_range(knob, out, false);
        break;
    case KNOB_PERCENT:
        text_append(out, "a percentage ");
        describe_range(knob, out, false);
        text_append(out, ", with or without %%");
        break;
    case KNOB_BOOL:
        text_append(out, "1, 0, true, false, yes, no, on or off, in any case");
        break;
    case KNOB_STRING:
        text_append(out, "any text of at most %d bytes", CORRAL_CONFIG_STRING_MAX - 1);
        if (knob->special)
            text_append(out, " (empty for %s)", knob->special);
        break;
    case KNOB_ENUM:
        text_append(out, "one of: ");
        describe_words(knob, out);
        break;
    case KNOB_FLAGS:
        text_append(out, "a comma-separated list of: ");
        describe_words(knob, out);
        text_append(out, ", all");
        break;
    case KNOB_STRESS:
        describe_stress(out);
        break;
    }
}

static void describe_default(const knob *knob, text *out)
{
    const char *shown = knob->default_text;
    if (shown[0] == '\0')
        shown = knob->type == KNOB_STRING ? "empty" : "none";
    text_append(out, "%s", shown);
    bool zero = strcmp(knob->default_text, "0") == 0 || knob->default_text[0] == '\0';
    if (knob->special && zero)
        text_append(out, " (%s)", knob->special);
}

static const struct {
    const char *name; /* in help and docs */
    parse_fn parse;
} type_traits[] = {
    [KNOB_SIZE] = {"size", parse_number},
    [KNOB_UINT] = {"integer", parse_number},
    [KNOB_UINT64] = {"integer", parse_number},
    [KNOB_PERCENT] = {"percent", parse_number},
    [KNOB_BOOL] = {"boolean", parse_bool},
    [KNOB_STRING] = {"text", parse_string},
    [KNOB_ENUM] = {"word", parse_enum},
    [KNOB_FLAGS] = {"list", parse_flags},
    [KNOB_STRESS] = {"list", parse_stress},
};

/* ---------------------------------------------------------------------------
 * Loading
 */
typedef enum origin_kind { FROM_DEFAULT, FROM_OPTION, FROM_ENVIRONMENT } origin_kind;

/* Where each knob's value came from, for messages about two knobs and for
 * catching a variable that appears twice in envp. */
typedef struct origin {
    origin_kind kind;
    const char *value; /* FROM_ENVIRONMENT: the text after '=' */
    uint64_t number;   /* FROM_OPTION: the option's value */
} origin;

typedef struct loader {
    corral_config *config;
    origin origins[KNOB_COUNT];
} loader;

static int fail(const char *message)
{
    corral_set_error("%s", message);
    return CORRAL_ERROR_CONFIG;
}

/* "SUBJECT: PROBLEM; expected ACCEPTED", or "SUBJECT: expected ACCEPTED". */
static int fail_value(const knob *knob, const char *subject, const char *problem)
{
    char buffer[1024];
    text message = text_on(buffer, sizeof buffer);
    text_append(&message, "%s: %s%sexpected ", subject, problem, problem[0] ? "; " : "");
    describe_accepted(knob, &message);
    return fail(buffer);
}

static void load_defaults(loader *loader)
{
    memset(loader->config, 0, sizeof *loader->config);
    for (size_t i = 0; i < KNOB_COUNT; i++) {
        char buffer[256];
        text problem = text_on(buffer, sizeof buffer);
        const knob *knob = &knobs[i];
        bool parsed = type_traits[knob->type].parse(knob, knob->default_text, loader->config, &problem);
        CORRAL_CHECK(parsed, "config_table.h: default '%s' of %s: %s", knob->default_text,
                     knob->name, buffer);
        loader->origins[i] = (origin){FROM_DEFAULT, NULL, 0};
    }
}

static int load_option(loader *loader, size_t index, uint64_t number)
{
    const knob *knob = &knobs[index];
    if (!in_range(knob, number)) {
        char subject[128];
        snprintf(subject, sizeof subject, "corral_options.%s=%" PRIu64, knob->field, number);
        return fail_value(knob, subject, "out of range");
    }
    store_number(knob, loader->config, number);
    loader->origins[index] = (origin){FROM_OPTION, NULL, number};
    return CORRAL_OK;
}

/* Only numeric knobs can be options: corral_options fields are numbers, 0 = default. */
#define LOAD_OPTION_NO_OPTION(field)
#define LOAD_OPTION_OPTION(field)                                                          \
    if (options->field != 0) {                                                             \
        int status = load_option(loader, KNOB_INDEX_##field, (uint64_t)options->field);    \
        if (status != CORRAL_OK)                                                           \
            return status;                                                                 \
    }
#define LOAD_OPTION(field, NAME, TYPE, default_text, minimum, maximum, special, option, help) \
    LOAD_OPTION_##option(field)

static int load_options(loader *loader, const corral_options *options)
{
    if (!options)
        return CORRAL_OK;
    CORRAL_CONFIG_TABLE(LOAD_OPTION)
    return CORRAL_OK;
}

static int fail_unknown_variable(const char *name, size_t length)
{
    char buffer[512];
    text message = text_on(buffer, sizeof buffer);
    text_append(&message, "unknown variable ");
    text_append_quoted(&message, name, length);
    const knob *suggestion = suggest_knob(name + VARIABLE_PREFIX_LENGTH,
                                          length - VARIABLE_PREFIX_LENGTH);
    if (suggestion)
        text_append(&message, " (did you mean %s?)", suggestion->name);
    text_append(&message, "; CORRAL_HELP=1 lists every variable");
    return fail(buffer);
}

static const knob *find_knob(const char *name, size_t length, size_t *index)
{
    for (size_t i = 0; i < KNOB_COUNT; i++) {
        if (strlen(knobs[i].name) == length && memcmp(knobs[i].name, name, length) == 0) {
            *index = i;
            return &knobs[i];
        }
    }
    return NULL;
}

static int fail_set_twice(const knob *knob, const char *first, const char *second)
{
    char buffer[512];
    text message = text_on(buffer, sizeof buffer);
    text_append(&message, "%s is set twice in the environment ('", knob->name);
    text_append_quoted(&message, first, strlen(first));
    text_append(&message, "' and '");
    text_append_quoted(&message, second, strlen(second));
    text_append(&message, "')");
    return fail(buffer);
}

/* One "NAME=VALUE" entry of envp. */
static int load_variable(loader *loader, const char *entry)
{
    const char *equals = strchr(entry, '=');
    if (!equals || strncmp(entry, variable_prefix, VARIABLE_PREFIX_LENGTH) != 0)
        return CORRAL_OK;
    size_t length = (size_t)(equals - entry), index;
    const char *value = equals + 1;
    const knob *knob = find_knob(entry, length, &index);
    if (!knob)
        return fail_unknown_variable(entry, length);
    if (loader->origins[index].kind == FROM_ENVIRONMENT)
        return fail_set_twice(knob, loader->origins[index].value, value);
    char subject[128], buffer[512];
    text subject_text = text_on(subject, sizeof subject);
    text_append(&subject_text, "%s='", knob->name);
    text_append_quoted(&subject_text, value, strlen(value));
    text_append(&subject_text, "'");
    if (value[0] == '\0' && knob->type != KNOB_STRING)
        return fail_value(knob, subject, "empty value");
    text problem = text_on(buffer, sizeof buffer);
    if (!type_traits[knob->type].parse(knob, value, loader->config, &problem))
        return fail_value(knob, subject, buffer);
    loader->origins[index] = (origin){FROM_ENVIRONMENT, value, 0};
    return CORRAL_OK;
}

static int load_environment(loader *loader, char *const *envp)
{
    for (size_t i = 0; envp && envp[i]; i++) {
        int status = load_variable(loader, envp[i]);
        if (status != CORRAL_OK)
            return status;
    }
    return CORRAL_OK;
}

/* Half of physical memory, within the heap_max range, and never below heap_min. */
static size_t auto_heap_max(size_t heap_min)
{
    const knob *knob = &knobs[KNOB_INDEX_heap_max];
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    uint64_t half = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size / 2
                                               : knob->maximum;
    if (half > knob->maximum)
        half = knob->maximum;
    if (half < knob->minimum)
        half = knob->minimum;
    return half < heap_min ? heap_min : (size_t)half;
}

/* The CPUs this process may run on (affinity, so containers and taskset count), at most 8. */
static unsigned auto_gc_threads(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    long usable = online > 0 ? online : 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 &&
        CPU_COUNT(&set) < usable)
        usable = CPU_COUNT(&set);
    return usable < 8 ? (unsigned)usable : 8;
}

/* Given only a maximum, the minimum follows it: 16M, or half a maximum
 * below 32M, so a small CORRAL_HEAP_MAX alone is a valid setting. */
static size_t auto_heap_min(size_t heap_max)
{
    return heap_max < CORRAL_MiB(32) ? heap_max / 2 : CORRAL_MiB(16);
}

static void resolve_auto(corral_config *config)
{
    if (config->heap_max == 0)
        config->heap_max = auto_heap_max(config->heap_min ? config->heap_min : CORRAL_MiB(16));
    if (config->heap_min == 0)
        config->heap_min = auto_heap_min(config->heap_max);
    /* An explicit worker count is taken at its word, as -Xgcthreads is in OpenJ9 and
     * ParallelGCThreads in HotSpot: every GC then wakes every worker. */
    if (config->gc_heap_per_worker == 0)
        config->gc_heap_per_worker = config->gc_threads == 0 ? CORRAL_MiB(4) : 1;
    if (config->gc_threads == 0)
        config->gc_threads = auto_gc_threads();
}

/* "CORRAL_HEAP_MIN='64M'", "corral_options.heap_min=67108864" or "the default". */
static void describe_origin(const loader *loader, size_t index, text *out)
{
    const origin *origin = &loader->origins[index];
    switch (origin->kind) {
    case FROM_ENVIRONMENT:
        text_append(out, "%s='", knobs[index].name);
        text_append_quoted(out, origin->value, strlen(origin->value));
        text_append(out, "'");
        break;
    case FROM_OPTION:
        text_append(out, "corral_options.%s=%" PRIu64, knobs[index].field, origin->number);
        break;
    case FROM_DEFAULT:
        text_append(out, "the default of %s", knobs[index].name);
        break;
    }
}

/* Checks between knobs, after auto values are resolved. */
static int check_relations(const loader *loader)
{
    const corral_config *config = loader->config;
    if (config->heap_min <= config->heap_max)
        return CORRAL_OK;
    char buffer[512];
    text message = text_on(buffer, sizeof buffer);
    text_append(&message, "the minimum heap ");
    text_append_size(&message, config->heap_min);
    text_append(&message, " (");
    describe_origin(loader, KNOB_INDEX_heap_min, &message);
    text_append(&message, ") is larger than the maximum heap ");
    text_append_size(&message, config->heap_max);
    text_append(&message, " (");
    describe_origin(loader, KNOB_INDEX_heap_max, &message);
    text_append(&message, "); CORRAL_HEAP_MIN must not exceed CORRAL_HEAP_MAX");
    return fail(buffer);
}

/* Whether some CORRAL_HELP entry says yes, however the rest of envp reads. */
static bool help_requested(char *const *envp)
{
    static const char help_prefix[] = "CORRAL_HELP=";
    bool help = false;
    for (size_t i = 0; envp && envp[i]; i++) {
        bool yes;
        if (strncmp(envp[i], help_prefix, sizeof help_prefix - 1) == 0 &&
            parse_boolean(envp[i] + sizeof help_prefix - 1, &yes))
            help = help || yes;
    }
    return help;
}

static int load_all(loader *loader, const corral_options *options, char *const *envp)
{
    load_defaults(loader);
    int status = load_options(loader, options);
    if (status == CORRAL_OK)
        status = load_environment(loader, envp);
    if (status != CORRAL_OK)
        return status;
    resolve_auto(loader->config);
    return check_relations(loader);
}

int corral_config_load(corral_config *config, const corral_options *options, char *const *envp)
{
    loader loader = {.config = config};
    int status = load_all(&loader, options, envp);
    if (status != CORRAL_OK)
        config->help = help_requested(envp);
    return status;
}

/* ---------------------------------------------------------------------------
 * Stress modes as text
 */
void corral_config_format_stress(const corral_config *config, char *buffer, size_t size)
{
    text out = text_on(buffer, size);
    const char *separator = "";
    for (size_t i = 0; i < COUNT_OF(stress_modes); i++) {
        const stress_mode *mode = &stress_modes[i];
        const char *field = (const char *)config + mode->offset;
        if (mode->takes_count && *(const uint64_t *)field != 0)
            text_append(&out, "%s%s:%" PRIu64, separator, mode->word, *(const uint64_t *)field);
        else if (!mode->takes_count && *(const bool *)field)
            text_append(&out, "%s%s", separator, mode->word);
        else
            continue;
        separator = ",";
    }
}

/* ---------------------------------------------------------------------------
 * CORRAL_HELP=1
 */
static void print_help_words(FILE *out, const knob *knob)
{
    for (size_t i = 0; i < knob->word_count; i++)
        fprintf(out, "      %-22s %s\n", knob->words[i].word, knob->words[i].help);
    if (knob->type == KNOB_FLAGS)
        fprintf(out, "      %-22s %s\n", "all", "every word above");
    for (size_t i = 0; knob->type == KNOB_STRESS && i < COUNT_OF(stress_modes); i++) {
        char mode[64];
        text mode_text = text_on(mode, sizeof mode);
        describe_stress_mode(&stress_modes[i], &mode_text);
        fprintf(out, "      %-22s %s\n", mode, stress_modes[i].help);
    }
}

static void print_help_knob(FILE *out, const knob *knob)
{
    char buffer[1024];
    text line = text_on(buffer, sizeof buffer);
    describe_default(knob, &line);
    fprintf(out, "%s  (%s, default %s", knob->name, type_traits[knob->type].name, buffer);
    if (knob->option)
        fprintf(out, "; also corral_options.%s", knob->field);
    fprintf(out, ")\n    %s\n", knob->help);
    line = text_on(buffer, sizeof buffer);
    describe_accepted(knob, &line);
    fprintf(out, "    accepts %s\n", buffer);
    print_help_words(out, knob);
}

void corral_config_print_help(FILE *out)
{
    fprintf(out, "corral %s configuration. Variables override corral_options; an unknown\n"
                 "CORRAL_* variable or a bad value makes corral_init fail. Sizes take k, M, G\n"
                 "(binary multiples).\n\n",
            CORRAL_VERSION_STRING);
    for (size_t i = 0; i < KNOB_COUNT; i++)
        print_help_knob(out, &knobs[i]);
}

/* ---------------------------------------------------------------------------
 * docs/env.md
 */
/* Markdown table cells: '|' would end the cell. */
static void print_markdown_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', out);
        fputc(*s, out);
    }
}

static void print_markdown_row(FILE *out, const knob *knob)
{
    char buffer[1024];
    text cell = text_on(buffer, sizeof buffer);
    describe_default(knob, &cell);
    fprintf(out, "| `%s` | %s | %s | ", knob->name, type_traits[knob->type].name, buffer);
    cell = text_on(buffer, sizeof buffer);
    describe_accepted(knob, &cell);
    print_markdown_cell(out, buffer);
    fprintf(out, " | ");
    print_markdown_cell(out, knob->help);
    if (knob->option)
        fprintf(out, "; also `corral_options.%s`", knob->field);
    fprintf(out, " |\n");
}

static void print_markdown_words(FILE *out, const knob *knob)
{
    if (knob->word_count == 0 && knob->type != KNOB_STRESS)
        return;
    fprintf(out, "\n### `%s`\n\n| %s | Meaning |\n|---|---|\n", knob->name,
            knob->type == KNOB_STRESS ? "Mode" : "Word");
    for (size_t i = 0; i < knob->word_count; i++) {
        fprintf(out, "| `%s` | ", knob->words[i].word);
        print_markdown_cell(out, knob->words[i].help);
        fprintf(out, " |\n");
    }
    if (knob->type == KNOB_FLAGS)
        fprintf(out, "| `all` | every word above |\n");
    for (size_t i = 0; knob->type == KNOB_STRESS && i < COUNT_OF(stress_modes); i++) {
        char mode[64];
        text mode_text = text_on(mode, sizeof mode);
        describe_stress_mode(&stress_modes[i], &mode_text);
        fprintf(out, "| `%s` | ", mode);
        print_markdown_cell(out, stress_modes[i].help);
        fprintf(out, " |\n");
    }
}

static const char markdown_preamble[] =
    "# Configuration: `CORRAL_*` environment variables\n"
    "\n"
    "<!-- Generated from src/config_table.h by corral-config-doc; do not edit.\n"
    "     Regenerate with: cmake --build build --target env-doc -->\n"
    "\n"
    "corral reads its configuration once, in `corral_init`: each knob starts at its\n"
    "default, a non-zero field of `corral_options` replaces it, and a `CORRAL_*`\n"
    "environment variable replaces that (the environment wins). `CORRAL_HELP=1` prints\n"
    "this list at start-up.\n"
    "\n"
    "Parsing is strict and never falls back to a default: a malformed, out-of-range\n"
    "or empty value, an unknown `CORRAL_*` variable (with a did-you-mean suggestion\n"
    "for a misspelt one), a variable set twice, or contradictory values make\n"
    "`corral_init` fail with `CORRAL_ERROR_CONFIG`. The first error is reported,\n"
    "on stderr and by `corral_last_error()`, naming the variable, the value and what\n"
    "is accepted:\n"
    "\n"
    "```\n"
    "corral: error: CORRAL_HEAP_MAX='12Q': expected a size in bytes with an optional k, M or G suffix, from 4M to 32G (or 0 for auto)\n"
    "corral: error: unknown variable CORRAL_HEAP_MXA (did you mean CORRAL_HEAP_MAX?); CORRAL_HELP=1 lists every variable\n"
    "```\n"
    "\n"
    "Value syntax: sizes are decimal integers with an optional `k`/`K`, `m`/`M` or\n"
    "`g`/`G` suffix for KiB, MiB, GiB (no sign, blanks or fractions); integers and\n"
    "percentages are decimal; booleans are `1`, `0`, `true`, `false`, `yes`, `no`,\n"
    "`on`, `off` in any case; words and list items match exactly, lists are\n"
    "comma-separated with no empty items and no item twice.\n"
    "\n";

void corral_config_print_markdown(FILE *out)
{
    fputs(markdown_preamble, out);
    fprintf(out, "| Variable | Type | Default | Accepted values | Meaning |\n"
                 "|---|---|---|---|---|\n");
    for (size_t i = 0; i < KNOB_COUNT; i++)
        print_markdown_row(out, &knobs[i]);
    fprintf(out, "\n## Words and modes\n");
    for (size_t i = 0; i < KNOB_COUNT; i++)
        print_markdown_words(out, &knobs[i]);
}
