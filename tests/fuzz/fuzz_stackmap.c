/* fuzz_stackmap.c — libFuzzer target for the StackMap v3 parser.
 *
 * Beyond "no crash, no overread" (ASan + UBSan), every input must end in one
 * of two states, checked here:
 *   - accepted: the table and every record pass their consistency checks, and
 *     the record count is what the input's size allows;
 *   - rejected: "fuzz: offset N: ..." with N inside the input, and an empty table.
 *
 * Build: cmake -DCORRAL_FUZZ=ON -DCMAKE_C_COMPILER=clang-19 ..., target fuzz_stackmap.
 * Run:   build/fuzz/fuzz_stackmap -max_total_time=60 CORPUS_COPY tests/fuzz/corpus/stackmap
 */
#include "stackmap/parse.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The smallest record: 16-byte header, padding and live-out count, aligned. */
enum { SMALLEST_RECORD = 24 };

static void fail(const char *what, const uint8_t *data, size_t size, const char *detail)
{
    fprintf(stderr, "fuzz_stackmap: %s (input of %zu bytes, first byte %#x): %s\n", what, size,
            size ? data[0] : 0, detail ? detail : "");
    abort();
}

static void check_accepted(const stackmap_table *table, const uint8_t *data, size_t size)
{
    if (!stackmap_table_check(table)) {
        const char *problem = NULL;
        for (size_t i = 0; i < table->record_count && !problem; i++)
            problem = stackmap_record_problem(&table->records[i]);
        fail("an accepted table fails its check", data, size, problem);
    }
    if (table->record_count > size / SMALLEST_RECORD)
        fail("more records than the input can hold", data, size, NULL);
    for (size_t i = 0; i < table->record_count; i++)
        if (table->record_offsets[i] >= size)
            fail("a record offset outside the input", data, size, NULL);
}

static void check_rejected(const stackmap_table *table, const char *error, const uint8_t *data,
                           size_t size)
{
    static const char prefix[] = "fuzz: offset ";
    if (strncmp(error, prefix, sizeof prefix - 1) != 0)
        fail("an error without origin and offset", data, size, error);
    char *end;
    unsigned long long offset = strtoull(error + sizeof prefix - 1, &end, 10);
    if (end == error + sizeof prefix - 1 || strncmp(end, ": ", 2) != 0 || offset > size)
        fail("an error offset outside the input", data, size, error);
    if (table->records || table->record_count || table->slots || table->pairs)
        fail("a rejected table was not left empty", data, size, error);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    stackmap_table table;
    char error[512];
    if (stackmap_parse(data, size, "fuzz", &table, error, sizeof error) == 0)
        check_accepted(&table, data, size);
    else
        check_rejected(&table, error, data, size);
    stackmap_table_release(&table);
    return 0;
}
