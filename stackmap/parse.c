/* parse.c — StackMap v3 parsing and the record checks (the registry that
 * indexes parsed records by return address is registry.c).
 *
 * The format (llvm/docs/StackMaps.rst, llvm/Object/StackMapParser.h, LLVM 19),
 * little-endian, one table per object, tables concatenated by the linker:
 *
 *   Header      u8 version (3), u8 reserved, u16 reserved,
 *               u32 NumFunctions, u32 NumConstants, u32 NumRecords     16 bytes
 *   Function[]  u64 address, u64 stack size, u64 record count          24 bytes each
 *   Constant[]  u64                                                      8 bytes each
 *   Record[]    u64 id, u32 instruction offset, u16 flags, u16 NumLocations
 *               Location[] u8 kind, u8 reserved, u16 size, u16 DWARF reg,
 *                          u16 reserved, i32 offset or small constant   12 bytes each
 *               (pad to 8) u16 padding, u16 NumLiveOuts
 *               LiveOut[]  u16 DWARF reg, u8 reserved, u8 size           4 bytes each
 *               (pad to 8)
 *
 * Records belong to functions in order: the first record count of function 0,
 * then those of function 1, ... A statepoint record's locations are
 *
 *   [Constant cc] [Constant flags] [Constant N] deopt[N] (base, derived)*
 *
 * where deopt[N] may begin [Constant CORRAL_ABI_FRAME_CFA_MARKER] [Indirect
 * slot of the frame's CFA] (corral/abi.h); the rest of deopt[N] is skipped.
 * (LLVM would append gc allocas as Direct locations; corral rejects them.)
 */
#include "parse.h"

#include <corral/abi.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * The binary layout.
 */
enum {
    HEADER_SIZE = 16,
    FUNCTION_SIZE = 24,
    CONSTANT_SIZE = 8,
    RECORD_HEADER_SIZE = 16,
    LOCATION_SIZE = 12,
    LIVE_OUT_HEADER_SIZE = 4,
    LIVE_OUT_SIZE = 4,
    /* header, no locations, padding + live-out count, aligned to 8 */
    MINIMUM_RECORD_SIZE = 24,
    STACKMAP_VERSION = 3,
    STATEPOINT_CONSTANTS = 3,
    /* StatepointFlags::MaskAll: GCTransition | DeoptBefore */
    STATEPOINT_FLAGS_MASK = 3,
};

enum location_kind {
    LOCATION_REGISTER = 1,
    LOCATION_DIRECT = 2,
    LOCATION_INDIRECT = 3,
    LOCATION_CONSTANT = 4,
    LOCATION_CONSTANT_INDEX = 5,
};

/* Frames and spill offsets beyond this are corrupt, not big. */
#define MAXIMUM_FRAME_BYTES (UINT64_C(1) << 30)

static uint16_t load_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static uint32_t load_u32(const uint8_t *p)
{
    return (uint32_t)load_u16(p) | (uint32_t)load_u16(p + 2) << 16;
}

static uint64_t load_u64(const uint8_t *p)
{
    return (uint64_t)load_u32(p) | (uint64_t)load_u32(p + 4) << 32;
}

static size_t align_up_8(size_t value)
{
    return (value + 7) & ~(size_t)7;
}

/* ---------------------------------------------------------------------------
 * Slots: naming, ordering and the rules a GC pointer slot must follow. The
 * parser and stackmap_record_check share the rules.
 */
static const char *const gpr_names[] = ARCH_DWARF_REGISTER_NAMES;

static void format_register(unsigned dwarf_reg, char *buffer, size_t size)
{
    if (dwarf_reg < sizeof gpr_names / sizeof gpr_names[0])
        snprintf(buffer, size, "%s", gpr_names[dwarf_reg]);
    else
        snprintf(buffer, size, "DWARF#%u", dwarf_reg);
}

/* "[RSP + 16]", "[RBP - 24]", "register RBX". */
static void format_slot(const stackmap_slot *slot, char *buffer, size_t size)
{
    char name[16];
    format_register(slot->dwarf_reg, name, sizeof name);
    if (slot->kind == STACKMAP_SLOT_REGISTER)
        snprintf(buffer, size, "register %s", name);
    else if (slot->kind == STACKMAP_SLOT_INDIRECT)
        snprintf(buffer, size, "[%s %c %" PRId64 "]", name, slot->offset < 0 ? '-' : '+',
                 slot->offset < 0 ? -(int64_t)slot->offset : (int64_t)slot->offset);
    else
        snprintf(buffer, size, "constant");
}

static int slot_compare(const stackmap_slot *a, const stackmap_slot *b)
{
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->dwarf_reg != b->dwarf_reg)
        return a->dwarf_reg < b->dwarf_reg ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return 0;
}

static bool slot_equal(const stackmap_slot *a, const stackmap_slot *b)
{
    return slot_compare(a, b) == 0;
}

static int slot_compare_qsort(const void *a, const void *b)
{
    return slot_compare(a, b);
}

/* Pairs sort by derived slot first, so two bases of one derived slot meet. */
static int pair_compare(const stackmap_derived *a, const stackmap_derived *b)
{
    int by_derived = slot_compare(&a->derived, &b->derived);
    return by_derived ? by_derived : slot_compare(&a->base, &b->base);
}

static int pair_compare_qsort(const void *a, const void *b)
{
    return pair_compare(a, b);
}

static bool offset_beyond_frame_limit(int32_t offset)
{
    int64_t magnitude = offset < 0 ? -(int64_t)offset : (int64_t)offset;
    return (uint64_t)magnitude > MAXIMUM_FRAME_BYTES;
}

static bool register_slot_problem(const stackmap_slot *slot, char *problem, size_t size)
{
    char name[16];
    format_register(slot->dwarf_reg, name, sizeof name);
    if (!arch_dwarf_callee_saved(slot->dwarf_reg)) {
        snprintf(problem, size, "GC pointer in register %s (expected a callee-saved register: "
                 ARCH_CALLEE_SAVED_NAMES ")", name);
        return true;
    }
    if (slot->offset != 0) {
        snprintf(problem, size, "GC pointer in register %s with offset %" PRId32 " (expected 0: "
                 "a whole 64-bit register)", name, slot->offset);
        return true;
    }
    return false;
}

/* A spill slot must be an aligned word the walker can address from the
 * stack or frame pointer, and never the frame's return address or saved FP. */
static bool spill_slot_problem(const stackmap_slot *slot, uint64_t stack_size, char *problem,
                               size_t size)
{
    char name[16], text[48];
    format_register(slot->dwarf_reg, name, sizeof name);
    format_slot(slot, text, sizeof text);
    bool from_rsp = slot->dwarf_reg == STACKMAP_DWARF_SP;
    if (!from_rsp && slot->dwarf_reg != STACKMAP_DWARF_FP)
        snprintf(problem, size, "spill slot %s relative to %s (expected %s or %s)", text, name,
                 gpr_names[STACKMAP_DWARF_SP], gpr_names[STACKMAP_DWARF_FP]);
    else if (offset_beyond_frame_limit(slot->offset))
        snprintf(problem, size, "spill slot %s is more than 1 GiB from %s (expected an offset "
                 "within the frame)", text, name);
    else if (slot->offset % 8 != 0)
        snprintf(problem, size, "spill slot %s is not 8-byte aligned (expected an offset that is "
                 "a multiple of 8)", text);
    else if (from_rsp && slot->offset < 0)
        snprintf(problem, size, "spill slot %s is below the stack pointer (expected an offset "
                 ">= 0)", text);
    else if (from_rsp && stack_size != STACKMAP_DYNAMIC_FRAME &&
             arch_sp_offset_is_frame_link(slot->offset, stack_size))
        snprintf(problem, size, "spill slot %s is the return address of a %" PRIu64 "-byte frame "
                 "(expected a spill slot)", text, stack_size);
    else if (!from_rsp && slot->offset >= 0 && slot->offset < 16)
        snprintf(problem, size, "spill slot %s is " ARCH_FRAME_LINK_NAMES " (expected "
                 "an offset below 0 or from 16)", text);
    else
        return false;
    return true;
}

/* Writes what is wrong with a GC pointer slot of a frame with stack_size to
 * problem and returns true; false when the slot is one the walker can use. */
static bool slot_problem(const stackmap_slot *slot, uint64_t stack_size, char *problem,
                         size_t size)
{
    if (slot->kind == STACKMAP_SLOT_REGISTER)
        return register_slot_problem(slot, problem, size);
    if (slot->kind == STACKMAP_SLOT_INDIRECT)
        return spill_slot_problem(slot, stack_size, problem, size);
    snprintf(problem, size, "slot kind %u (expected INDIRECT or REGISTER)", slot->kind);
    return true;
}

/* ---------------------------------------------------------------------------
 * The parser.
 */

/* One location as encoded, with where it sits in the input. */
typedef struct location {
    uint8_t kind;
    uint8_t reserved_byte;
    uint16_t size;
    uint16_t dwarf_reg;
    uint16_t reserved_half;
    int32_t value; /* offset, small constant or constant index */
    size_t offset; /* in the input */
} location;

typedef struct function_entry {
    uint64_t address;
    uint64_t stack_size;
    uint64_t record_count;
} function_entry;

typedef struct parser {
    const uint8_t *bytes;
    size_t length;
    const char *origin;
    char *error;
    size_t error_size;
    /* the table being parsed */
    size_t table_start;
    uint32_t constant_count;
    /* the output, grown as tables and records are parsed */
    stackmap_table *out;
    size_t record_capacity, offset_capacity, slot_capacity, pair_capacity;
    /* one record's GC pointers while it is normalised */
    stackmap_derived *scratch_pairs;
    size_t scratch_pair_capacity;
    stackmap_slot *scratch_bases;
    size_t scratch_base_capacity;
} parser;

static __attribute__((format(printf, 3, 4))) int parse_error(parser *p, size_t offset,
                                                               const char *format, ...)
{
    int used = snprintf(p->error, p->error_size, "%s: offset %zu: ", p->origin, offset);
    if (used >= 0 && (size_t)used < p->error_size) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(p->error + used, p->error_size - (size_t)used, format, ap);
        va_end(ap);
    }
    return -1;
}

/* Grows *array to hold at least needed elements; false when out of memory. */
static bool reserve(void **array, size_t *capacity, size_t needed, size_t element_size)
{
    if (needed <= *capacity)
        return true;
    size_t grown = *capacity ? *capacity : 16;
    while (grown < needed)
        grown *= 2;
    if (grown > SIZE_MAX / element_size)
        return false;
    void *bigger = realloc(*array, grown * element_size);
    if (!bigger)
        return false;
    *array = bigger;
    *capacity = grown;
    return true;
}

static int reserve_scratch(parser *p, size_t pair_count, size_t offset)
{
    if (!reserve((void **)&p->scratch_pairs, &p->scratch_pair_capacity, pair_count,
                 sizeof(stackmap_derived)) ||
        !reserve((void **)&p->scratch_bases, &p->scratch_base_capacity, pair_count,
                 sizeof(stackmap_slot)))
        return parse_error(p, offset, "out of memory for %zu GC pointer pairs", pair_count);
    return 0;
}

static location decode_location(const parser *p, size_t offset)
{
    const uint8_t *at = p->bytes + offset;
    return (location){
        .kind = at[0],
        .reserved_byte = at[1],
        .size = load_u16(at + 2),
        .dwarf_reg = load_u16(at + 4),
        .reserved_half = load_u16(at + 6),
        .value = (int32_t)load_u32(at + 8),
        .offset = offset,
    };
}

/* Checks what every location must satisfy, whatever its role. */
static int check_location(parser *p, uint32_t record_index, unsigned index, const location *loc)
{
    if (loc->kind < LOCATION_REGISTER || loc->kind > LOCATION_CONSTANT_INDEX)
        return parse_error(p, loc->offset, "record %" PRIu32 " location %u: kind %u (expected "
                           "1 Register, 2 Direct, 3 Indirect, 4 Constant or 5 ConstantIndex)",
                           record_index, index, loc->kind);
    if (loc->reserved_byte != 0 || loc->reserved_half != 0)
        return parse_error(p, loc->offset, "record %" PRIu32 " location %u: reserved fields are "
                           "%#x and %#x (expected 0)", record_index, index, loc->reserved_byte,
                           loc->reserved_half);
    bool uses_register = loc->kind == LOCATION_REGISTER || loc->kind == LOCATION_DIRECT ||
                         loc->kind == LOCATION_INDIRECT;
    if (uses_register && loc->dwarf_reg > STACKMAP_DWARF_LAST)
        return parse_error(p, loc->offset, "record %" PRIu32 " location %u: DWARF register %u "
                           "(expected an " ARCH_NAME " register number, 0-%d)", record_index, index,
                           loc->dwarf_reg, STACKMAP_DWARF_LAST);
    if (loc->kind == LOCATION_CONSTANT_INDEX && (uint32_t)loc->value >= p->constant_count)
        return parse_error(p, loc->offset, "record %" PRIu32 " location %u: constant index %"
                           PRIu32 " (expected below NumConstants = %" PRIu32 ")", record_index,
                           index, (uint32_t)loc->value, p->constant_count);
    return 0;
}

static const char *const statepoint_constant_names[STATEPOINT_CONSTANTS] = {
    "calling convention", "flags", "deopt location count"};

/* The 3 leading constants; returns the deopt location count in *deopt_count. */
static int parse_statepoint_constants(parser *p, uint32_t record_index, size_t locations_start,
                                      uint16_t location_count, uint32_t *deopt_count)
{
    location constants[STATEPOINT_CONSTANTS];
    for (unsigned i = 0; i < STATEPOINT_CONSTANTS; i++) {
        constants[i] = decode_location(p, locations_start + i * LOCATION_SIZE);
        if (check_location(p, record_index, i, &constants[i]))
            return -1;
        if (constants[i].kind != LOCATION_CONSTANT)
            return parse_error(p, constants[i].offset, "record %" PRIu32 " location %u: kind %u "
                               "(expected 4 Constant: the statepoint %s)", record_index, i,
                               constants[i].kind, statepoint_constant_names[i]);
    }
    uint32_t flags = (uint32_t)constants[1].value;
    if (flags & ~(uint32_t)STATEPOINT_FLAGS_MASK)
        return parse_error(p, constants[1].offset, "record %" PRIu32 ": statepoint flags %#"
                           PRIx32 " (expected a subset of %#x: GCTransition, DeoptBefore)",
                           record_index, flags, STATEPOINT_FLAGS_MASK);
    uint32_t deopt = (uint32_t)constants[2].value;
    uint32_t following = location_count - STATEPOINT_CONSTANTS;
    if (constants[2].value < 0 || deopt > following)
        return parse_error(p, constants[2].offset, "record %" PRIu32 ": deopt location count %"
                           PRId32 " but %" PRIu32 " locations follow the statepoint constants "
                           "(expected at most %" PRIu32 ")", record_index, constants[2].value,
                           following, following);
    *deopt_count = deopt;
    return 0;
}

/* The most references one GC location may hold: a vector of 8 (a 64-byte
 * spill of an AVX-512 register). */
#define GC_LOCATION_MAX_LANES 8

/* Classifies one GC pointer location: the number of references it holds
 * (1, or one per lane of a vector of references, which RewriteStatepointsForGC
 * relocates whole and the backend spills to consecutive words; the
 * vectorizer makes them from loops over references) with *slot the first,
 * 0 for a constant (nothing to relocate), -1 on error. */
static int gc_location_slot(parser *p, uint32_t record_index, unsigned index,
                            const location *loc, uint64_t stack_size, stackmap_slot *slot)
{
    if (check_location(p, record_index, index, loc))
        return -1;
    if (loc->kind == LOCATION_CONSTANT || loc->kind == LOCATION_CONSTANT_INDEX)
        return 0;
    char name[16];
    format_register(loc->dwarf_reg, name, sizeof name);
    if (loc->kind == LOCATION_DIRECT)
        return parse_error(p, loc->offset, "record %" PRIu32 " location %u: Direct location %s%+"
                           PRId32 " as a GC pointer (expected Indirect, Register or Constant; "
                           "gc allocas are not supported)", record_index, index, name,
                           loc->value);
    bool vector_spill = loc->kind == LOCATION_INDIRECT && loc->size % 8 == 0 &&
                        loc->size / 8 <= GC_LOCATION_MAX_LANES;
    if (loc->size != 8 && !vector_spill)
        return parse_error(p, loc->offset, "record %" PRIu32 " location %u: GC pointer of %u "
                           "bytes in %s (expected 8, or a vector of up to %d references spilled "
                           "to the stack: Indirect, a multiple of 8 bytes)", record_index, index,
                           loc->size,
                           loc->kind == LOCATION_REGISTER ? "a register" : "a spill slot",
                           GC_LOCATION_MAX_LANES);
    *slot = (stackmap_slot){
        .kind = loc->kind == LOCATION_REGISTER ? STACKMAP_SLOT_REGISTER : STACKMAP_SLOT_INDIRECT,
        .dwarf_reg = loc->dwarf_reg,
        .offset = loc->value,
    };
    int lanes = loc->size / 8;
    for (int lane = 0; lane < lanes; lane++) {
        stackmap_slot word = *slot;
        word.offset += 8 * lane;
        char problem[160];
        if (slot_problem(&word, stack_size, problem, sizeof problem))
            return parse_error(p, loc->offset, "record %" PRIu32 " location %u%s: %s",
                               record_index, index, lanes > 1 ? " (a vector lane)" : "",
                               problem);
    }
    return lanes;
}

/* Reads the (base, derived) pairs into p->scratch_pairs, a pair per lane of
 * a vector pair (base lane i is the base of derived lane i), dropping pairs
 * whose base is a constant; returns the number kept in *kept. */
static int collect_gc_pairs(parser *p, uint32_t record_index, size_t first_offset,
                            unsigned first_index, size_t pair_count, uint64_t stack_size,
                            size_t *kept)
{
    if (reserve_scratch(p, pair_count * GC_LOCATION_MAX_LANES, first_offset))
        return -1;
    *kept = 0;
    for (size_t i = 0; i < pair_count; i++) {
        unsigned base_index = first_index + 2 * (unsigned)i;
        location base = decode_location(p, first_offset + 2 * i * LOCATION_SIZE);
        location derived = decode_location(p, base.offset + LOCATION_SIZE);
        stackmap_derived pair;
        int base_lanes =
            gc_location_slot(p, record_index, base_index, &base, stack_size, &pair.base);
        if (base_lanes < 0)
            return -1;
        int derived_lanes = gc_location_slot(p, record_index, base_index + 1, &derived,
                                             stack_size, &pair.derived);
        if (derived_lanes < 0)
            return -1;
        if (!base_lanes)
            continue; /* a null base: nothing to relocate */
        if (!derived_lanes) {
            char text[48];
            format_slot(&pair.base, text, sizeof text);
            return parse_error(p, derived.offset, "record %" PRIu32 " location %u: derived "
                               "pointer is a constant but its base %s is not (expected both "
                               "constant or neither)", record_index, base_index + 1, text);
        }
        if (derived_lanes != base_lanes)
            return parse_error(p, derived.offset, "record %" PRIu32 " location %u: derived "
                               "pointer of %u bytes but its base has %u (expected the same "
                               "size: a vector's lanes pair one to one)", record_index,
                               base_index + 1, derived.size, base.size);
        for (int lane = 0; lane < base_lanes; lane++) {
            stackmap_derived word = pair;
            word.base.offset += 8 * lane;
            word.derived.offset += 8 * lane;
            p->scratch_pairs[(*kept)++] = word;
        }
    }
    return 0;
}

static bool sorted_slots_contain(const stackmap_slot *slots, size_t count,
                                 const stackmap_slot *slot)
{
    return count > 0 && bsearch(slot, slots, count, sizeof *slots, slot_compare_qsort) != NULL;
}

/* Distinct bases of the kept pairs, sorted, into p->scratch_bases. */
static size_t distinct_bases(parser *p, size_t pair_count)
{
    if (pair_count == 0)
        return 0; /* the scratch arrays may not exist yet */
    for (size_t i = 0; i < pair_count; i++)
        p->scratch_bases[i] = p->scratch_pairs[i].base;
    qsort(p->scratch_bases, pair_count, sizeof *p->scratch_bases, slot_compare_qsort);
    size_t distinct = 0;
    for (size_t i = 0; i < pair_count; i++)
        if (distinct == 0 || !slot_equal(&p->scratch_bases[distinct - 1], &p->scratch_bases[i]))
            p->scratch_bases[distinct++] = p->scratch_bases[i];
    return distinct;
}

/* Keeps the pairs with a derived slot of their own, sorted and distinct, and
 * checks that each derived slot has one base and is not itself a base. */
static int distinct_derived_pairs(parser *p, uint32_t record_index, size_t record_offset,
                                  size_t pair_count, size_t base_count, size_t *derived_count)
{
    stackmap_derived *pairs = p->scratch_pairs;
    size_t own = 0;
    for (size_t i = 0; i < pair_count; i++)
        if (!slot_equal(&pairs[i].base, &pairs[i].derived))
            pairs[own++] = pairs[i];
    if (own > 1)
        qsort(pairs, own, sizeof *pairs, pair_compare_qsort);
    size_t distinct = 0;
    char derived_text[48], base_text[48], other_text[48];
    for (size_t i = 0; i < own; i++) {
        if (distinct > 0 && pair_compare(&pairs[distinct - 1], &pairs[i]) == 0)
            continue; /* a repeated pair */
        format_slot(&pairs[i].derived, derived_text, sizeof derived_text);
        format_slot(&pairs[i].base, base_text, sizeof base_text);
        if (distinct > 0 && slot_equal(&pairs[distinct - 1].derived, &pairs[i].derived)) {
            format_slot(&pairs[distinct - 1].base, other_text, sizeof other_text);
            return parse_error(p, record_offset, "record %" PRIu32 ": derived slot %s has two "
                               "bases, %s and %s (expected one base per derived pointer)",
                               record_index, derived_text, other_text, base_text);
        }
        if (sorted_slots_contain(p->scratch_bases, base_count, &pairs[i].derived))
            return parse_error(p, record_offset, "record %" PRIu32 ": slot %s is a base and "
                               "also the derived pointer of base %s (expected a slot to hold "
                               "one or the other)", record_index, derived_text, base_text);
        pairs[distinct++] = pairs[i];
    }
    *derived_count = distinct;
    return 0;
}

/* Appends the normalised bases and derived pairs of one record to the output. */
static int append_gc_roots(parser *p, uint32_t record_index, size_t record_offset,
                           size_t pair_count, stackmap_record *record)
{
    size_t base_count = distinct_bases(p, pair_count);
    size_t derived_count = 0;
    if (distinct_derived_pairs(p, record_index, record_offset, pair_count, base_count,
                               &derived_count))
        return -1;
    stackmap_table *out = p->out;
    if (!reserve((void **)&out->slots, &p->slot_capacity, out->slot_count + base_count,
                 sizeof(stackmap_slot)) ||
        !reserve((void **)&out->pairs, &p->pair_capacity, out->pair_count + derived_count,
                 sizeof(stackmap_derived)))
        return parse_error(p, record_offset, "out of memory for the GC roots of record %" PRIu32,
                           record_index);
    /* Empty arrays may still be NULL: no pointer arithmetic or memcpy on them. */
    if (base_count)
        memcpy(out->slots + out->slot_count, p->scratch_bases, base_count * sizeof(stackmap_slot));
    if (derived_count)
        memcpy(out->pairs + out->pair_count, p->scratch_pairs,
               derived_count * sizeof(stackmap_derived));
    out->slot_count += base_count;
    out->pair_count += derived_count;
    /* Pointers are set once every array has stopped moving (finish_table). */
    record->base_count = (uint32_t)base_count;
    record->derived_count = (uint32_t)derived_count;
    return 0;
}

/* Checks the live-out list of a record and returns the offset after the record. */
static int parse_live_outs(parser *p, uint32_t record_index, size_t locations_end,
                           size_t *record_end)
{
    size_t header = p->table_start + align_up_8(locations_end - p->table_start);
    if (header > p->length || p->length - header < LIVE_OUT_HEADER_SIZE)
        return parse_error(p, locations_end, "truncated record %" PRIu32 ": the live-out count "
                           "at offset %zu is past the end of the input (%zu bytes)",
                           record_index, header + 2, p->length);
    uint16_t live_out_count = load_u16(p->bytes + header + 2);
    size_t first = header + LIVE_OUT_HEADER_SIZE;
    size_t needed = (size_t)live_out_count * LIVE_OUT_SIZE;
    if (p->length - first < needed)
        return parse_error(p, header, "record %" PRIu32 ": %u live-outs need %zu bytes but %zu "
                           "remain (overlong live-out list)", record_index, live_out_count,
                           needed, p->length - first);
    for (size_t i = 0; i < live_out_count; i++) {
        uint16_t dwarf_reg = load_u16(p->bytes + first + i * LIVE_OUT_SIZE);
        if (dwarf_reg > STACKMAP_DWARF_LAST)
            return parse_error(p, first + i * LIVE_OUT_SIZE, "record %" PRIu32 " live-out %zu: "
                               "DWARF register %u (expected an " ARCH_NAME " register number, 0-%d)",
                               record_index, i, dwarf_reg, STACKMAP_DWARF_LAST);
    }
    size_t end = p->table_start + align_up_8(first + needed - p->table_start);
    if (end > p->length)
        return parse_error(p, first + needed, "truncated record %" PRIu32 ": its padding to 8 "
                           "bytes ends at offset %zu, past the end of the input (%zu bytes)",
                           record_index, end, p->length);
    *record_end = end;
    return 0;
}

/* Where one record's parts lie in the input, and its fixed fields. */
typedef struct record_layout {
    size_t start, locations_start, end;
    uint64_t id;
    uint32_t instruction_offset;
    uint16_t location_count;
} record_layout;

/* Bounds-checks the record at start, live-outs and padding included. */
static int read_record_layout(parser *p, uint32_t record_index, size_t start,
                              record_layout *layout)
{
    if (p->length - start < RECORD_HEADER_SIZE)
        return parse_error(p, start, "truncated record %" PRIu32 ": its 16-byte header needs "
                           "%d bytes but %zu remain", record_index, RECORD_HEADER_SIZE,
                           p->length - start);
    const uint8_t *at = p->bytes + start;
    *layout = (record_layout){
        .start = start,
        .locations_start = start + RECORD_HEADER_SIZE,
        .id = load_u64(at),
        .instruction_offset = load_u32(at + 8),
        .location_count = load_u16(at + 14),
    };
    size_t locations_bytes = (size_t)layout->location_count * LOCATION_SIZE;
    if (p->length - layout->locations_start < locations_bytes)
        return parse_error(p, start, "truncated record %" PRIu32 ": %u locations need %zu bytes "
                           "but %zu remain", record_index, layout->location_count,
                           locations_bytes, p->length - layout->locations_start);
    return parse_live_outs(p, record_index, layout->locations_start + locations_bytes,
                           &layout->end);
}

/* Checks that the record describes a call site of function a walker can use. */
static int check_call_site(parser *p, uint32_t record_index, const record_layout *layout,
                           const function_entry *function)
{
    if (layout->id == UINT64_MAX && layout->location_count == 0)
        return parse_error(p, layout->start, "record %" PRIu32 " has id UINT64_MAX and no "
                           "locations (LLVM could not encode this call site: over 65535 "
                           "locations or live-outs)", record_index);
    if (layout->instruction_offset == 0)
        return parse_error(p, layout->start, "record %" PRIu32 ": instruction offset 0 (expected "
                           "the offset of a return address, after a call)", record_index);
    if (function->address > UINTPTR_MAX - layout->instruction_offset)
        return parse_error(p, layout->start, "record %" PRIu32 ": function address %#" PRIx64
                           " + instruction offset %" PRIu32 " overflows (expected a code "
                           "address)", record_index, function->address,
                           layout->instruction_offset);
    if (layout->location_count < STATEPOINT_CONSTANTS)
        return parse_error(p, layout->start, "record %" PRIu32 " has %u locations (expected at "
                           "least the %d statepoint constants: calling convention, flags, deopt "
                           "count)", record_index, layout->location_count, STATEPOINT_CONSTANTS);
    return 0;
}

/* The frame-CFA slot when the deopt state begins with corral's marker
 * (corral/abi.h); *frame_cfa stays a CONSTANT slot (absent) otherwise. */
static int parse_frame_cfa(parser *p, uint32_t record_index, const record_layout *layout,
                           uint32_t deopt_count, uint64_t stack_size, stackmap_slot *frame_cfa)
{
    *frame_cfa = (stackmap_slot){.kind = STACKMAP_SLOT_CONSTANT};
    if (deopt_count == 0)
        return 0;
    size_t first = layout->locations_start + STATEPOINT_CONSTANTS * LOCATION_SIZE;
    location marker = decode_location(p, first);
    if (marker.kind != LOCATION_CONSTANT || marker.value != CORRAL_ABI_FRAME_CFA_MARKER)
        return 0;
    /* Decoded only when inside the deopt state: past it may be past the input. */
    location cfa = deopt_count >= 2 ? decode_location(p, first + LOCATION_SIZE) : marker;
    if (deopt_count < 2 || cfa.kind != LOCATION_INDIRECT || cfa.size != 8)
        return parse_error(p, marker.offset, "record %" PRIu32 ": the frame-CFA marker is not "
                           "followed by an 8-byte Indirect location (expected the spill slot of "
                           "llvm.sponentry as deopt location 1)", record_index);
    *frame_cfa = (stackmap_slot){
        .kind = STACKMAP_SLOT_INDIRECT, .dwarf_reg = cfa.dwarf_reg, .offset = cfa.value};
    char problem[160];
    if (spill_slot_problem(frame_cfa, stack_size, problem, sizeof problem))
        return parse_error(p, cfa.offset, "record %" PRIu32 ": frame-CFA %s", record_index,
                           problem);
    return 0;
}

/* Reads the statepoint constants and deopt state (the frame-CFA slot into
 * *frame_cfa) and collects the GC pointer pairs into p->scratch_pairs; *kept
 * is how many have a real base. */
static int collect_statepoint_roots(parser *p, uint32_t record_index, const record_layout *layout,
                                    uint64_t stack_size, stackmap_slot *frame_cfa, size_t *kept)
{
    uint32_t deopt_count = 0;
    if (parse_statepoint_constants(p, record_index, layout->locations_start,
                                   layout->location_count, &deopt_count))
        return -1;
    unsigned first_gc = STATEPOINT_CONSTANTS + deopt_count;
    for (unsigned i = STATEPOINT_CONSTANTS; i < first_gc; i++) {
        location deopt = decode_location(p, layout->locations_start + i * LOCATION_SIZE);
        if (check_location(p, record_index, i, &deopt))
            return -1;
    }
    if (parse_frame_cfa(p, record_index, layout, deopt_count, stack_size, frame_cfa))
        return -1;
    unsigned gc_count = layout->location_count - first_gc;
    if (gc_count % 2 != 0)
        return parse_error(p, layout->start, "record %" PRIu32 ": %u GC pointer locations after %"
                           PRIu32 " deopt locations (expected an even number: (base, derived) "
                           "pairs)", record_index, gc_count, deopt_count);
    return collect_gc_pairs(p, record_index, layout->locations_start + first_gc * LOCATION_SIZE,
                            first_gc, gc_count / 2, stack_size, kept);
}

/* Parses the record at *position, of function, and appends it to the output. */
static int parse_record(parser *p, uint32_t record_index, const function_entry *function,
                        size_t *position)
{
    record_layout layout = {0};
    size_t kept = 0;
    stackmap_slot frame_cfa;
    if (read_record_layout(p, record_index, *position, &layout) ||
        check_call_site(p, record_index, &layout, function) ||
        collect_statepoint_roots(p, record_index, &layout, function->stack_size, &frame_cfa,
                                 &kept))
        return -1;
    stackmap_table *out = p->out;
    stackmap_record *record = &out->records[out->record_count];
    *record = (stackmap_record){
        .return_address = (uintptr_t)function->address + layout.instruction_offset,
        .function_address = (uintptr_t)function->address,
        .stack_size = function->stack_size,
        .id = layout.id,
        .has_frame_cfa = frame_cfa.kind == STACKMAP_SLOT_INDIRECT,
        .frame_cfa = frame_cfa,
    };
    if (append_gc_roots(p, record_index, layout.start, kept, record))
        return -1;
    out->record_offsets[out->record_count++] = layout.start;
    *position = layout.end;
    return 0;
}

static function_entry decode_function(const parser *p, size_t offset)
{
    const uint8_t *at = p->bytes + offset;
    return (function_entry){load_u64(at), load_u64(at + 8), load_u64(at + 16)};
}

static int check_function(parser *p, uint32_t index, const function_entry *function,
                          size_t offset, uint32_t record_total)
{
    if (function->stack_size != STACKMAP_DYNAMIC_FRAME &&
        (function->stack_size % 8 != 0 || function->stack_size > MAXIMUM_FRAME_BYTES))
        return parse_error(p, offset, "function %" PRIu32 " (address %#" PRIx64 "): stack size %"
                           PRIu64 " (expected a multiple of 8 up to 1 GiB, or UINT64_MAX for a "
                           "dynamic frame)", index, function->address, function->stack_size);
    if (function->record_count > record_total)
        return parse_error(p, offset, "function %" PRIu32 " (address %#" PRIx64 ") claims %"
                           PRIu64 " records (expected at most NumRecords = %" PRIu32 ")", index,
                           function->address, function->record_count, record_total);
    return 0;
}

typedef struct table_header {
    uint32_t function_count, constant_count, record_count;
} table_header;

static int parse_header(parser *p, size_t start, table_header *header)
{
    size_t remaining = p->length - start;
    if (remaining < HEADER_SIZE)
        return parse_error(p, start, "truncated header: %zu bytes remain (expected a %d-byte "
                           "StackMap header)", remaining, HEADER_SIZE);
    const uint8_t *at = p->bytes + start;
    if (at[0] != STACKMAP_VERSION)
        return parse_error(p, start, "StackMap version %u (expected %d)", at[0],
                           STACKMAP_VERSION);
    if (at[1] != 0 || load_u16(at + 2) != 0)
        return parse_error(p, start + 1, "header reserved fields are %#x and %#x (expected 0)",
                           at[1], load_u16(at + 2));
    *header = (table_header){load_u32(at + 4), load_u32(at + 8), load_u32(at + 12)};
    remaining -= HEADER_SIZE;
    uint64_t function_bytes = (uint64_t)header->function_count * FUNCTION_SIZE;
    if (function_bytes > remaining)
        return parse_error(p, start + 4, "truncated function table: %" PRIu32 " functions need %"
                           PRIu64 " bytes but %zu remain", header->function_count,
                           function_bytes, remaining);
    remaining -= function_bytes;
    uint64_t constant_bytes = (uint64_t)header->constant_count * CONSTANT_SIZE;
    if (constant_bytes > remaining)
        return parse_error(p, start + 8, "truncated constant table: %" PRIu32 " constants need %"
                           PRIu64 " bytes but %zu remain", header->constant_count,
                           constant_bytes, remaining);
    remaining -= constant_bytes;
    uint64_t record_bytes = (uint64_t)header->record_count * MINIMUM_RECORD_SIZE;
    if (record_bytes > remaining)
        return parse_error(p, start + 12, "truncated record table: %" PRIu32 " records need at "
                           "least %" PRIu64 " bytes but %zu remain", header->record_count,
                           record_bytes, remaining);
    return 0;
}

/* Checks every function entry and that their record counts add up. */
static int check_function_table(parser *p, size_t functions_start, const table_header *header)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < header->function_count; i++) {
        size_t offset = functions_start + (size_t)i * FUNCTION_SIZE;
        function_entry function = decode_function(p, offset);
        if (check_function(p, i, &function, offset, header->record_count))
            return -1;
        sum += function.record_count; /* each <= 2^32: no overflow */
    }
    if (sum != header->record_count)
        return parse_error(p, p->table_start + 12, "function record counts sum to %" PRIu64
                           " (expected NumRecords = %" PRIu32 ")", sum, header->record_count);
    return 0;
}

/* Parses the table at *position and moves *position past it. */
static int parse_one_table(parser *p, size_t *position)
{
    table_header header = {0};
    p->table_start = *position;
    if (parse_header(p, p->table_start, &header))
        return -1;
    p->constant_count = header.constant_count;
    size_t functions_start = p->table_start + HEADER_SIZE;
    if (check_function_table(p, functions_start, &header))
        return -1;
    stackmap_table *out = p->out;
    size_t needed = out->record_count + header.record_count;
    if (!reserve((void **)&out->records, &p->record_capacity, needed, sizeof(stackmap_record)) ||
        !reserve((void **)&out->record_offsets, &p->offset_capacity, needed, sizeof(size_t)))
        return parse_error(p, p->table_start, "out of memory for %" PRIu32 " records",
                           header.record_count);
    size_t record_position = functions_start + (size_t)header.function_count * FUNCTION_SIZE +
                             (size_t)header.constant_count * CONSTANT_SIZE;
    uint32_t record_index = 0;
    for (uint32_t f = 0; f < header.function_count; f++) {
        function_entry function = decode_function(p, functions_start + (size_t)f * FUNCTION_SIZE);
        for (uint64_t r = 0; r < function.record_count; r++)
            if (parse_record(p, record_index++, &function, &record_position))
                return -1;
    }
    out->table_count++;
    *position = record_position;
    return 0;
}

static bool is_zero_word(const parser *p, size_t position)
{
    if (p->length - position < 8)
        return false;
    return load_u64(p->bytes + position) == 0;
}

/* Points every record at its bases and pairs, now that the arrays are final. */
static void finish_table(stackmap_table *table)
{
    size_t slot_cursor = 0, pair_cursor = 0;
    for (size_t i = 0; i < table->record_count; i++) {
        stackmap_record *record = &table->records[i];
        record->bases = record->base_count ? table->slots + slot_cursor : NULL;
        record->derived = record->derived_count ? table->pairs + pair_cursor : NULL;
        slot_cursor += record->base_count;
        pair_cursor += record->derived_count;
    }
    table->signature = STACKMAP_TABLE_SIGNATURE;
}

void stackmap_table_release(stackmap_table *table)
{
    if (!table)
        return;
    free(table->records);
    free(table->record_offsets);
    free(table->slots);
    free(table->pairs);
    memset(table, 0, sizeof *table);
}

int stackmap_parse(const uint8_t *bytes, size_t length, const char *origin,
                   stackmap_table *table, char *error, size_t error_size)
{
    memset(table, 0, sizeof *table);
    if (error_size)
        error[0] = '\0';
    parser p = {
        .bytes = bytes,
        .length = bytes ? length : 0,
        .origin = origin ? origin : "stackmap",
        .error = error,
        .error_size = error_size,
        .out = table,
    };
    int status = 0;
    size_t position = 0;
    while (status == 0 && position < p.length) {
        if (is_zero_word(&p, position))
            position += 8; /* linker padding between tables */
        else
            status = parse_one_table(&p, &position);
    }
    free(p.scratch_pairs);
    free(p.scratch_bases);
    if (status) {
        stackmap_table_release(table);
        return -1;
    }
    finish_table(table);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Consistency checks (MPS style): cheap enough for debug builds and the
 * verifier, and written against the record alone.
 */
static _Thread_local char check_problem[256];

static bool base_problem(const stackmap_record *record, char *problem, size_t size)
{
    for (uint32_t i = 0; i < record->base_count; i++) {
        const stackmap_slot *slot = &record->bases[i];
        if (slot_problem(slot, record->stack_size, problem, size))
            return true;
        if (i > 0 && slot_compare(&record->bases[i - 1], slot) >= 0) {
            snprintf(problem, size, "bases %" PRIu32 " and %" PRIu32 " are not in strictly "
                     "increasing order", i - 1, i);
            return true;
        }
    }
    return false;
}

static bool derived_problem(const stackmap_record *record, char *problem, size_t size)
{
    for (uint32_t i = 0; i < record->derived_count; i++) {
        const stackmap_derived *pair = &record->derived[i];
        if (slot_problem(&pair->derived, record->stack_size, problem, size))
            return true;
        if (!sorted_slots_contain(record->bases, record->base_count, &pair->base)) {
            snprintf(problem, size, "derived pair %" PRIu32 " has a base that is not in bases", i);
            return true;
        }
        if (sorted_slots_contain(record->bases, record->base_count, &pair->derived)) {
            snprintf(problem, size, "derived pair %" PRIu32 " has a derived slot that is a base", i);
            return true;
        }
        if (i > 0 && slot_compare(&record->derived[i - 1].derived, &pair->derived) >= 0) {
            snprintf(problem, size, "derived pairs %" PRIu32 " and %" PRIu32 " are not in "
                     "strictly increasing derived-slot order", i - 1, i);
            return true;
        }
    }
    return false;
}

static bool frame_problem(const stackmap_record *record, char *problem, size_t size)
{
    if (record->return_address <= record->function_address ||
        record->return_address - record->function_address > UINT32_MAX) {
        snprintf(problem, size, "return address %#" PRIxPTR " is not within 4 GiB after "
                 "function address %#" PRIxPTR, record->return_address, record->function_address);
        return true;
    }
    if (record->stack_size != STACKMAP_DYNAMIC_FRAME &&
        (record->stack_size % 8 != 0 || record->stack_size > MAXIMUM_FRAME_BYTES)) {
        snprintf(problem, size, "stack size %" PRIu64 " is neither a multiple of 8 up to 1 GiB "
                 "nor STACKMAP_DYNAMIC_FRAME", record->stack_size);
        return true;
    }
    if ((record->base_count && !record->bases) || (record->derived_count && !record->derived)) {
        snprintf(problem, size, "a slot count is non-zero but its array is NULL");
        return true;
    }
    if (record->derived_count && !record->base_count) {
        snprintf(problem, size, "derived pairs without bases");
        return true;
    }
    if (record->has_frame_cfa) {
        char slot_text[96];
        if (record->frame_cfa.kind != STACKMAP_SLOT_INDIRECT) {
            snprintf(problem, size, "frame-CFA slot kind %u (expected INDIRECT)",
                     record->frame_cfa.kind);
            return true;
        }
        if (spill_slot_problem(&record->frame_cfa, record->stack_size, slot_text,
                               sizeof slot_text)) {
            snprintf(problem, size, "frame-CFA %s", slot_text);
            return true;
        }
    }
    return false;
}

const char *stackmap_record_problem(const stackmap_record *record)
{
    char *problem = check_problem;
    size_t size = sizeof check_problem;
    if (!record) {
        snprintf(problem, size, "record is NULL");
        return problem;
    }
    if (frame_problem(record, problem, size) || base_problem(record, problem, size) ||
        derived_problem(record, problem, size))
        return problem;
    return NULL;
}

int stackmap_record_check(const stackmap_record *record)
{
    return stackmap_record_problem(record) == NULL;
}

int stackmap_table_check(const stackmap_table *table)
{
    if (!table || table->signature != STACKMAP_TABLE_SIGNATURE)
        return 0;
    if (table->record_count && (!table->records || !table->record_offsets))
        return 0;
    size_t slots = 0, pairs = 0;
    for (size_t i = 0; i < table->record_count; i++) {
        const stackmap_record *record = &table->records[i];
        if (!stackmap_record_check(record))
            return 0;
        if (record->base_count && record->bases != table->slots + slots)
            return 0;
        if (record->derived_count && record->derived != table->pairs + pairs)
            return 0;
        slots += record->base_count;
        pairs += record->derived_count;
    }
    return slots == table->slot_count && pairs == table->pair_count;
}

/* ---------------------------------------------------------------------------
 * Equality: the registry accepts a second record for one return address only
 * when it equals the first.
 */
static bool slots_identical(const stackmap_slot *a, const stackmap_slot *b, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!slot_equal(&a[i], &b[i]))
            return false;
    return true;
}

bool stackmap_record_equal(const stackmap_record *a, const stackmap_record *b)
{
    if (a->return_address != b->return_address || a->function_address != b->function_address ||
        a->stack_size != b->stack_size || a->id != b->id || a->base_count != b->base_count ||
        a->derived_count != b->derived_count)
        return false;
    if (!slots_identical(a->bases, b->bases, a->base_count) ||
        a->has_frame_cfa != b->has_frame_cfa ||
        (a->has_frame_cfa && !slot_equal(&a->frame_cfa, &b->frame_cfa)))
        return false;
    for (uint32_t i = 0; i < a->derived_count; i++)
        if (pair_compare(&a->derived[i], &b->derived[i]) != 0)
            return false;
    return true;
}
