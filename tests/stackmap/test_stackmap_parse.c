/* stackmap_parse.t — the StackMap v3 parser and record checks, linked alone
 * (corral_stackmap_parse: no runtime, no liburcu).
 *
 *   stackmap_parse.t                      run every test
 *   stackmap_parse.t --write-seeds DIR    write the hand-made tables as fuzz seeds
 *
 * Hand-made tables give what a valid table decodes to and one exact error
 * per corruption; real LLVM 19 output is compared with llvm-readobj's view of
 * it. Nothing here is random or shared: one TAP line per case, no subtests.
 * stackmap_registry.t tests the registry.
 */
#include "tap.h"

#include "stackmap/parse.h"
#include "corral/abi.h"
#include "table_builder.h"
#if CORRAL_STACKMAP_SAMPLES
#include "readobj_view.h"
#endif

#include <inttypes.h>
#include <stdbool.h>

enum { ERROR_SIZE = 512 };

/* The registers the hand-made tables use and their names in the parser's
 * messages, per architecture: SP and FP (base/arch.h), two callee-saved
 * registers A < B and a caller-saved one. */
#if defined(__aarch64__)
enum { SP = 31, FP = 29, SAVED_A = 19, SAVED_B = 20, SCRATCH = 0 };
#define SP_NAME "SP"
#define FP_NAME "X29"
#define SAVED_A_NAME "X19"
#define SAVED_B_NAME "X20"
#define SCRATCH_NAME "X0"
#define CALLEE_SAVED_NAMES "X19-X29"
#define REGISTER_RANGE "an AArch64 register number, 0-127"
#define FRAME_LINK_NAMES "the frame record (saved X29 and X30)"
#else
enum { SP = 7, FP = 6, SAVED_A = 3, SAVED_B = 14, SCRATCH = 0 };
#define SP_NAME "RSP"
#define FP_NAME "RBP"
#define SAVED_A_NAME "RBX"
#define SAVED_B_NAME "R14"
#define SCRATCH_NAME "RAX"
#define CALLEE_SAVED_NAMES "RBX, RBP, R12-R15"
#define REGISTER_RANGE "an x86-64 register number, 0-125"
#define FRAME_LINK_NAMES "the saved RBP or the return address"
#endif
_Static_assert(SP == ARCH_DWARF_SP && FP == ARCH_DWARF_FP, "LOC_SPILL and LOC_FRAME use SP and FP");

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
    /* An exact-size copy: under ASan a read past the input faults. */
    uint8_t *exact = malloc(length ? length : 1);
    memcpy(exact, b->bytes, length);
    int rc = stackmap_parse(exact, length, "test", &table, error, sizeof error);
    free(exact);
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
           slot_is(&r[0].bases[0], STACKMAP_SLOT_INDIRECT, SP, 8) &&
           slot_is(&r[0].bases[1], STACKMAP_SLOT_INDIRECT, SP, 16),
       "record 0: two spill-slot bases");
    ok(r[1].return_address == 0x40002a && r[1].base_count == 0 && r[1].bases == NULL &&
           r[1].derived == NULL,
       "record 1: no GC pointers, NULL arrays");
    ok(r[2].return_address == 0x401033 && r[2].stack_size == STACKMAP_DYNAMIC_FRAME,
       "record 2: dynamic frame keeps stack size UINT64_MAX");
    ok(r[2].base_count == 2 && slot_is(&r[2].bases[0], STACKMAP_SLOT_INDIRECT, FP, -24) &&
           slot_is(&r[2].bases[1], STACKMAP_SLOT_INDIRECT, SP, 0),
       "record 2: " FP_NAME " and " SP_NAME " slots in a dynamic frame");
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
           LOC_REG(SCRATCH), LOC_DIRECT(SP, 16), LOC_CONST_INDEX(0),
           /* (base, derived) pairs */
           LOC_SPILL(8), LOC_SPILL(8),       /* (A, A) */
           LOC_SPILL(8), LOC_SPILL(24),      /* (A, D) */
           LOC_SPILL(16), LOC_SPILL(16),     /* (B, B) */
           LOC_SPILL(8), LOC_SPILL(24),      /* (A, D) again */
           LOC_CONST(0), LOC_CONST(0),       /* (null, null) */
           LOC_CONST(0), LOC_SPILL(32),      /* (null, derived from null) */
           LOC_CONST_INDEX(0), LOC_CONST(0), /* (large constant, constant) */
           LOC_REG(SAVED_A), LOC_REG(SAVED_A), /* (A, A) */
           LOC_FRAME(-16), LOC_SPILL(0),     /* ([FP-16], [SP+0]) */
           LOC_REG(SAVED_B), LOC_REG(SAVED_B), /* (B, B) */
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
    ok(r->base_count == 5 && slot_is(&r->bases[0], STACKMAP_SLOT_INDIRECT, FP, -16) &&
           slot_is(&r->bases[1], STACKMAP_SLOT_INDIRECT, SP, 8) &&
           slot_is(&r->bases[2], STACKMAP_SLOT_INDIRECT, SP, 16) &&
           slot_is(&r->bases[3], STACKMAP_SLOT_REGISTER, SAVED_A, 0) &&
           slot_is(&r->bases[4], STACKMAP_SLOT_REGISTER, SAVED_B, 0),
       "bases sorted: [" FP_NAME "-16] [" SP_NAME "+8] [" SP_NAME "+16] " SAVED_A_NAME " "
       SAVED_B_NAME);
    is_int(r->derived_count, 2, "two derived pairs (repeats and self-pairs dropped)");
    ok(r->derived_count == 2 && slot_is(&r->derived[0].derived, STACKMAP_SLOT_INDIRECT, SP, 0) &&
           slot_is(&r->derived[0].base, STACKMAP_SLOT_INDIRECT, FP, -16) &&
           slot_is(&r->derived[1].derived, STACKMAP_SLOT_INDIRECT, SP, 24) &&
           slot_is(&r->derived[1].base, STACKMAP_SLOT_INDIRECT, SP, 8),
       "derived pairs sorted by derived slot: ([" FP_NAME "-16] -> [" SP_NAME "+0]) ([" SP_NAME
       "+8] -> [" SP_NAME "+24])");
    ok(stackmap_record_check(r), "the normalised record passes its check");
    stackmap_table_release(&table);
    builder_release(&b);
}

/* Vectors of references (the loop vectorizer's), spilled whole: a pair
 * per lane, base lane i with derived lane i. */
static const test_function vector_function[] = {{0x600000, 96, 1}};
static const test_record vector_record[] = {
    RECORD(22, 0x40, STATEPOINT_HEADER(0),
           {3, 16, ARCH_DWARF_SP, 16}, {3, 16, ARCH_DWARF_SP, 16}, /* (<A, B>, <A, B>) */
           {3, 16, ARCH_DWARF_SP, 16}, {3, 16, ARCH_DWARF_SP, 48}, /* (<A, B>, <C, D>) */
           LOC_SPILL(8), LOC_SPILL(8)),                            /* (E, E) */
};

static void test_vector_pairs(void)
{
    builder b = {0};
    test_table t = TABLE(vector_function, vector_record);
    emit_table(&b, &t);
    stackmap_table table;
    char error[ERROR_SIZE];
    if (!ok(parse_bytes(&b, &table, error) == 0, "parses 16-byte vector locations"))
        diag("  %s", error);
    const stackmap_record *r = &table.records[0];
    ok(r->base_count == 3 && slot_is(&r->bases[0], STACKMAP_SLOT_INDIRECT, SP, 8) &&
           slot_is(&r->bases[1], STACKMAP_SLOT_INDIRECT, SP, 16) &&
           slot_is(&r->bases[2], STACKMAP_SLOT_INDIRECT, SP, 24),
       "bases: the scalar and both lanes of the vector ([" SP_NAME "+8] [" SP_NAME "+16] ["
       SP_NAME "+24])");
    ok(r->derived_count == 2 &&
           slot_is(&r->derived[0].base, STACKMAP_SLOT_INDIRECT, SP, 16) &&
           slot_is(&r->derived[0].derived, STACKMAP_SLOT_INDIRECT, SP, 48) &&
           slot_is(&r->derived[1].base, STACKMAP_SLOT_INDIRECT, SP, 24) &&
           slot_is(&r->derived[1].derived, STACKMAP_SLOT_INDIRECT, SP, 56),
       "derived lanes pair with base lanes: ([" SP_NAME "+16] -> [" SP_NAME "+48]) ([" SP_NAME
       "+24] -> [" SP_NAME "+56])");
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
           slot_is(&table.records[0].bases[0], STACKMAP_SLOT_INDIRECT, SP, 16),
       "deopt locations are skipped: only the pair after them is a root");
    stackmap_table_release(&table);
    builder_release(&b);
}

/* The frame-CFA deopt pair the pass gives statepoints of dynamic frames on
 * AArch64 (corral/abi.h): parsed into frame_cfa, checked, never a root. */
static void test_frame_cfa(void)
{
    test_record record = RECORD(41, 0x10, STATEPOINT_HEADER(3),
                                LOC_CONST(CORRAL_ABI_FRAME_CFA_MARKER), LOC_FRAME(-16),
                                LOC_CONST(7), LOC_FRAME(-24), LOC_FRAME(-24));
    builder b = {0};
    emit_one_record(&b, STACKMAP_DYNAMIC_FRAME, &record);
    stackmap_table table;
    char error[ERROR_SIZE];
    if (!ok(parse_bytes(&b, &table, error) == 0, "frame CFA: parses the marker and its slot"))
        diag("  %s", error);
    const stackmap_record *parsed = table.records;
    ok(table.record_count == 1 && parsed->has_frame_cfa &&
           slot_is(&parsed->frame_cfa, STACKMAP_SLOT_INDIRECT, FP, -16),
       "frame CFA: the slot after the marker is the record's frame_cfa");
    ok(table.record_count == 1 && parsed->base_count == 1 &&
           slot_is(&parsed->bases[0], STACKMAP_SLOT_INDIRECT, FP, -24),
       "frame CFA: the deopt pair is no root; the pair after the deopt state is");
    ok(table.record_count == 1 && stackmap_record_check(parsed),
       "frame CFA: the parsed record passes the check");
    stackmap_table_release(&table);
    builder_release(&b);

    test_record plain = RECORD(42, 0x10, STATEPOINT_HEADER(2), LOC_CONST(5), LOC_FRAME(-16));
    emit_one_record(&b, STACKMAP_DYNAMIC_FRAME, &plain);
    ok(parse_bytes(&b, &table, error) == 0 && table.record_count == 1 &&
           !table.records[0].has_frame_cfa,
       "frame CFA: deopt state without the marker names no frame CFA");
    stackmap_table_release(&table);
    builder_release(&b);

    test_record no_slot = RECORD(43, 0x10, STATEPOINT_HEADER(2),
                                 LOC_CONST(CORRAL_ABI_FRAME_CFA_MARKER), LOC_CONST(0));
    expect_record_error(&no_slot, "test: offset 92: record 0: the frame-CFA marker is not "
                        "followed by an 8-byte Indirect location (expected the spill slot of "
                        "llvm.sponentry as deopt location 1)", "a frame-CFA marker without a slot");
    test_record last = RECORD(44, 0x10, STATEPOINT_HEADER(1),
                              LOC_CONST(CORRAL_ABI_FRAME_CFA_MARKER));
    expect_record_error(&last, "test: offset 92: record 0: the frame-CFA marker is not "
                        "followed by an 8-byte Indirect location (expected the spill slot of "
                        "llvm.sponentry as deopt location 1)", "a frame-CFA marker last");
    test_record on_link = RECORD(45, 0x10, STATEPOINT_HEADER(2),
                                 LOC_CONST(CORRAL_ABI_FRAME_CFA_MARKER), LOC_FRAME(8));
    expect_record_error(&on_link, "test: offset 104: record 0: frame-CFA spill slot [" FP_NAME
                        " + 8] is " FRAME_LINK_NAMES " (expected an offset below 0 or from 16)",
                        "a frame-CFA slot on the frame link");
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
                       "(expected " REGISTER_RANGE ")", "a live-out register out of range");
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
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {9, 8, SP, 8},
                                             LOC_SPILL(8)),
                        "test: offset 92: record 0 location 3: kind 9 (expected 1 Register, 2 "
                        "Direct, 3 Indirect, 4 Constant or 5 ConstantIndex)",
                        "a location kind out of range");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(1), {1, 8, 200, 0}),
                        "test: offset 92: record 0 location 3: DWARF register 200 (expected "
                        REGISTER_RANGE ")", "a register out of the DWARF range");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(1), LOC_CONST_INDEX(2)),
                        "test: offset 92: record 0 location 3: constant index 2 (expected below "
                        "NumConstants = 0)", "a constant index past the constant table");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(8),
                                             LOC_SPILL(8), LOC_SPILL(16)),
                        "test: offset 40: record 0: 3 GC pointer locations after 0 deopt "
                        "locations (expected an even number: (base, derived) pairs)",
                        "an odd number of GC pointer locations");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_DIRECT(SP, 16),
                                             LOC_DIRECT(SP, 16)),
                        "test: offset 92: record 0 location 3: Direct location " SP_NAME "+16 as a GC "
                        "pointer (expected Indirect, Register or Constant; gc allocas are not "
                        "supported)", "a Direct location as a GC pointer");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {3, 4, SP, 8},
                                             LOC_SPILL(8)),
                        "test: offset 92: record 0 location 3: GC pointer of 4 bytes in a spill "
                        "slot (expected 8, or a vector of up to 8 references spilled to the "
                        "stack: Indirect, a multiple of 8 bytes)",
                        "a GC pointer that is not 8 bytes");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {3, 12, SP, 8},
                                             {3, 12, SP, 8}),
                        "test: offset 92: record 0 location 3: GC pointer of 12 bytes in a spill "
                        "slot (expected 8, or a vector of up to 8 references spilled to the "
                        "stack: Indirect, a multiple of 8 bytes)",
                        "a vector spill that is not whole words");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {3, 72, SP, 8},
                                             {3, 72, SP, 8}),
                        "test: offset 92: record 0 location 3: GC pointer of 72 bytes in a spill "
                        "slot (expected 8, or a vector of up to 8 references spilled to the "
                        "stack: Indirect, a multiple of 8 bytes)",
                        "a vector of 9 references");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {1, 16, SAVED_A, 0},
                                             {1, 16, SAVED_A, 0}),
                        "test: offset 92: record 0 location 3: GC pointer of 16 bytes in a "
                        "register (expected 8, or a vector of up to 8 references spilled to the "
                        "stack: Indirect, a multiple of 8 bytes)",
                        "a vector of references in a register");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {3, 16, SP, 8},
                                             LOC_SPILL(32)),
                        "test: offset 104: record 0 location 4: derived pointer of 8 bytes but "
                        "its base has 16 (expected the same size: a vector's lanes pair one to "
                        "one)",
                        "a vector base with a scalar derived pointer");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_REG(SCRATCH),
                                             LOC_REG(SCRATCH)),
                        "test: offset 92: record 0 location 3: GC pointer in register " SCRATCH_NAME
                        " (expected a callee-saved register: " CALLEE_SAVED_NAMES ")",
                        "a GC pointer in a caller-saved register");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {1, 8, SAVED_A, 4},
                                             LOC_REG(SAVED_A)),
                        "test: offset 92: record 0 location 3: GC pointer in register " SAVED_A_NAME
                        " with "
                        "offset 4 (expected 0: a whole 64-bit register)",
                        "a GC pointer in part of a register");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), {3, 8, SCRATCH, 8},
                                             LOC_SPILL(8)),
                        "test: offset 92: record 0 location 3: spill slot [" SCRATCH_NAME " + 8] relative "
                        "to " SCRATCH_NAME " (expected " SP_NAME " or " FP_NAME ")", "a spill slot relative to another register");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(12),
                                             LOC_SPILL(12)),
                        "test: offset 92: record 0 location 3: spill slot [" SP_NAME " + 12] is not "
                        "8-byte aligned (expected an offset that is a multiple of 8)",
                        "a misaligned spill slot");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(-8),
                                             LOC_SPILL(-8)),
                        "test: offset 92: record 0 location 3: spill slot [" SP_NAME " - 8] is below "
                        "the stack pointer (expected an offset >= 0)", "a slot below " SP_NAME);
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(40),
                                             LOC_SPILL(40)),
                        "test: offset 92: record 0 location 3: spill slot [" SP_NAME " + 40] is the "
                        "return address of a 40-byte frame (expected a spill slot)",
                        "a slot on the return address");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_FRAME(8),
                                             LOC_FRAME(8)),
                        "test: offset 92: record 0 location 3: spill slot [" FP_NAME " + 8] is "
                        FRAME_LINK_NAMES " (expected an offset below 0 or from 16)",
                        "a slot on " FRAME_LINK_NAMES);
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(1 << 30 | 8),
                                             LOC_SPILL(8)),
                        "test: offset 92: record 0 location 3: spill slot [" SP_NAME " + 1073741832] is "
                        "more than 1 GiB from " SP_NAME " (expected an offset within the frame)",
                        "a slot offset beyond any frame");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(8),
                                             LOC_CONST(0)),
                        "test: offset 104: record 0 location 4: derived pointer is a constant but "
                        "its base [" SP_NAME " + 8] is not (expected both constant or neither)",
                        "a constant derived pointer of a real base");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(8),
                                             LOC_SPILL(16), LOC_SPILL(16), LOC_SPILL(16)),
                        "test: offset 40: record 0: slot [" SP_NAME " + 16] is a base and also the "
                        "derived pointer of base [" SP_NAME " + 8] (expected a slot to hold one or the "
                        "other)", "a slot that is both a base and a derived pointer");
    expect_record_error(&(test_record)RECORD(1, 8, STATEPOINT_HEADER(0), LOC_SPILL(8),
                                             LOC_SPILL(24), LOC_SPILL(16), LOC_SPILL(24)),
                        "test: offset 40: record 0: derived slot [" SP_NAME " + 24] has two bases, "
                        "[" SP_NAME " + 8] and [" SP_NAME " + 16] (expected one base per derived pointer)",
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
    static const stackmap_slot bases[] = {{STACKMAP_SLOT_INDIRECT, SP, 8},
                                          {STACKMAP_SLOT_INDIRECT, SP, 16}};
    static const stackmap_derived pairs[] = {
        {{STACKMAP_SLOT_INDIRECT, SP, 8}, {STACKMAP_SLOT_INDIRECT, SP, 24}}};
    const stackmap_record good = {0x400020, 0x400000, 40, 1, 2, 1, bases, pairs, false, {0}};
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
    static const stackmap_slot unsorted[] = {{STACKMAP_SLOT_INDIRECT, SP, 16},
                                             {STACKMAP_SLOT_INDIRECT, SP, 8}};
    bad = good;
    bad.bases = unsorted;
    is_str(stackmap_record_problem(&bad), "bases 0 and 1 are not in strictly increasing order",
           "check: unsorted bases");
    static const stackmap_slot caller_saved[] = {{STACKMAP_SLOT_REGISTER, SCRATCH, 0}};
    bad = good;
    bad.bases = caller_saved;
    bad.base_count = 1;
    bad.derived_count = 0;
    like_str(stackmap_record_problem(&bad), "GC pointer in register " SCRATCH_NAME,
             "check: caller-saved register");
    static const stackmap_derived orphan[] = {
        {{STACKMAP_SLOT_INDIRECT, SP, 0}, {STACKMAP_SLOT_INDIRECT, SP, 24}}};
    bad = good;
    bad.derived = orphan;
    is_str(stackmap_record_problem(&bad), "derived pair 0 has a base that is not in bases",
           "check: derived pair with an unknown base");
    static const stackmap_derived self[] = {
        {{STACKMAP_SLOT_INDIRECT, SP, 8}, {STACKMAP_SLOT_INDIRECT, SP, 16}}};
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
    bad = good;
    bad.has_frame_cfa = true;
    bad.frame_cfa = (stackmap_slot){STACKMAP_SLOT_REGISTER, SAVED_A, 0};
    is_str(stackmap_record_problem(&bad), "frame-CFA slot kind 1 (expected INDIRECT)",
           "check: a frame CFA in a register");
    bad.frame_cfa = (stackmap_slot){STACKMAP_SLOT_INDIRECT, FP, 4};
    like_str(stackmap_record_problem(&bad), "frame-CFA spill slot [" FP_NAME " + 4]",
             "check: a frame CFA on the frame link");
    ok(!stackmap_record_check(NULL), "check: NULL fails");
}

/* ---------------------------------------------------------------------------
 * Real LLVM 19 output.
 */
#if CORRAL_STACKMAP_SAMPLES
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
#endif /* CORRAL_STACKMAP_SAMPLES */

/* ---------------------------------------------------------------------------
 * Fuzz seeds: the hand-made valid tables, one file each.
 */
static int write_seed(const char *dir, const char *name, const builder *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "wb");
    if (!file || fwrite(b->bytes, 1, b->length, file) != b->length || fclose(file) != 0) {
        fprintf(stderr, "stackmap_parse.t: cannot write %s\n", path);
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
    b = (builder){0};
    test_table vectors = TABLE(vector_function, vector_record);
    emit_table(&b, &vectors);
    failed |= write_seed(dir, "hand-vector-lanes", &b);
    builder_release(&b);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
        return write_seeds(argv[2]);
    test_basic_table();
    test_dedupe();
    test_vector_pairs();
    test_deopt_and_live_outs();
    test_frame_cfa();
    test_concatenated_tables();
    test_header_errors();
    test_record_layout_errors();
    test_location_errors();
    test_record_check();
#if CORRAL_STACKMAP_SAMPLES
    test_real_output();
#else
    skip(1, "opt/llc/llvm-readobj 19 not found at configure time: no real compiler output");
#endif
    return done_testing();
}
