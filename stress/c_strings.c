/* c_strings — C's string functions on text in managed byte arrays, holding
 * the pointers they hand back across collections.
 *
 * Each of three threads writes records of numbers ("17,4,250;9;33,1") into
 * managed byte arrays with snprintf, keeps them in an array of its own, and
 * parses old and new ones back while allocating: strtok_r splits the fields
 * (its save pointer points into the record), strtol steps through each
 * field by its end pointer, strchr and strrchr find commas whose offsets
 * are checked after more allocations, and a managed helper returns a
 * pointer into the record. The pass pins each record for the frame that
 * holds such a pointer (polls/frame_pins.c); without it every moving
 * collection leaves them pointing at the record's old copy.
 */
#include "torture.h"

typedef struct text CORRAL_REF *textref;
struct text {
    corral_array_header header;
    char data[];
};

static const corral_type text_type = CORRAL_DATA_ARRAY_TYPE("text", char);
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("text[]");

enum { THREADS = 3, KEPT = 16, FIELDS = 4, NUMBERS = 5, RECORD_BYTES = 160 };

typedef struct record_sums {
    long total;     /* of every number */
    long fields;    /* how many fields */
    long first_comma; /* offset of the first ',' or -1 */
} record_sums;

/* Garbage between the records, so collections slide them. */
static void garbage(uint64_t *random)
{
    for (long i = (long)torture_below(random, 4); i > 0; i--)
        corral_alloc_array(&text_type, 24);
}

/* Writes a record of random numbers and returns what parsing must find. */
static textref new_record(uint64_t *random, record_sums *sums)
{
    char buffer[RECORD_BYTES];
    size_t used = 0;
    *sums = (record_sums){0, 0, -1};
    long fields = 1 + (long)torture_below(random, FIELDS);
    for (long f = 0; f < fields; f++) {
        long numbers = 1 + (long)torture_below(random, NUMBERS);
        for (long n = 0; n < numbers; n++) {
            long value = (long)torture_below(random, 100000);
            if (n > 0 && sums->first_comma < 0)
                sums->first_comma = (long)used;
            used += (size_t)snprintf(buffer + used, sizeof buffer - used, "%s%ld",
                                     n ? "," : (f ? ";" : ""), value);
            sums->total += value;
        }
    }
    sums->fields = fields;
    textref record = corral_alloc_array(&text_type, used + 1);
    memcpy((char *)record->data, buffer, used + 1);
    return record;
}

/* A managed helper handing back a pointer into its argument's object; it
 * may collect first. noinline: its caller gets the pointer from a call. */
__attribute__((noinline)) static char *after_digits(char *p, uint64_t *random)
{
    garbage(random);
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

/* Parses record back the ways C code does, collecting in between. */
static void parse_record(textref record, const record_sums *sums, uint64_t *random)
{
    long total = 0, fields = 0;
    char *save;
    for (char *field = strtok_r((char *)record->data, ";", &save); field;
         field = strtok_r(NULL, ";", &save)) {
        garbage(random);
        char *end;
        for (char *p = field;; p = end + 1) {
            total += strtol(p, &end, 10);
            garbage(random);
            CHECK(end > p && (*end == ',' || *end == '\0'),
                  "strtol's end after a collection: '%c' at %ld", *end ? *end : '0',
                  (long)(end - field));
            if (*end != ',')
                break;
        }
        fields++;
    }
    CHECK_EQ(fields, sums->fields, "fields strtok_r found");
    CHECK_EQ(total, sums->total, "the sum of the numbers strtol read");
}

/* strtok_r wrote NULs over the separators: put them back for the next parse. */
static void restore_separators(textref record, size_t length)
{
    for (size_t i = 0; i < length; i++)
        if (record->data[i] == '\0')
            record->data[i] = ';';
}

static void find_commas(textref record, const record_sums *sums, uint64_t *random)
{
    char *comma = strchr((char *)record->data, ',');
    garbage(random);
    CHECK_EQ(comma ? comma - (char *)record->data : -1, sums->first_comma,
             "strchr's result after a collection");
    char *last = strrchr((char *)record->data, ',');
    char *digits_end = after_digits((char *)record->data, random);
    garbage(random);
    if (last)
        CHECK(*last == ',' && last[1] >= '0' && last[1] <= '9',
              "strrchr's result after a collection");
    CHECK(*digits_end == ',' || *digits_end == ';' || *digits_end == '\0',
          "a managed helper's pointer into the record, after collections: '%c'", *digits_end);
}

static void *run_thread(void *argument)
{
    uint64_t random = torture_stream((uint64_t)(uintptr_t)argument);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle kept = corral_handle_new(corral_alloc_array(&ref_array_type, KEPT));
    record_sums sums[KEPT];
    for (int i = 0; i < KEPT; i++)
        TORTURE_ELEMENTS(textref, *kept)[i] = new_record(&random, &sums[i]);
    long records = torture_count(4000, 200);
    for (long r = 0; r < records; r++) {
        int slot = (int)torture_below(&random, KEPT);
        if (torture_below(&random, 3) == 0)
            TORTURE_ELEMENTS(textref, *kept)[slot] = new_record(&random, &sums[slot]);
        textref record = TORTURE_ELEMENTS(textref, *kept)[slot];
        size_t length = strlen((char *)record->data);
        find_commas(record, &sums[slot], &random);
        parse_record(record, &sums[slot], &random);
        restore_separators(record, length);
        find_commas(record, &sums[slot], &random);
    }
    corral_handle_scope_close(scope);
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("c_strings", argc, argv);
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(run_thread, (void *)(i + 1));
    for (long i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    return torture_finish();
}
