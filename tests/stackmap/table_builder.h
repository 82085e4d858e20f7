/* table_builder.h — builds StackMap v3 tables byte by byte for the stackmap tests.
 *
 *   static const test_function functions[] = {{0x400000, 40, 1}};
 *   static const test_record records[] = {
 *       RECORD(7, 0x20, STATEPOINT_HEADER(0), LOC_SPILL(8), LOC_SPILL(8))};
 *   builder b = {0};
 *   emitted_table at = emit_table(&b, &(test_table)TABLE(functions, records));
 *
 * emit_table writes exactly what LLVM 19's StackMaps::serializeToStackMapSection
 * writes (zero reserved fields and padding) and reports where each part went,
 * so tests can corrupt a named field.
 */
#ifndef CORRAL_TESTS_STACKMAP_TABLE_BUILDER_H
#define CORRAL_TESTS_STACKMAP_TABLE_BUILDER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"

typedef struct builder {
    uint8_t *bytes;
    size_t length, capacity;
} builder;

static void builder_put(builder *b, const void *data, size_t size)
{
    if (b->length + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 256;
        while (capacity < b->length + size)
            capacity *= 2;
        b->bytes = realloc(b->bytes, capacity);
        if (!b->bytes)
            abort();
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->length, data, size);
    b->length += size;
}

static void put_le(builder *b, uint64_t value, size_t size)
{
    uint8_t bytes[8];
    for (size_t i = 0; i < size; i++)
        bytes[i] = (uint8_t)(value >> (8 * i));
    builder_put(b, bytes, size);
}

static void put_zeros(builder *b, size_t size)
{
    for (size_t i = 0; i < size; i++)
        put_le(b, 0, 1);
}

/* Pads with zeros to a multiple of 8 from table_start, as LLVM aligns. */
static void put_padding_to_8(builder *b, size_t table_start)
{
    while ((b->length - table_start) % 8 != 0)
        put_le(b, 0, 1);
}

static void builder_release(builder *b)
{
    free(b->bytes);
    memset(b, 0, sizeof *b);
}

typedef struct test_location {
    uint8_t kind; /* 1 Register, 2 Direct, 3 Indirect, 4 Constant, 5 ConstantIndex */
    uint16_t size;
    uint16_t dwarf_reg;
    int32_t value;
} test_location;

#define LOC_CONST(v) {4, 8, 0, (v)}
#define LOC_CONST_INDEX(i) {5, 8, 0, (i)}
/* The target's stack and frame pointers (x86-64 RSP 7, RBP 6; base/arch.h). */
#define LOC_SPILL(offset) {3, 8, ARCH_DWARF_SP, (offset)} /* [SP + offset] */
#define LOC_FRAME(offset) {3, 8, ARCH_DWARF_FP, (offset)} /* [FP + offset] */
#define LOC_REG(reg) {1, 8, (reg), 0}
#define LOC_DIRECT(reg, offset) {2, 8, (reg), (offset)}
/* calling convention 0, flags 0, deopt count */
#define STATEPOINT_HEADER(deopt) LOC_CONST(0), LOC_CONST(0), LOC_CONST(deopt)

typedef struct test_record {
    uint64_t id;
    uint32_t instruction_offset;
    uint16_t location_count;
    const test_location *locations;
    uint16_t live_out_count;
} test_record;

#define RECORD(id_, offset_, ...)                                                          \
    {.id = (id_), .instruction_offset = (offset_),                                         \
     .location_count =                                                                     \
         (uint16_t)(sizeof((const test_location[]){__VA_ARGS__}) / sizeof(test_location)), \
     .locations = (const test_location[]){__VA_ARGS__}}

typedef struct test_function {
    uint64_t address, stack_size, record_count;
} test_function;

typedef struct test_table {
    const test_function *functions;
    uint32_t function_count;
    const uint64_t *constants;
    uint32_t constant_count;
    const test_record *records;
    uint32_t record_count;
} test_table;

#define COUNT_OF(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))
#define TABLE(functions_, records_)                                                        \
    {.functions = (functions_), .function_count = COUNT_OF(functions_),                    \
     .records = (records_), .record_count = COUNT_OF(records_)}

enum { MAX_TEST_RECORDS = 64 };

/* Where emit_table put each part, as offsets in the builder. */
typedef struct emitted_table {
    size_t start, functions, constants, end;
    size_t records[MAX_TEST_RECORDS];     /* record starts */
    size_t locations[MAX_TEST_RECORDS];   /* first location of each record */
    size_t live_outs[MAX_TEST_RECORDS];   /* the u16 padding before NumLiveOuts */
} emitted_table;

static emitted_table emit_table(builder *b, const test_table *t)
{
    emitted_table at = {.start = b->length};
    put_le(b, 3, 1);
    put_zeros(b, 3);
    put_le(b, t->function_count, 4);
    put_le(b, t->constant_count, 4);
    put_le(b, t->record_count, 4);
    at.functions = b->length;
    for (uint32_t i = 0; i < t->function_count; i++) {
        put_le(b, t->functions[i].address, 8);
        put_le(b, t->functions[i].stack_size, 8);
        put_le(b, t->functions[i].record_count, 8);
    }
    at.constants = b->length;
    for (uint32_t i = 0; i < t->constant_count; i++)
        put_le(b, t->constants[i], 8);
    for (uint32_t r = 0; r < t->record_count; r++) {
        const test_record *record = &t->records[r];
        if (r < MAX_TEST_RECORDS)
            at.records[r] = b->length;
        put_le(b, record->id, 8);
        put_le(b, record->instruction_offset, 4);
        put_zeros(b, 2);
        put_le(b, record->location_count, 2);
        if (r < MAX_TEST_RECORDS)
            at.locations[r] = b->length;
        for (uint16_t l = 0; l < record->location_count; l++) {
            const test_location *loc = &record->locations[l];
            put_le(b, loc->kind, 1);
            put_zeros(b, 1);
            put_le(b, loc->size, 2);
            put_le(b, loc->dwarf_reg, 2);
            put_zeros(b, 2);
            put_le(b, (uint32_t)loc->value, 4);
        }
        put_padding_to_8(b, at.start);
        if (r < MAX_TEST_RECORDS)
            at.live_outs[r] = b->length;
        put_zeros(b, 2);
        put_le(b, record->live_out_count, 2);
        for (uint16_t l = 0; l < record->live_out_count; l++) {
            put_le(b, l, 2); /* DWARF register l */
            put_zeros(b, 1);
            put_le(b, 8, 1);
        }
        put_padding_to_8(b, at.start);
    }
    at.end = b->length;
    return at;
}

/* Overwrites size bytes at offset with value, little-endian. */
static void poke(builder *b, size_t offset, uint64_t value, size_t size)
{
    for (size_t i = 0; i < size; i++)
        b->bytes[offset + i] = (uint8_t)(value >> (8 * i));
}

#endif /* CORRAL_TESTS_STACKMAP_TABLE_BUILDER_H */
