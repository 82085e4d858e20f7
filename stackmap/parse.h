/* parse.h — LLVM StackMap v3 tables: the parser and the record checks. The
 * bottom of the stackmap module: it includes nothing of corral's, so its test
 * and the fuzzer build it without the runtime (corral_stackmap_parse).
 * registry.h indexes parsed records by return address for the stack walker.
 *
 * What this module guarantees
 *   - Parsing never reads outside [bytes, bytes + length) and never crashes on
 *     corrupt input: every problem is an error "ORIGIN: offset N: what is wrong
 *     (expected ...)" with N the byte offset in the input.
 *   - Every record is a statepoint (3 constants: calling convention, flags,
 *     deopt count N; N deopt locations; then (base, derived) pairs). The deopt
 *     locations are skipped, but for the frame-CFA pair corral's pass adds in
 *     dynamic frames where the CFA is not at a fixed offset from the frame
 *     pointer (AArch64): Constant CORRAL_ABI_FRAME_CFA_MARKER, then the spill
 *     slot of llvm.sponentry, which becomes the record's frame_cfa.
 *     Pairs are normalised: each distinct base slot appears once in `bases`;
 *     a pair whose derived slot is its base slot, a repeated pair, and a pair
 *     whose base is a constant (null: nothing to relocate) are dropped.
 *     `bases` is sorted by (kind, register, offset); `derived` by derived slot.
 *
 * How the walker uses a record (frame-pointer=all; see design.md §5 and, for
 * the frame arithmetic of each architecture, base/arch_<arch>.h)
 *   x86-64: CFA = sp + stack_size + 8, or rbp + 16 when stack_size is
 *   STACKMAP_DYNAMIC_FRAME; AArch64: CFA = sp + stack_size. An INDIRECT slot
 *   is the 8-byte word at [dwarf_reg + offset] with dwarf_reg the stack or
 *   frame pointer (x86-64 RSP 7, RBP 6; AArch64 SP 31, X29 29) as they were at
 *   the call. A REGISTER slot is a callee-saved register (only
 *   with -max-registers-for-gc-values): the walker must find where a callee
 *   saved it, and must reject the frame loudly if it cannot.
 *   Relocate every derived pair from the base's *old* value before the base
 *   itself is updated: new_derived = new_base + (old_derived - old_base).
 *
 * Thread use: any thread, no shared state.
 */
#ifndef CORRAL_STACKMAP_PARSE_H
#define CORRAL_STACKMAP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arch.h"

enum stackmap_slot_kind {
    STACKMAP_SLOT_INDIRECT, /* the spill slot [dwarf_reg + offset] */
    STACKMAP_SLOT_REGISTER, /* a callee-saved register (offset 0) */
    STACKMAP_SLOT_CONSTANT, /* nothing to relocate; never present in a parsed record */
};

/* DWARF register numbers the parser and walker care about (arch.h). */
enum stackmap_dwarf_register {
    STACKMAP_DWARF_FP = ARCH_DWARF_FP,
    STACKMAP_DWARF_SP = ARCH_DWARF_SP,
    STACKMAP_DWARF_LAST = ARCH_DWARF_LAST,
};

/* Where one GC pointer lives in a frame at a call site. */
typedef struct stackmap_slot {
    uint8_t kind;       /* enum stackmap_slot_kind */
    uint16_t dwarf_reg; /* the target's DWARF numbering (x86-64: 7 = RSP) */
    int32_t offset;     /* INDIRECT: byte offset from dwarf_reg; else 0 */
} stackmap_slot;

typedef struct stackmap_derived {
    stackmap_slot base, derived;
} stackmap_derived;

/* stack_size of a function with dynamic allocas or stack realignment. */
#define STACKMAP_DYNAMIC_FRAME UINT64_MAX

typedef struct stackmap_record {
    uintptr_t return_address;   /* function address + instruction offset */
    uintptr_t function_address;
    uint64_t stack_size;        /* bytes below the return address, or STACKMAP_DYNAMIC_FRAME */
    uint64_t id;                /* statepoint id */
    uint32_t base_count;        /* distinct base slots: each is relocated exactly once */
    uint32_t derived_count;     /* (base, derived) pairs whose derived slot is not a base slot */
    const stackmap_slot *bases;
    const stackmap_derived *derived;
    /* The spill slot holding the frame's CFA (its SP at entry), which the pass
     * records in dynamic frames on AArch64 (corral/abi.h); when has_frame_cfa. */
    bool has_frame_cfa;
    stackmap_slot frame_cfa;
} stackmap_record;

/* ---------------------------------------------------------------------------
 * Parsing.
 */
#define STACKMAP_TABLE_SIGNATURE UINT32_C(0x5AC3A9B1)

/* The records of every table in one input, and the arrays they point into. */
typedef struct stackmap_table {
    uint32_t signature;          /* STACKMAP_TABLE_SIGNATURE while valid */
    uint32_t table_count;        /* StackMap tables found in the input */
    size_t record_count;
    stackmap_record *records;    /* in input order */
    size_t *record_offsets;      /* input offset of each record, for messages */
    stackmap_slot *slots;        /* owns every record's bases */
    size_t slot_count;
    stackmap_derived *pairs;     /* owns every record's derived pairs */
    size_t pair_count;
} stackmap_table;

/* Parses and validates every StackMap v3 table in [bytes, bytes + length):
 * several tables concatenated, with 8-byte zero words tolerated between and
 * after them. On success returns 0 and fills *table (release it with
 * stackmap_table_release). On failure returns -1, leaves *table empty and
 * writes "ORIGIN: offset N: what is wrong (expected ...)" to error. */
int stackmap_parse(const uint8_t *bytes, size_t length, const char *origin,
                   stackmap_table *table, char *error, size_t error_size);
void stackmap_table_release(stackmap_table *table);
/* 1 when the table and every record in it are consistent, else 0. */
int stackmap_table_check(const stackmap_table *table);

/* 1 when record is internally consistent (MPS-style check for debug builds
 * and the verifier), else 0; stackmap_record_problem says what is wrong
 * (NULL when nothing is). */
int stackmap_record_check(const stackmap_record *record);
const char *stackmap_record_problem(const stackmap_record *record);

/* True when a and b describe one call site identically: addresses, frame size,
 * id and every slot. */
bool stackmap_record_equal(const stackmap_record *a, const stackmap_record *b);

#endif /* CORRAL_STACKMAP_PARSE_H */
