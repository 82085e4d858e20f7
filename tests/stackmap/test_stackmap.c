/* stackmap.t — the StackMap v3 parser, the return-address registry and the
 * symboliser.
 *
 *   stackmap.t [SEED]              run every test (randomised parts print the seed)
 *   stackmap.t --write-seeds DIR   write the hand-made tables as fuzz seeds
 *
 * Parsing tests run in the main process (one TAP line per case); anything
 * that touches the process-wide registry or starts threads runs in a forked
 * subtest with a timeout, so each starts from an empty registry.
 */
#include "tap.h"

#include "stackmap.h"
#include "symbolize.h"
#include "table_builder.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <urcu/urcu-memb.h>

enum { ERROR_SIZE = 512 };

/* Timing bounds only hold without sanitizer instrumentation. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define TEST_SANITIZED 1
#endif
#endif
#ifndef TEST_SANITIZED
#define TEST_SANITIZED 0
#endif

static uint64_t test_seed;

/* ---------------------------------------------------------------------------
 * Helpers
 */
static int parse_bytes(const builder *b, stackmap_table *table, char *error)
{
    return stackmap_parse(b->bytes, b->length, "test", table, error, ERROR_SIZE);
}

static bool slot_is(const stackmap_slot *slot, int kind, int reg, int32_t offset)
{
    return slot->kind == kind && slot->dwarf_reg == reg && slot->offset == offset;
}

/* Parses b and checks that the exact error comes back and the table is empty. */
static void expect_parse_error(const builder *b, size_t length, const char *expected,
                               const char *name)
{
    stackmap_table table;
    char error[ERROR_SIZE];
    int rc = stackmap_parse(b->bytes, length, "test", &table, error, sizeof error);
    is_str(rc == 0 ? "(accepted)" : error, expected, "rejects %s", name);
    if (rc != 0 && (table.records || table.record_count))
        diag("  the rejected table was not left empty");
    stackmap_table_release(&table);
}

/* One table of one function holding one record. */
static emitted_table emit_one_record(builder *b, uint64_t stack_size, const test_record *record)
{
    test_function function = {0x400000, stack_size, 1};
    test_table table = {&function, 1, NULL, 0, record, 1};
    return emit_table(b, &table);
}

static void expect_record_error(const test_record *record, const char *expected,
                                const char *name)
{
    builder b = {0};
    emit_one_record(&b, 40, record);
    expect_parse_error(&b, b.length, expected, name);
    builder_release(&b);
}

static void rcu_reader_begin(void)
{
    urcu_memb_register_thread();
}

static void rcu_reader_end(void)
{
    urcu_memb_unregister_thread();
}

/* ---------------------------------------------------------------------------
 * Hand-made tables: what a valid table decodes to.
 */
static const test_function two_functions[] = {
    {0x400000, 40, 2},
    {0x401000, STACKMAP_DYNAMIC_FRAME, 1},
};
static const test_record three_records[] = {
    RECORD(11, 0x15, STATEPOINT_HEADER(0), LOC_SPILL(8), LOC_SPILL(8), LOC_SPILL(16),
           LOC_SPILL(16)),
    RECORD(12, 0x2a, STATEPOINT_HEADER(0)),
    RECORD(13, 0x33, STATEPOINT_HEADER(0), LOC_FRAME(-24), LOC_FRAME(-24), LOC_SPILL(0),
           LOC_SPILL(0)),
};

static void test_basic_table(void)
{
    builder b = {0};
    emitted_table at = emit_table(&b, &(test_table)TABLE(two_functions, three_records));
    stackmap_table table;
    char error[ERROR_SIZE];
    int rc = parse_bytes(&b, &table, error);
    if (!ok(rc == 0, "parses a two-function table"))
        diag("  %s", error);
    is_int(table.record_count, 3, "three records");
    is_int(table.table_count, 1, "one table");
    const stackmap_record *r = table.records;
    ok(r[0].return_address == 0x400015 && r[0].function_address == 0x400000 &&
           r[0].stack_size == 40 && r[0].id == 11,
       "record 0: return address, function, stack size, id");
    ok(r[0].base_count == 2 && r[0].derived_count == 0 &&
           slot_is(&r[0].bases[0], STACKMAP_SLOT_INDIRECT, 7, 8) &&
           slot_is(&r[0].bases[1], STACKMAP_SLOT_INDIRECT, 7, 16),
       "record 0: two spill-slot bases");
    ok(r[1].return_address == 0x40002a && r[1].base_count == 0 && r[1].bases == NULL &&
           r[1].derived == NULL,
       "record 1: no GC pointers, NULL arrays");
    ok(r[2].return_address == 0x401033 && r[2].stack_size == STACKMAP_DYNAMIC_FRAME,
       "record 2: dynamic frame keeps stack size UINT64_MAX");
    ok(r[2].base_count == 2 && slot_is(&r[2].bases[0], STACKMAP_SLOT_INDIRECT, 6, -24) &&
           slot_is(&r[2].bases[1], STACKMAP_SLOT_INDIRECT, 7, 0),
       "record 2: RBP and RSP slots in a dynamic frame");
    ok(table.record_offsets[0] == at.records[0] && table.record_offsets[2] == at.records[2],
       "record offsets point at the records in the input");
    ok(stackmap_table_check(&table), "the parsed table passes its check");
    stackmap_table_release(&table);
    builder_release(&b);
}

/* The normalisation rules: one entry per distinct base; pairs whose derived
 * slot is the base, repeated pairs and null-based pairs dropped. */
static const test_function dedupe_function[] = {{0x500000, 56, 1}};
static const uint64_t dedupe_constants[] = {0x123456789abcdefull};
static const test_record dedupe_record[] = {
    RECORD(21, 0x40, STATEPOINT_HEADER(3),
           /* deopt state: anything goes, none of it is a root */
           LOC_REG(0), LOC_DIRECT(7, 16), LOC_CONST_INDEX(0),
           /* (base, derived) pairs */
           LOC_SPILL(8), LOC_SPILL(8),       /* (A, A) */
           LOC_SPILL(8), LOC_SPILL(24),      /* (A, D) */
           LOC_SPILL(16), LOC_SPILL(16),     /* (B, B) */
           LOC_SPILL(8), LOC_SPILL(24),      /* (A, D) again */
           LOC_CONST(0), LOC_CONST(0),       /* (null, null) */
           LOC_CONST(0), LOC_SPILL(32),      /* (null, derived from null) */
           LOC_CONST_INDEX(0), LOC_CONST(0), /* (large constant, constant) */
           LOC_REG(3), LOC_REG(3),           /* (RBX, RBX) */
           LOC_FRAME(-16), LOC_SPILL(0),     /* ([RBP-16], [RSP+0]) */
           LOC_REG(14), LOC_REG(14),         /* (R14, R14) */
           LOC_SPILL(16), LOC_SPILL(16)),    /* (B, B) again */
};

static void test_dedupe(void)
{
    builder b = {0};
    test_table t = TABLE(dedupe_function, dedupe_record);
    t.constants = dedupe_constants;
    t.constant_count = COUNT_OF(dedupe_constants);
    emit_table(&b, &t);
    stackmap_table table;
    char error[ERROR_SIZE];
    if (!ok(parse_bytes(&b, &table, error) == 0, "parses a record with deopt state and pairs"))
        diag("  %s", error);
    const stackmap_record *r = &table.records[0];
    is_int(r->base_count, 5, "five distinct bases");
    ok(r->base_count == 5 && slot_is(&r->bases[0], STACKMAP_SLOT_INDIRECT, 6, -16) &&
           slot_is(&r->bases[1], STACKMAP_SLOT_INDIRECT, 7, 8) &&
           slot_is(&r->bases[2], STACKMAP_SLOT_INDIRECT, 7, 16) &&
           slot_is(&r->bases[3], STACKMAP_SLOT_REGISTER, 3, 0) &&
           slot_is(&r->bases[4], STACKMAP_SLOT_REGISTER, 14, 0),
       "bases sorted: [RBP-16] [RSP+8] [RSP+16] RBX R14");
    is_int(r->derived_count, 2, "two derived pairs (repeats and self-pairs dropped)");
    ok(r->derived_count == 2 && slot_is(&r->derived[0].derived, STACKMAP_SLOT_INDIRECT, 7, 0) &&
           slot_is(&r->derived[0].base, STACKMAP_SLOT_INDIRECT, 6, -16) &&
           slot_is(&r->derived[1].derived, STACKMAP_SLOT_INDIRECT, 7, 24) &&
           slot_is(&r->derived[1].base, STACKMAP_SLOT_INDIRECT, 7, 8),
       "derived pairs sorted by derived slot: ([RBP-16] -> [RSP+0]) ([RSP+8] -> [RSP+24])");
    ok(stackmap_record_check(r), "the normalised record passes its check");
    stackmap_table_release(&table);
    builder_release(&b);
}

static void test_deopt_and_live_outs(void)
{
    test_record record = RECORD(31, 0x10, STATEPOINT_HEADER(2), LOC_SPILL(8), LOC_CONST(5),
                                LOC_SPILL(16), LOC_SPILL(16));
    record.live_out_count = 3;
    builder b = {0};
    emit_one_record(&b, 40, &record);
    stackmap_table table;
    char error[ERROR_SIZE];
    if (!ok(parse_bytes(&b, &table, error) == 0, "parses deopt locations and live-outs"))
        diag("  %s", error);
    ok(table.record_count == 1 && table.records[0].base_count == 1 &&
           slot_is(&table.records[0].bases[0], STACKMAP_SLOT_INDIRECT, 7, 16),
       "deopt locations are skipped: only the pair after them is a root");
    stackmap_table_release(&table);
    builder_release(&b);
}

static void test_concatenated_tables(void)
{
    static const test_function f1[] = {{0x600000, 24, 1}};
    const test_record r1[] = {RECORD(41, 0x11, STATEPOINT_HEADER(0), LOC_SPILL(0),
                                            LOC_SPILL(0))};
    static const test_function f2[] = {{0x700000, 24, 2}};
    const test_record r2[] = {
        RECORD(42, 0x12, STATEPOINT_HEADER(0)),
        RECORD(43, 0x13, STATEPOINT_HEADER(0), LOC_SPILL(8), LOC_SPILL(8)),
    };
    builder b = {0};
    emit_table(&b, &(test_table)TABLE(f1, r1));
    put_zeros(&b, 8); /* linker padding */
    emitted_table second = emit_table(&b, &(test_table)TABLE(f2, r2));
    put_zeros(&b, 16);
    stackmap_table table;
    char error[ERROR_SIZE];
    if (!ok(parse_bytes(&b, &table, error) == 0, "parses two tables with zero padding"))
        diag("  %s", error);
    is_int(table.table_count, 2, "two tables");
    ok(table.record_count == 3 && table.records[0].return_address == 0x600011 &&
           table.records[2].return_address == 0x700013 &&
           table.record_offsets[2] == second.records[1],
       "records of both tables, offsets absolute");
    ok(table.records[2].base_count == 1 && table.records[2].bases == table.slots + 1,
       "bases of the second table follow the first's");
    stackmap_table_release(&table);

    /* An error in the second table names its absolute offset. */
    poke(&b, second.start, 2, 1);
    char expected[128];
    snprintf(expected, sizeof expected, "test: offset %zu: StackMap version 2 (expected 3)",
             second.start);
    expect_parse_error(&b, b.length, expected, "a bad second table, at its absolute offset");
    builder_release(&b);

    ok(stackmap_parse(NULL, 0, "test", &table, error, sizeof error) == 0 &&
           table.record_count == 0,
       "empty input: no records, no error");
    stackmap_table_release(&table);
}

/* ---------------------------------------------------------------------------
 * Corrupt tables: each gives its own message.
 */
static void test_header_errors(void)
{
    builder b = {0};
    emitted_table at = emit_table(&b, &(test_table)TABLE(two_functions, three_records));
    expect_parse_error(&b, 10, "test: offset 0: truncated header: 10 bytes remain (expected a "
                       "16-byte StackMap header)", "a truncated header");
    expect_parse_error(&b, 30, "test: offset 4: truncated function table: 2 functions need 48 "
                       "bytes but 14 remain", "a truncated function table");

    poke(&b, 0, 2, 1);
    expect_parse_error(&b, b.length, "test: offset 0: StackMap version 2 (expected 3)",
                       "a wrong version");
    poke(&b, 0, 3, 1);
    poke(&b, 2, 0x100, 2);
    expect_parse_error(&b, b.length, "test: offset 1: header reserved fields are 0 and 0x100 "
                       "(expected 0)", "non-zero header reserved fields");
    poke(&b, 2, 0, 2);

    poke(&b, 8, 1000, 4);
    expect_parse_error(&b, b.length, "test: offset 8: truncated constant table: 1000 constants "
                       "need 8000 bytes but 288 remain", "a truncated constant table");
    poke(&b, 8, 0, 4);

    poke(&b, 12, 100, 4);
    expect_parse_error(&b, b.length, "test: offset 12: truncated record table: 100 records need "
                       "at least 2400 bytes but 288 remain", "a record table too short for NumRecords");
    poke(&b, 12, 2, 4);
    expect_parse_error(&b, b.length, "test: offset 12: function record counts sum to 3 (expected "
                       "NumRecords = 2)", "function record counts that do not sum to NumRecords");
    poke(&b, 12, 3, 4);

    poke(&b, at.functions + 16, 5, 8);
    expect_parse_error(&b, b.length, "test: offset 16: function 0 (address 0x400000) claims 5 "
                       "records (expected at most NumRecords = 3)", "a function claiming too many records");
    poke(&b, at.functions + 16, 2, 8);

    poke(&b, at.functions + 24 + 8, 12, 8);
    expect_parse_error(&b, b.length, "test: offset 40: function 1 (address 0x401000): stack size "
                       "12 (expected a multiple of 8 up to 1 GiB, or UINT64_MAX for a dynamic "
                       "frame)", "a stack size that is not a multiple of 8");
    poke(&b, at.functions + 24 + 8, STACKMAP_DYNAMIC_FRAME, 8);

    /* Trailing bytes that are not zero padding are read as another table. */
    put_le(&b, 0x99, 8);
    put_zeros(&b, 8);
    char expected[128];
    snprintf(expected, sizeof expected, "test: offset %zu: StackMap version 153 (expected 3)",
             at.end);
    expect_parse_error(&b, b.length, expected, "trailing garbage after a table");
    b.length = at.end;
    put_le(&b, 0, 4);
    snprintf(expected, sizeof expected, "test: offset %zu: truncated header: 4 bytes remain "
             "(expected a 16-byte StackMap header)", at.end);
    expect_parse_error(&b, b.length, expected, "4 trailing zero bytes (padding comes in 8s)");
    builder_release(&b);
}

static void test_record_layout_errors(void)
{
    test_record record = RECORD(1, 0x20, STATEPOINT_HEADER(0), LOC_SPILL(8), LOC_SPILL(8));
    builder b = {0};
    emitted_table at = emit_one_record(&b, 40, &record);
    /* The record starts at 40: 16-byte header, 5 locations (60 bytes) to 116,
     * padded to 120, live-out header to 124, padded to 128. */
    expect_parse_error(&b, 100, "test: offset 40: truncated record 0: 5 locations need 60 bytes "
                       "but 44 remain", "truncated locations");
    expect_parse_error(&b, 120, "test: offset 116: truncated record 0: the live-out count at "
                       "offset 122 is past the end of the input (120 bytes)",
                       "a record cut before its live-out count");
    expect_parse_error(&b, 124, "test: offset 124: truncated record 0: its padding to 8 bytes "
                       "ends at offset 128, past the end of the input (124 bytes)",
                       "a record cut in its final padding");

    poke(&b, at.live_outs[0] + 2, 100, 2);
    expect_parse_error(&b, b.length, "test: offset 120: record 0: 100 live-outs need 400 bytes "
                       "but 4 remain (overlong live-out list)", "overlong live-outs");
    poke(&b, at.live_outs[0] + 2, 1, 2);
    poke(&b, at.live_outs[0] + 4, 300, 2);
    expect_parse_error(&b, b.length, "test: offset 124: record 0 live-out 0: DWARF register 300 "
                       "(expected an x86-64 register number, 0-125)", "a live-out register out of range");
    poke(&b, at.live_outs[0] + 2, 0, 6);

    poke(&b, at.records[0] + 8, 0, 4);
    expect_parse_error(&b, b.length, "test: offset 40: record 0: instruction offset 0 (expected "
                       "the offset of a return address, after a call)", "instruction offset 0");
    poke(&b, at.records[0] + 8, 0x20, 4);

    poke(&b, at.functions, UINT64_MAX - 8, 8);
    expect_parse_error(&b, b.length, "test: offset 40: record 0: function address "
                       "0xfffffffffffffff7 + instruction offset 32 overflows (expected a code "
                       "address)", "a return address that overflows");
    builder_release(&b);

    /* LLVM's marker for a call site it could not encode. */
    test_record invalid = {.id = UINT64_MAX, .instruction_offset = 8};
    expect_record_error(&invalid, "test: offset 40: record 0 has id UINT64_MAX and no locations "
                        "(LLVM could not encode this call site: over 65535 locations or "
                        "live-outs)", "LLVM's invalid-record marker");
}

static void test_location_errors(void)
{
    expect_record_error(&(test_record)RECORD(1, 8, LOC_CONST(0), LOC_CONST(0)),
                        "test: offset 40: record 0 has 2 locations (expected at least the 3 "
                        "statepoint constants: calling convention, flags, deopt count)",
                        "too few statepoint constants");
    expect_record_error(&(test_record)RECORD(1, 8, LOC_CONST(0), LOC_SPILL(8), LOC_CONST(0)),
                        "test: offset 68: record 0 location 1: kind 3 (expected 4 Constant: the "
                        "statepoint flags)", "a statepoint constant that is not a Constant");
    expect_record_error(&(test_record)RECORD(1, 8, LOC_CONST(0), LOC_CONST(8), LOC_CONST(0)),
                        "test: offset 68: record 0: statepoint flags 0x8 (expected a subset of "
                        "0x3: GCTransition, DeoptBefore)", "unknown statepoint flags");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(3), LOC_CONST(1)),
                        "test: offset 80: record 0: deopt location count 3 but 1 locations "
                        "follow the statepoint constants (expected at most 1)",
                        "a deopt count beyond the locations");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {9, 8, 7, 8},
                                             LOC_SPILL(8)),
                        "test: offset 92: record 0 location 3: kind 9 (expected 1 Register, 2 "
                        "Direct, 3 Indirect, 4 Constant or 5 ConstantIndex)",
                        "a location kind out of range");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(1), {1, 8, 200, 0}),
                        "test: offset 92: record 0 location 3: DWARF register 200 (expected an "
                        "x86-64 register number, 0-125)", "a register out of the DWARF range");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(1), LOC_CONST_INDEX(2)),
                        "test: offset 92: record 0 location 3: constant index 2 (expected below "
                        "NumConstants = 0)", "a constant index past the constant table");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(8),
                                             LOC_SPILL(8), LOC_SPILL(16)),
                        "test: offset 40: record 0: 3 GC pointer locations after 0 deopt "
                        "locations (expected an even number: (base, derived) pairs)",
                        "an odd number of GC pointer locations");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_DIRECT(7, 16),
                                             LOC_DIRECT(7, 16)),
                        "test: offset 92: record 0 location 3: Direct location RSP+16 as a GC "
                        "pointer (expected Indirect, Register or Constant; gc allocas are not "
                        "supported)", "a Direct location as a GC pointer");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {3, 4, 7, 8},
                                             LOC_SPILL(8)),
                        "test: offset 92: record 0 location 3: GC pointer of 4 bytes (expected 8)",
                        "a GC pointer that is not 8 bytes");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_REG(0), LOC_REG(0)),
                        "test: offset 92: record 0 location 3: GC pointer in register RAX "
                        "(expected a callee-saved register: RBX, RBP, R12-R15)",
                        "a GC pointer in a caller-saved register");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {1, 8, 3, 4},
                                             LOC_REG(3)),
                        "test: offset 92: record 0 location 3: GC pointer in register RBX with "
                        "offset 4 (expected 0: a whole 64-bit register)",
                        "a GC pointer in part of a register");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {3, 8, 0, 8},
                                             LOC_SPILL(8)),
                        "test: offset 92: record 0 location 3: spill slot [RAX + 8] relative to "
                        "RAX (expected RSP or RBP)", "a spill slot relative to another register");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(12),
                                             LOC_SPILL(12)),
                        "test: offset 92: record 0 location 3: spill slot [RSP + 12] is not "
                        "8-byte aligned (expected an offset that is a multiple of 8)",
                        "a misaligned spill slot");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(-8),
                                             LOC_SPILL(-8)),
                        "test: offset 92: record 0 location 3: spill slot [RSP - 8] is below the "
                        "stack pointer (expected an offset >= 0)", "a slot below RSP");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(40),
                                             LOC_SPILL(40)),
                        "test: offset 92: record 0 location 3: spill slot [RSP + 40] is the "
                        "return address of a 40-byte frame (expected a spill slot)",
                        "a slot on the return address");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_FRAME(8),
                                             LOC_FRAME(8)),
                        "test: offset 92: record 0 location 3: spill slot [RBP + 8] is the saved "
                        "RBP or the return address (expected an offset below 0 or from 16)",
                        "a slot on the saved RBP or return address");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(1 << 30 | 8),
                                             LOC_SPILL(8)),
                        "test: offset 92: record 0 location 3: spill slot [RSP + 1073741832] is "
                        "more than 1 GiB from RSP (expected an offset within the frame)",
                        "a slot offset beyond any frame");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(8),
                                             LOC_CONST(0)),
                        "test: offset 104: record 0 location 4: derived pointer is a constant but "
                        "its base [RSP + 8] is not (expected both constant or neither)",
                        "a constant derived pointer of a real base");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(8),
                                             LOC_SPILL(16), LOC_SPILL(16), LOC_SPILL(16)),
                        "test: offset 40: record 0: slot [RSP + 16] is a base and also the "
                        "derived pointer of base [RSP + 8] (expected a slot to hold one or the "
                        "other)", "a slot that is both a base and a derived pointer");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(8),
                                             LOC_SPILL(24), LOC_SPILL(16), LOC_SPILL(24)),
                        "test: offset 40: record 0: derived slot [RSP + 24] has two bases, "
                        "[RSP + 8] and [RSP + 16] (expected one base per derived pointer)",
                        "a derived slot with two bases");

    builder b = {0};
    test_record record = RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(8), LOC_SPILL(8));
    emitted_table at = emit_one_record(&b, 40, &record);
    poke(&b, at.locations[0] + 3 * 12 + 6, 1, 2);
    expect_parse_error(&b, b.length, "test: offset 92: record 0 location 3: reserved fields are "
                       "0 and 0x1 (expected 0)", "non-zero location reserved fields");
    builder_release(&b);
}

/* ---------------------------------------------------------------------------
 * The check function.
 */
static void test_record_check(void)
{
    static const stackmap_slot bases[] = {{STACKMAP_SLOT_INDIRECT, 7, 8},
                                          {STACKMAP_SLOT_INDIRECT, 7, 16}};
    static const stackmap_derived pairs[] = {
        {{STACKMAP_SLOT_INDIRECT, 7, 8}, {STACKMAP_SLOT_INDIRECT, 7, 24}}};
    const stackmap_record good = {0x400020, 0x400000, 40, 1, 2, 1, bases, pairs};
    ok(stackmap_record_check(&good) && stackmap_record_problem(&good) == NULL,
       "check: a consistent record passes");

    stackmap_record bad = good;
    bad.return_address = bad.function_address;
    like_str(stackmap_record_problem(&bad), "is not within 4 GiB after function address",
             "check: return address not after the function");
    bad = good;
    bad.stack_size = 12;
    like_str(stackmap_record_problem(&bad), "stack size 12 is neither",
             "check: bad stack size");
    static const stackmap_slot unsorted[] = {{STACKMAP_SLOT_INDIRECT, 7, 16},
                                             {STACKMAP_SLOT_INDIRECT, 7, 8}};
    bad = good;
    bad.bases = unsorted;
    is_str(stackmap_record_problem(&bad), "bases 0 and 1 are not in strictly increasing order",
           "check: unsorted bases");
    static const stackmap_slot caller_saved[] = {{STACKMAP_SLOT_REGISTER, 0, 0}};
    bad = good;
    bad.bases = caller_saved;
    bad.base_count = 1;
    bad.derived_count = 0;
    like_str(stackmap_record_problem(&bad), "GC pointer in register RAX",
             "check: caller-saved register");
    static const stackmap_derived orphan[] = {
        {{STACKMAP_SLOT_INDIRECT, 7, 0}, {STACKMAP_SLOT_INDIRECT, 7, 24}}};
    bad = good;
    bad.derived = orphan;
    is_str(stackmap_record_problem(&bad), "derived pair 0 has a base that is not in bases",
           "check: derived pair with an unknown base");
    static const stackmap_derived self[] = {
        {{STACKMAP_SLOT_INDIRECT, 7, 8}, {STACKMAP_SLOT_INDIRECT, 7, 16}}};
    bad = good;
    bad.derived = self;
    is_str(stackmap_record_problem(&bad), "derived pair 0 has a derived slot that is a base",
           "check: derived slot that is a base");
    static const stackmap_slot constant[] = {{STACKMAP_SLOT_CONSTANT, 0, 0}};
    bad = good;
    bad.bases = constant;
    bad.base_count = 1;
    bad.derived_count = 0;
    like_str(stackmap_record_problem(&bad), "slot kind 2", "check: a CONSTANT slot in bases");
    ok(!stackmap_record_check(NULL), "check: NULL fails");
}

/* ---------------------------------------------------------------------------
 * Real LLVM 19 output.
 */
#if CORRAL_STACKMAP_SAMPLES
extern const unsigned char sample_spill_stackmap[], sample_spill_readobj[];
extern const size_t sample_spill_stackmap_size, sample_spill_readobj_size;
extern const unsigned char sample_registers_stackmap[], sample_registers_readobj[];
extern const size_t sample_registers_stackmap_size, sample_registers_readobj_size;

enum { MAX_VIEW_RECORDS = 64, MAX_VIEW_SLOTS = 64 };

/* llvm-readobj --stackmap's account of one table: the independent reference. */
typedef struct readobj_view {
    unsigned function_count, record_count;
    uint64_t stack_sizes[MAX_VIEW_RECORDS];  /* per record, from its function */
    uint64_t ids[MAX_VIEW_RECORDS];
    unsigned offsets[MAX_VIEW_RECORDS];
    /* distinct non-constant GC pointer locations of each record */
    stackmap_slot slots[MAX_VIEW_RECORDS][MAX_VIEW_SLOTS];
    unsigned slot_counts[MAX_VIEW_RECORDS];
} readobj_view;

static int view_slot_compare(const void *a, const void *b)
{
    const stackmap_slot *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    if (x->dwarf_reg != y->dwarf_reg)
        return x->dwarf_reg - y->dwarf_reg;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static void add_distinct_slot(stackmap_slot *slots, unsigned *count, stackmap_slot slot)
{
    for (unsigned i = 0; i < *count; i++)
        if (view_slot_compare(&slots[i], &slot) == 0)
            return;
    if (*count < MAX_VIEW_SLOTS)
        slots[(*count)++] = slot;
}

/* Reads one "#N: ..." location line; returns 1 for a slot, 0 for a constant. */
static int parse_view_location(const char *line, stackmap_slot *slot, long *constant)
{
    unsigned reg;
    int offset;
    if (sscanf(line, " #%*u: Indirect [R#%u + %d]", &reg, &offset) == 2) {
        *slot = (stackmap_slot){STACKMAP_SLOT_INDIRECT, (uint16_t)reg, offset};
        return 1;
    }
    if (sscanf(line, " #%*u: Register R#%u", &reg) == 1) {
        *slot = (stackmap_slot){STACKMAP_SLOT_REGISTER, (uint16_t)reg, 0};
        return 1;
    }
    if (sscanf(line, " #%*u: Constant %ld", constant) == 1)
        return 0;
    return -1;
}

static void parse_readobj(const char *text, readobj_view *view)
{
    memset(view, 0, sizeof *view);
    uint64_t function_stack[MAX_VIEW_RECORDS], function_records[MAX_VIEW_RECORDS];
    unsigned function = 0, record = 0, location = 0, deopt = 0;
    int in_record = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        unsigned long long address, stack, count, id;
        unsigned offset;
        if (sscanf(line, " Function address: %llu, stack size: %llu, callsite record count: %llu",
                   &address, &stack, &count) == 3 && function < MAX_VIEW_RECORDS) {
            function_stack[function] = stack;
            function_records[function++] = count;
        } else if (sscanf(line, " Record ID: %llu, instruction offset: %u", &id, &offset) == 2 &&
                   record < MAX_VIEW_RECORDS) {
            view->ids[record] = id;
            view->offsets[record] = offset;
            record++;
            in_record = 1;
            location = 0;
        } else if (in_record && line[strspn(line, " ")] == '#') {
            stackmap_slot slot;
            long constant = 0;
            int kind = parse_view_location(line, &slot, &constant);
            if (location == 2 && kind == 0)
                deopt = (unsigned)constant;
            if (location >= 3 + deopt && kind == 1)
                add_distinct_slot(view->slots[record - 1], &view->slot_counts[record - 1], slot);
            location++;
        }
    }
    view->function_count = function;
    view->record_count = record;
    unsigned r = 0;
    for (unsigned f = 0; f < function; f++)
        for (uint64_t i = 0; i < function_records[f] && r < MAX_VIEW_RECORDS; i++)
            view->stack_sizes[r++] = function_stack[f];
    for (unsigned i = 0; i < record; i++)
        qsort(view->slots[i], view->slot_counts[i], sizeof(stackmap_slot), view_slot_compare);
}

static bool same_slots(const stackmap_slot *a, const stackmap_slot *b, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        if (view_slot_compare(&a[i], &b[i]) != 0)
            return false;
    return true;
}

/* Every slot the parser kept (bases and derived slots), distinct and sorted. */
static unsigned parsed_slots(const stackmap_record *record, stackmap_slot *slots)
{
    unsigned count = 0;
    for (uint32_t i = 0; i < record->base_count; i++)
        add_distinct_slot(slots, &count, record->bases[i]);
    for (uint32_t i = 0; i < record->derived_count; i++)
        add_distinct_slot(slots, &count, record->derived[i].derived);
    qsort(slots, count, sizeof *slots, view_slot_compare);
    return count;
}

static void compare_with_readobj(const char *name, const unsigned char *bytes, size_t size,
                                 const char *readobj, stackmap_table *table)
{
    char error[ERROR_SIZE];
    int rc = stackmap_parse(bytes, size, name, table, error, sizeof error);
    if (!ok(rc == 0, "%s: real llc output parses", name))
        diag("  %s", error);
    static readobj_view view;
    parse_readobj(readobj, &view);
    ok(view.record_count > 0, "%s: llvm-readobj lists %u records", name, view.record_count);
    is_int(table->record_count, view.record_count, "%s: record count matches llvm-readobj", name);
    unsigned mismatches = 0;
    for (size_t i = 0; i < table->record_count && i < view.record_count; i++) {
        const stackmap_record *record = &table->records[i];
        stackmap_slot slots[MAX_VIEW_SLOTS];
        unsigned count = parsed_slots(record, slots);
        int same = record->id == view.ids[i] &&
                   record->return_address - record->function_address == view.offsets[i] &&
                   record->stack_size == view.stack_sizes[i] && count == view.slot_counts[i] &&
                   same_slots(slots, view.slots[i], count);
        if (!same) {
            mismatches++;
            diag("  record %zu: id %" PRIu64 " offset %" PRIuPTR " stack %" PRIu64 " slots %u; "
                 "readobj: id %" PRIu64 " offset %u stack %" PRIu64 " slots %u", i, record->id,
                 record->return_address - record->function_address, record->stack_size, count,
                 view.ids[i], view.offsets[i], view.stack_sizes[i], view.slot_counts[i]);
        }
    }
    is_int(mismatches, 0, "%s: every record's id, offset, stack size and slots match llvm-readobj",
           name);
    ok(stackmap_table_check(table), "%s: the parsed table passes its check", name);
}

static void test_real_output(void)
{
    stackmap_table spill, registers;
    compare_with_readobj("spill", sample_spill_stackmap, sample_spill_stackmap_size,
                         (const char *)sample_spill_readobj, &spill);
    size_t derived = 0, dynamic = 0;
    for (size_t i = 0; i < spill.record_count; i++) {
        derived += spill.records[i].derived_count;
        dynamic += spill.records[i].stack_size == STACKMAP_DYNAMIC_FRAME;
    }
    ok(derived > 0, "spill: the interior pointer gives real derived pairs (%zu)", derived);
    ok(dynamic > 0, "spill: the dynamic alloca gives STACKMAP_DYNAMIC_FRAME records (%zu)", dynamic);

    compare_with_readobj("registers", sample_registers_stackmap, sample_registers_stackmap_size,
                         (const char *)sample_registers_readobj, &registers);
    size_t in_registers = 0;
    for (size_t i = 0; i < registers.record_count; i++)
        for (uint32_t b = 0; b < registers.records[i].base_count; b++)
            in_registers += registers.records[i].bases[b].kind == STACKMAP_SLOT_REGISTER;
    ok(in_registers > 0, "registers: callee-saved register slots are accepted (%zu)",
       in_registers);
    stackmap_table_release(&spill);
    stackmap_table_release(&registers);
}

/* The managed functions of sample.ll, linked into this test. References are
 * plain pointers here; the test never collects. */
void *stackmap_sample_pairs(void *a, void *b, int64_t i);
int64_t stackmap_sample_dynamic(int64_t n, void *a);
int64_t stackmap_sample_deopt(int64_t x, void *a);
int64_t stackmap_sample_loop(void *a, int64_t n);
void stackmap_sample_callee(void);

enum { MAX_OBSERVED_CALLS = 64, MAX_OBSERVED_SLOTS = 8 };

/* What one call saw of its caller's frame, read while the frame was live. */
typedef struct observed_call {
    uintptr_t return_address, caller_sp, caller_fp;
    const stackmap_record *record;
    uintptr_t base_values[MAX_OBSERVED_SLOTS];
    uintptr_t derived_values[MAX_OBSERVED_SLOTS][2]; /* (base, derived) */
} observed_call;

static observed_call observed_calls[MAX_OBSERVED_CALLS];
static int observed_count;

static uintptr_t read_slot(const observed_call *call, const stackmap_slot *slot)
{
    uintptr_t reg = slot->dwarf_reg == STACKMAP_DWARF_RSP ? call->caller_sp : call->caller_fp;
    return *(const uintptr_t *)(reg + (intptr_t)slot->offset);
}

/* Called by every statepoint in sample.ll: finds the caller's frame as the
 * stack walker would from the safepoint slow path (frame-pointer=all) and
 * reads every root its record names, while the frame is live. */
__attribute__((noinline)) void stackmap_sample_callee(void)
{
    uintptr_t *frame = __builtin_frame_address(0);
    if (observed_count >= MAX_OBSERVED_CALLS)
        return;
    observed_call *call = &observed_calls[observed_count++];
    *call = (observed_call){
        .return_address = (uintptr_t)__builtin_return_address(0),
        .caller_sp = (uintptr_t)frame + 16,
        .caller_fp = frame[0],
    };
    call->record = stackmap_lookup(call->return_address);
    if (!call->record)
        return;
    for (uint32_t i = 0; i < call->record->base_count && i < MAX_OBSERVED_SLOTS; i++)
        call->base_values[i] = read_slot(call, &call->record->bases[i]);
    for (uint32_t i = 0; i < call->record->derived_count && i < MAX_OBSERVED_SLOTS; i++) {
        call->derived_values[i][0] = read_slot(call, &call->record->derived[i].base);
        call->derived_values[i][1] = read_slot(call, &call->record->derived[i].derived);
    }
}

typedef struct sample_objects {
    uint64_t a[8], b[8];
} sample_objects;

/* Checks one observed call against its record; returns the number of problems. */
static int check_observed_call(const observed_call *call, const sample_objects *objects)
{
    const stackmap_record *record = call->record;
    if (!record) {
        diag("  no record for return address %#" PRIxPTR, call->return_address);
        return 1;
    }
    int problems = 0;
    uintptr_t a = (uintptr_t)objects->a, b = (uintptr_t)objects->b;
    if (record->stack_size != STACKMAP_DYNAMIC_FRAME &&
        call->caller_sp + record->stack_size + 8 != call->caller_fp + 16) {
        diag("  %#" PRIxPTR ": sp + stack size + 8 is not the CFA (rbp + 16)", call->return_address);
        problems++;
    }
    if (record->base_count > MAX_OBSERVED_SLOTS || record->derived_count > MAX_OBSERVED_SLOTS) {
        diag("  %#" PRIxPTR ": more roots than the test records", call->return_address);
        return problems + 1;
    }
    for (uint32_t i = 0; i < record->base_count; i++) {
        uintptr_t value = call->base_values[i];
        if (value != a && value != b && value != 0) {
            diag("  %#" PRIxPTR ": base %u holds %#" PRIxPTR ", not a reference", call->return_address,
                 i, value);
            problems++;
        }
    }
    for (uint32_t i = 0; i < record->derived_count; i++) {
        uintptr_t base = call->derived_values[i][0], derived = call->derived_values[i][1];
        if (base != a || derived != a + 3 * sizeof(uint64_t)) {
            diag("  %#" PRIxPTR ": derived pair %u holds (%#" PRIxPTR ", %#" PRIxPTR ")",
                 call->return_address, i, base, derived);
            problems++;
        }
    }
    return problems;
}

static bool is_sample_function(uintptr_t address)
{
    return address == (uintptr_t)stackmap_sample_pairs ||
           address == (uintptr_t)stackmap_sample_dynamic ||
           address == (uintptr_t)stackmap_sample_deopt || address == (uintptr_t)stackmap_sample_loop;
}

/* The linked section, found through __start_/__stop_, describes the frames
 * the managed code really builds. */
static void subtest_linked_section(void *arg)
{
    (void)arg;
    rcu_reader_begin();
    char error[ERROR_SIZE];
    int rc = stackmap_registry_add_linked(error, sizeof error);
    if (!ok(rc == 0, "the linked section registers"))
        diag("  %s", error);
    readobj_view *view = calloc(1, sizeof *view);
    parse_readobj((const char *)sample_spill_readobj, view);
    is_int(stackmap_registry_record_count(), view->record_count,
           "every linked record is registered");

    static sample_objects objects;
    objects.a[3] = 42;
    observed_count = 0;
    ok(stackmap_sample_pairs(objects.a, objects.b, 3) == &objects.a[3], "pairs runs");
    ok(stackmap_sample_dynamic(4, objects.a) == 4, "dynamic runs");
    ok(stackmap_sample_deopt(1, objects.a) == 0, "deopt runs");
    ok(stackmap_sample_loop(objects.a, 3) == 0, "loop runs");
    ok(observed_count > 0 && observed_count < MAX_OBSERVED_CALLS, "calls observed: %d",
       observed_count);

    int problems = 0;
    uintptr_t seen[MAX_OBSERVED_CALLS];
    int distinct = 0;
    for (int i = 0; i < observed_count; i++) {
        const observed_call *call = &observed_calls[i];
        const stackmap_record *record = call->record;
        if (record && !is_sample_function(record->function_address)) {
            diag("  record function %#" PRIxPTR " is not a sample function", record->function_address);
            problems++;
        }
        problems += check_observed_call(call, &objects);
        int known = 0;
        for (int j = 0; j < distinct; j++)
            known |= seen[j] == call->return_address;
        if (!known)
            seen[distinct++] = call->return_address;
    }
    is_int(problems, 0, "every call's record finds the references in its slots");
    is_int(distinct, view->record_count, "every record was reached by a real call");

    char text[256];
    corral_describe_return_address(observed_calls[0].return_address, text, sizeof text);
    ok(strstr(text, "stackmap_sample_pairs+0x") || strstr(text, "function 0x"),
       "a managed return address is described: %s", text);
    free(view);
    rcu_reader_end();
}
#endif /* CORRAL_STACKMAP_SAMPLES */

/* ---------------------------------------------------------------------------
 * The registry.
 */

/* A table with functions_count functions of records_per_function records at
 * base + f * 0x10000 + 16 * (r + 1); ids f * 1000 + r. */
static void build_synthetic_table(builder *b, uintptr_t base, uint32_t function_count,
                                  uint32_t records_per_function)
{
    test_function *functions = calloc(function_count, sizeof *functions);
    test_record *records = calloc((size_t)function_count * records_per_function, sizeof *records);
    /* one base [RSP+8] with derived pointers in [RSP+16] and [RSP+24] */
    static const test_location locations[] = {STATEPOINT_HEADER(0), LOC_SPILL(8), LOC_SPILL(8),
                                              LOC_SPILL(8), LOC_SPILL(16), LOC_SPILL(8),
                                              LOC_SPILL(24)};
    for (uint32_t f = 0; f < function_count; f++) {
        functions[f] = (test_function){base + (uintptr_t)f * 0x10000, 40, records_per_function};
        for (uint32_t r = 0; r < records_per_function; r++)
            records[(size_t)f * records_per_function + r] = (test_record){
                .id = (uint64_t)f * 1000 + r,
                .instruction_offset = 16 * (r + 1),
                .location_count = COUNT_OF(locations),
                .locations = locations,
            };
    }
    test_table table = {functions, function_count, NULL, 0, records,
                        function_count * records_per_function};
    emit_table(b, &table);
    free(functions);
    free(records);
}

static uintptr_t synthetic_address(uintptr_t base, uint32_t function, uint32_t record)
{
    return base + (uintptr_t)function * 0x10000 + 16 * (record + 1);
}

/* Fake code addresses: never mapped, so dladdr finds nothing there. */
#define REGION ((uintptr_t)0x100000000000ull)

static void subtest_registry_basics(void *arg)
{
    (void)arg;
    rcu_reader_begin();
    char error[ERROR_SIZE];
    ok(stackmap_lookup(0x1234) == NULL && stackmap_registry_record_count() == 0,
       "an empty registry finds nothing");
    builder b = {0};
    build_synthetic_table(&b, REGION, 2, 3);
    ok(stackmap_registry_add(b.bytes, b.length, "first", error, sizeof error) == 0,
       "a table registers");
    is_int(stackmap_registry_record_count(), 6, "six records");
    const stackmap_record *record = stackmap_lookup(synthetic_address(REGION, 1, 2));
    ok(record && record->id == 1002 && record->function_address == REGION + 0x10000 &&
           record->base_count == 1 && record->derived_count == 2,
       "lookup finds the record with its roots");
    ok(stackmap_lookup(synthetic_address(REGION, 1, 2) + 1) == NULL, "a near miss finds nothing");
    ok(stackmap_lookup(0) == NULL, "address 0 finds nothing");

    ok(stackmap_registry_add(b.bytes, b.length, "again", error, sizeof error) == 0,
       "an identical table again is accepted");
    is_int(stackmap_registry_record_count(), 6, "duplicates are not counted twice");
    ok(stackmap_lookup(synthetic_address(REGION, 1, 2)) == record,
       "the first registration's record stays");

    /* One input holding the same table twice, and more. */
    builder twice = {0};
    build_synthetic_table(&twice, REGION + 0x1000000, 1, 2);
    builder copy = {0};
    builder_put(&copy, twice.bytes, twice.length);
    builder_put(&twice, copy.bytes, copy.length);
    builder_release(&copy);
    ok(stackmap_registry_add(twice.bytes, twice.length, "twice", error, sizeof error) == 0,
       "identical duplicates inside one input are accepted");
    is_int(stackmap_registry_record_count(), 8, "and counted once");
    builder_release(&twice);

    ok(stackmap_registry_add_linked(error, sizeof error) == 0, "add_linked succeeds");
    builder_release(&b);
    rcu_reader_end();
}

static void subtest_registry_rejections(void *arg)
{
    (void)arg;
    rcu_reader_begin();
    char error[ERROR_SIZE];
    builder first = {0};
    build_synthetic_table(&first, REGION, 1, 2);
    ok(stackmap_registry_add(first.bytes, first.length, "module A", error, sizeof error) == 0,
       "module A registers");

    /* A new record and one that conflicts with module A (another id). */
    static const test_function functions[] = {{REGION + 0x7000000, 40, 1}, {REGION, 40, 1}};
    const test_record records[] = {
        RECORD(5, 0x10, STATEPOINT_HEADER(0)),
        RECORD(99, 0x10, STATEPOINT_HEADER(0)),
    };
    builder conflicting = {0};
    emitted_table at = emit_table(&conflicting, &(test_table)TABLE(functions, records));
    char expected[256];
    snprintf(expected, sizeof expected, "module B: offset %zu: record for return address %#"
             PRIxPTR " conflicts with the one registered from module A (expected identical "
             "records for one return address)", at.records[1], (uintptr_t)REGION + 0x10);
    int rc = stackmap_registry_add(conflicting.bytes, conflicting.length, "module B", error,
                                   sizeof error);
    is_str(rc ? error : "(accepted)", expected, "a conflicting duplicate is rejected");
    ok(stackmap_lookup(REGION + 0x7000010) == NULL && stackmap_registry_record_count() == 2,
       "a rejected table adds nothing, not even its good records");

    static const test_function same_place[] = {{REGION + 0x8000000, 40, 2}};
    const test_record twice[] = {
        RECORD(1, 0x10, STATEPOINT_HEADER(0)),
        RECORD(2, 0x10, STATEPOINT_HEADER(0)),
    };
    builder inside = {0};
    at = emit_table(&inside, &(test_table)TABLE(same_place, twice));
    snprintf(expected, sizeof expected, "module C: offset %zu: record for return address %#"
             PRIxPTR " conflicts with the record at offset %zu of the same input (expected "
             "identical records for one return address)", at.records[1],
             (uintptr_t)REGION + 0x8000010, at.records[0]);
    rc = stackmap_registry_add(inside.bytes, inside.length, "module C", error, sizeof error);
    is_str(rc ? error : "(accepted)", expected, "a conflict inside one input is rejected");

    static const test_function unlinked[] = {{0, 40, 1}};
    const test_record unlinked_record[] = {RECORD(1, 0x10, STATEPOINT_HEADER(0))};
    builder object = {0};
    at = emit_table(&object, &(test_table)TABLE(unlinked, unlinked_record));
    snprintf(expected, sizeof expected, "foo.o: offset %zu: record for return address 0x10 has "
             "function address 0 (expected a linked address; a table from an unlinked object "
             "file has unresolved relocations)", at.records[0]);
    rc = stackmap_registry_add(object.bytes, object.length, "foo.o", error, sizeof error);
    is_str(rc ? error : "(accepted)", expected, "a table from an unlinked object is rejected");

    poke(&object, 0, 1, 1);
    rc = stackmap_registry_add(object.bytes, object.length, "jit module 3", error, sizeof error);
    is_str(rc ? error : "(accepted)", "jit module 3: offset 0: StackMap version 1 (expected 3)",
           "a parse error names the origin");
    is_int(stackmap_registry_record_count(), 2, "the registry still holds module A only");
    builder_release(&first);
    builder_release(&conflicting);
    builder_release(&inside);
    builder_release(&object);
    rcu_reader_end();
}

/* A conflict is reported while an empty table (no records at all) is
 * registered: naming the owner must skip it, not do arithmetic on its NULL
 * record array (UBSan: "applying zero offset to null pointer"). */
static void subtest_registry_conflict_with_empty_table(void *arg)
{
    (void)arg;
    rcu_reader_begin();
    char error[ERROR_SIZE];
    builder first = {0};
    build_synthetic_table(&first, REGION, 1, 1);
    ok(stackmap_registry_add(first.bytes, first.length, "module A", error, sizeof error) == 0,
       "module A registers");
    builder empty = {0};
    emit_table(&empty, &(test_table){NULL, 0, NULL, 0, NULL, 0});
    ok(stackmap_registry_add(empty.bytes, empty.length, "empty", error, sizeof error) == 0,
       "a table without functions or records registers");
    static const test_function functions[] = {{REGION, 40, 1}};
    const test_record records[] = {RECORD(99, 0x10, STATEPOINT_HEADER(0))};
    builder conflicting = {0};
    emitted_table at = emit_table(&conflicting, &(test_table)TABLE(functions, records));
    char expected[256];
    snprintf(expected, sizeof expected, "module B: offset %zu: record for return address %#"
             PRIxPTR " conflicts with the one registered from module A (expected identical "
             "records for one return address)", at.records[0], (uintptr_t)REGION + 0x10);
    int rc = stackmap_registry_add(conflicting.bytes, conflicting.length, "module B", error,
                                   sizeof error);
    is_str(rc ? error : "(accepted)", expected, "the conflict names module A past the empty table");
    builder_release(&first);
    builder_release(&empty);
    builder_release(&conflicting);
    rcu_reader_end();
}

static void subtest_registry_growth(void *arg)
{
    (void)arg;
    rcu_reader_begin();
    char error[ERROR_SIZE];
    int failures = 0;
    enum { TABLES = 300, FUNCTIONS = 4, RECORDS = 10 };
    for (uint32_t t = 0; t < TABLES; t++) {
        builder b = {0};
        build_synthetic_table(&b, REGION + (uintptr_t)t * 0x1000000, FUNCTIONS, RECORDS);
        failures += stackmap_registry_add(b.bytes, b.length, "growth", error, sizeof error) != 0;
        builder_release(&b);
    }
    is_int(failures, 0, "300 tables register");
    is_int(stackmap_registry_record_count(), TABLES * FUNCTIONS * RECORDS, "12000 records");
    int missing = 0;
    for (uint32_t t = 0; t < TABLES; t++)
        for (uint32_t f = 0; f < FUNCTIONS; f++)
            for (uint32_t r = 0; r < RECORDS; r++) {
                const stackmap_record *record =
                    stackmap_lookup(synthetic_address(REGION + (uintptr_t)t * 0x1000000, f, r));
                missing += !record || record->id != (uint64_t)f * 1000 + r;
            }
    is_int(missing, 0, "every record is found after the index grew");
    rcu_reader_end();
}

/* Readers look up published records while a writer keeps registering tables
 * (and growing the index): a published record is always found, intact. */
enum { CONCURRENT_TABLES = 400, CONCURRENT_FUNCTIONS = 5, CONCURRENT_RECORDS = 8,
       CONCURRENT_READERS = 3 };

typedef struct concurrent_state {
    builder tables[CONCURRENT_TABLES];
    atomic_int published; /* tables registered so far: release by the writer */
    atomic_int writer_done;
    atomic_long lookups, lookups_while_writing, wrong;
    uint64_t seed;
} concurrent_state;

static uintptr_t concurrent_base(uint32_t table)
{
    return REGION + (uintptr_t)table * 0x1000000;
}

static void *concurrent_writer(void *arg)
{
    concurrent_state *state = arg;
    char error[ERROR_SIZE];
    for (int t = 0; t < CONCURRENT_TABLES; t++) {
        builder *b = &state->tables[t];
        if (stackmap_registry_add(b->bytes, b->length, "concurrent", error, sizeof error) != 0) {
            diag("  writer: %s", error);
            atomic_fetch_add(&state->wrong, 1);
        }
        atomic_store_explicit(&state->published, t + 1, memory_order_release);
    }
    atomic_store(&state->writer_done, 1);
    return NULL;
}

static void *concurrent_reader(void *arg)
{
    concurrent_state *state = arg;
    rcu_reader_begin();
    uint64_t random_state = state->seed ^ (uint64_t)(uintptr_t)&random_state;
    long lookups = 0, while_writing = 0, wrong = 0;
    while (!atomic_load(&state->writer_done) || lookups < 100000) {
        int published = atomic_load_explicit(&state->published, memory_order_acquire);
        if (published == 0)
            continue;
        uint64_t r = tap_random(&random_state);
        uint32_t t = (uint32_t)(r % (uint64_t)published);
        uint32_t f = (uint32_t)((r >> 20) % CONCURRENT_FUNCTIONS);
        uint32_t i = (uint32_t)((r >> 40) % CONCURRENT_RECORDS);
        uintptr_t address = synthetic_address(concurrent_base(t), f, i);
        const stackmap_record *record;
        if (r & 1) {
            record = stackmap_lookup(address);
        } else {
            urcu_memb_read_lock();
            record = stackmap_lookup_in_read_section(address);
            urcu_memb_read_unlock();
        }
        if (!record || record->id != (uint64_t)f * 1000 + i || record->base_count != 1 ||
            record->derived_count != 2 || !stackmap_record_check(record))
            wrong++;
        /* never registered: between records */
        if (stackmap_lookup(synthetic_address(concurrent_base(t), f, i) + 8) != NULL)
            wrong++;
        lookups++;
        while_writing += !atomic_load(&state->writer_done);
    }
    atomic_fetch_add(&state->lookups, lookups);
    atomic_fetch_add(&state->lookups_while_writing, while_writing);
    atomic_fetch_add(&state->wrong, wrong);
    rcu_reader_end();
    return NULL;
}

static void subtest_concurrent_lookups(void *arg)
{
    concurrent_state *state = calloc(1, sizeof *state);
    state->seed = *(const uint64_t *)arg;
    for (uint32_t t = 0; t < CONCURRENT_TABLES; t++)
        build_synthetic_table(&state->tables[t], concurrent_base(t), CONCURRENT_FUNCTIONS,
                              CONCURRENT_RECORDS);
    pthread_t readers[CONCURRENT_READERS], writer;
    for (int i = 0; i < CONCURRENT_READERS; i++)
        pthread_create(&readers[i], NULL, concurrent_reader, state);
    pthread_create(&writer, NULL, concurrent_writer, state);
    pthread_join(writer, NULL);
    for (int i = 0; i < CONCURRENT_READERS; i++)
        pthread_join(readers[i], NULL);
    long overlapped = atomic_load(&state->lookups_while_writing);
    diag("%ld lookups by %d readers, %ld of them while %d tables were being registered",
         atomic_load(&state->lookups), CONCURRENT_READERS, overlapped, CONCURRENT_TABLES);
    ok(overlapped > 1000, "readers ran while the writer registered and grew the index");
    is_int(atomic_load(&state->wrong), 0, "no lookup missed or garbled a published record");
    is_int(stackmap_registry_record_count(),
           CONCURRENT_TABLES * CONCURRENT_FUNCTIONS * CONCURRENT_RECORDS, "all records registered");
    for (uint32_t t = 0; t < CONCURRENT_TABLES; t++)
        builder_release(&state->tables[t]);
    free(state);
}

/* ns per lookup on a 100000-record registry, hits in random order and misses. */
static void subtest_lookup_speed(void *arg)
{
    uint64_t random_state = *(const uint64_t *)arg;
    rcu_reader_begin();
    enum { FUNCTIONS = 2000, RECORDS = 50, LOOKUPS = 4000000 };
    builder b = {0};
    build_synthetic_table(&b, REGION, FUNCTIONS, RECORDS);
    char error[ERROR_SIZE];
    ok(stackmap_registry_add(b.bytes, b.length, "speed", error, sizeof error) == 0,
       "100000 records register");
    builder_release(&b);
    uintptr_t *addresses = malloc(sizeof *addresses * 65536);
    for (int i = 0; i < 65536; i++) {
        uint64_t r = tap_random(&random_state);
        addresses[i] = synthetic_address(REGION, (uint32_t)(r % FUNCTIONS),
                                         (uint32_t)((r >> 32) % RECORDS));
    }
    uint64_t found = 0;
    double start = tap_now();
    for (int i = 0; i < LOOKUPS; i++)
        found += stackmap_lookup(addresses[i & 65535]) != NULL;
    double hit_ns = (tap_now() - start) * 1e9 / LOOKUPS;
    start = tap_now();
    for (int i = 0; i < LOOKUPS; i++)
        found += stackmap_lookup(addresses[i & 65535] + 4) != NULL;
    double miss_ns = (tap_now() - start) * 1e9 / LOOKUPS;
    /* As a stack walk would: one read-side critical section for many frames. */
    start = tap_now();
    urcu_memb_read_lock();
    for (int i = 0; i < LOOKUPS; i++)
        found += stackmap_lookup_in_read_section(addresses[i & 65535]) != NULL;
    urcu_memb_read_unlock();
    double held_ns = (tap_now() - start) * 1e9 / LOOKUPS;
    diag("stackmap_lookup: %.1f ns per hit, %.1f ns per miss; %.1f ns per hit inside one "
         "read-side section (100000 records)", hit_ns, miss_ns, held_ns);
    is_int(found, 2 * LOOKUPS, "every hit found, every miss missed");
    if (TEST_SANITIZED)
        diag("sanitizer build: the speed bound is not checked");
    else
        ok(hit_ns < 1000 && miss_ns < 1000, "lookups take well under a microsecond");
    free(addresses);
    rcu_reader_end();
}

/* ---------------------------------------------------------------------------
 * The symboliser.
 */
static void subtest_symbolize(void *arg)
{
    (void)arg;
    char text[256];
    corral_describe_code_address((uintptr_t)&fclose, text, sizeof text);
    if (strstr(text, "(no module)"))
        diag("dladdr found nothing: a static build; only the registry fallback is tested");
    else
        ok(strstr(text, "+0x0 (") != NULL, "a libc function: %s", text);
    corral_describe_code_address(0x10, text, sizeof text);
    is_str(text, "0x10 (no module)", "an unmapped address with no record");

    static const test_function functions[] = {{REGION, 40, 2}};
    const test_record records[] = {RECORD(1, 0x10, STATEPOINT_HEADER(0)),
                                          RECORD(2, 0x30, STATEPOINT_HEADER(0))};
    builder b = {0};
    emit_table(&b, &(test_table)TABLE(functions, records));
    char error[ERROR_SIZE];
    ok(stackmap_registry_add(b.bytes, b.length, "jit module 7", error, sizeof error) == 0,
       "a JIT table registers");
    corral_describe_return_address(REGION + 0x30, text, sizeof text);
    is_str(text, "function 0x100000000000+0x30 (jit module 7)",
           "a JIT return address is named through the registry");
    corral_describe_code_address(REGION + 0x40, text, sizeof text);
    is_str(text, "function 0x100000000000+0x40 (jit module 7, past its last call site)",
           "an address past the last call site says so");
    char tiny[8];
    corral_describe_code_address(REGION + 0x40, tiny, sizeof tiny);
    is_str(tiny, "functio", "a small buffer is truncated and terminated");
    builder_release(&b);
}

/* ---------------------------------------------------------------------------
 * Fuzz seeds: the hand-made valid tables, one file each.
 */
static int write_seed(const char *dir, const char *name, const builder *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "wb");
    if (!file || fwrite(b->bytes, 1, b->length, file) != b->length || fclose(file) != 0) {
        fprintf(stderr, "stackmap.t: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

static int write_seeds(const char *dir)
{
    int failed = 0;
    builder b = {0};
    emit_table(&b, &(test_table)TABLE(two_functions, three_records));
    failed |= write_seed(dir, "hand-two-functions", &b);
    builder_release(&b);

    test_table t = TABLE(dedupe_function, dedupe_record);
    t.constants = dedupe_constants;
    t.constant_count = COUNT_OF(dedupe_constants);
    emit_table(&b, &t);
    put_zeros(&b, 8);
    test_record live_outs = RECORD(31, 0x10, STATEPOINT_HEADER(2), LOC_SPILL(8), LOC_CONST(5),
                                   LOC_SPILL(16), LOC_SPILL(16));
    live_outs.live_out_count = 3;
    emit_one_record(&b, STACKMAP_DYNAMIC_FRAME, &live_outs);
    failed |= write_seed(dir, "hand-dedupe-deopt-liveouts", &b);
    builder_release(&b);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
        return write_seeds(argv[2]);
    test_seed = tap_seed(argc, argv);

    test_basic_table();
    test_dedupe();
    test_deopt_and_live_outs();
    test_concatenated_tables();
    test_header_errors();
    test_record_layout_errors();
    test_location_errors();
    test_record_check();
#if CORRAL_STACKMAP_SAMPLES
    test_real_output();
    tap_subtest("linked section: records describe the frames real calls build", 30,
                subtest_linked_section, NULL);
#else
    skip(1, "opt/llc/llvm-readobj 19 not found at configure time: no real compiler output");
#endif
    tap_subtest("registry: add, look up, identical duplicates", 30, subtest_registry_basics, NULL);
    tap_subtest("registry: conflicts, unlinked objects and parse errors add nothing", 30,
                subtest_registry_rejections, NULL);
    tap_subtest("registry: a conflict names its owner past an empty table", 30,
                subtest_registry_conflict_with_empty_table, NULL);
    tap_subtest("registry: the index grows across 300 tables", 60, subtest_registry_growth, NULL);
    tap_subtest("registry: lookups from 3 threads while another registers 400 tables", 60,
                subtest_concurrent_lookups, &test_seed);
    tap_subtest("registry: lookup speed", 60, subtest_lookup_speed, &test_seed);
    tap_subtest("symbolize: dladdr, registry fallback, unknown addresses", 30, subtest_symbolize,
                NULL);
    return done_testing();
}
