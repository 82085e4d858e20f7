/* arch_aarch64.h — what corral knows about AArch64 (chosen by arch.h).
 *
 * Frames: managed code is compiled frame-pointer=all, so every frame has a
 * frame record (saved x29, saved x30) and x29 points at it. LLVM and GCC put
 * the record at the *bottom* of the callee-saved area, with the other saved
 * registers above it, so unlike x86-64 the CFA is not FP + 16:
 *
 *   higher addresses
 *   | caller's frame ...      |  <- CFA = caller's SP at the call (bl pushes nothing)
 *   | saved x19..x28, d8..d15 |  (0 or more, this function's choice)
 *   | saved x30 (return addr) |  <- FP + 8
 *   | saved caller x29        |  <- FP = x29 of this frame
 *   | spills, locals ...      |
 *   | ...                     |  <- SP at the call (stackmap offsets from SP = 31)
 *   lower addresses
 *
 * The record's stack size is the whole frame, so CFA = SP + stack_size, and
 * the frame pointer is checked to lie inside it. Functions with dynamic
 * allocas (stack size UINT64_MAX) have no CFA the walker can compute (it is
 * in the unwind tables only), so the pass saves it: each statepoint of such a
 * function carries llvm.sponentry as a deopt operand (corral/abi.h,
 * CORRAL_ABI_FRAME_CFA_MARKER) and the walker reads its spill slot.
 * Because the CFA is not FP + 16, a runtime entry takes its caller's SP from
 * the compiler (__builtin_sponentry, GCC's __builtin_dwarf_cfa) and the pass's
 * unmanaged-call wrappers pass llvm.sponentry to corral_transition_to_unmanaged_at.
 */
#ifndef CORRAL_ARCH_AARCH64_H
#define CORRAL_ARCH_AARCH64_H

#include <stdbool.h>
#include <stdint.h>

#define ARCH_NAME "AArch64"
/* The LLVM triple of this machine: what a JIT generates code for (polls/target.c). */
#define ARCH_LLVM_TRIPLE "aarch64-unknown-linux-gnu"

/* DWARF register numbers in stackmap locations: x0-x30 are 0-30, SP is 31. */
enum {
    ARCH_DWARF_FP = 29,    /* x29 */
    ARCH_DWARF_SP = 31,    /* SP */
    ARCH_DWARF_LAST = 127, /* z31, the highest number LLVM's AArch64 target uses */
};
#define ARCH_DWARF_REGISTER_NAMES                                                      \
    {"X0",  "X1",  "X2",  "X3",  "X4",  "X5",  "X6",  "X7",  "X8",  "X9",  "X10",     \
     "X11", "X12", "X13", "X14", "X15", "X16", "X17", "X18", "X19", "X20", "X21",     \
     "X22", "X23", "X24", "X25", "X26", "X27", "X28", "X29", "X30", "SP"}
#define ARCH_CALLEE_SAVED_NAMES "X19-X29"
#define ARCH_FRAME_LINK_NAMES "the frame record (saved X29 and X30)"

static inline bool arch_dwarf_callee_saved(unsigned dwarf_reg)
{
    return dwarf_reg >= 19 && dwarf_reg <= 29;
}

/* The frame record lies inside the frame at an offset only the prologue
 * knows; [SP + stack_size] and above is the caller's frame. */
static inline bool arch_sp_offset_is_frame_link(int32_t offset, uint64_t stack_size)
{
    return offset >= 0 && stack_size != UINT64_MAX && (uint64_t)offset >= stack_size;
}

/* The CFA of a managed frame from its SP at the call, its frame pointer and
 * its record's stack size; 0 when they disagree (code without frame pointers,
 * or a dynamic frame). AArch64 keeps SP 16-byte aligned. */
static inline uintptr_t frame_cfa(uintptr_t stack_pointer, uintptr_t frame_pointer,
                                  uint64_t stack_size)
{
    if (stack_size == UINT64_MAX || stack_size % 16 != 0 || stack_pointer % 16 != 0)
        return 0;
    uintptr_t cfa = stack_pointer + stack_size;
    bool record_inside = frame_pointer >= stack_pointer && frame_pointer <= cfa - 16 &&
                         frame_pointer % 8 == 0;
    return record_inside ? cfa : 0;
}

/* A dynamic frame's CFA is not at a fixed distance from FP: the walker needs
 * the slot where the pass saved it (stackmap_record.frame_cfa). */
#define FRAME_DYNAMIC_WALKABLE false

/* Largest distance from a frame record to its CFA: the other callee-saved
 * registers (x19-x28, d8-d15) and padding take 160 bytes; SVE saves more. */
#define FRAME_RECORD_TO_CFA_MAX 4096

/* The CFA a dynamic frame saved at entry, checked against its SP at the call
 * and its frame pointer; 0 when they disagree (a corrupt or stale slot). */
static inline uintptr_t frame_cfa_from_saved(uintptr_t stack_pointer, uintptr_t frame_pointer,
                                             uintptr_t saved_cfa)
{
    bool fits = saved_cfa % 16 == 0 && stack_pointer % 16 == 0 && frame_pointer % 8 == 0 &&
                frame_pointer >= stack_pointer && saved_cfa >= frame_pointer + 16 &&
                saved_cfa - frame_pointer <= FRAME_RECORD_TO_CFA_MAX;
    return fits ? saved_cfa : 0;
}

static inline uintptr_t frame_return_address(uintptr_t frame_pointer, uintptr_t cfa)
{
    (void)cfa;
    return *(const uintptr_t *)(frame_pointer + 8);
}

static inline uintptr_t frame_caller_fp(uintptr_t frame_pointer)
{
    return *(const uintptr_t *)frame_pointer;
}

/* The caller's SP at the call into the current noinline function. */
#if defined(__clang__)
#define FRAME_CALLER_SP() ((uintptr_t)__builtin_sponentry())
#else
#define FRAME_CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())
#endif
/* Not known from a frame pointer alone (0): callers must pass the SP. */
static inline uintptr_t frame_caller_sp_from_fp(uintptr_t frame_pointer)
{
    (void)frame_pointer;
    return 0;
}

/* The spin-wait hint. */
static inline void arch_cpu_relax(void)
{
    __asm__ __volatile__("yield" ::: "memory");
}

/* A signal handler's view of the interrupted registers (ucontext_t *uc). */
#define ARCH_SIGNAL_PC(uc) ((uintptr_t)(uc)->uc_mcontext.pc)
#define ARCH_SIGNAL_REGISTER(uc, index) ((uint64_t)(uc)->uc_mcontext.regs[index])
#define ARCH_SIGNAL_REGISTERS                                                          \
    {{0, "x0"},   {1, "x1"},   {2, "x2"},   {3, "x3"},   {4, "x4"},   {5, "x5"},       \
     {6, "x6"},   {7, "x7"},   {8, "x8"},   {9, "x9"},   {10, "x10"}, {11, "x11"},     \
     {12, "x12"}, {13, "x13"}, {14, "x14"}, {15, "x15"}, {16, "x16"}, {17, "x17"},     \
     {19, "x19"}, {20, "x20"}, {21, "x21"}, {22, "x22"}, {23, "x23"}, {24, "x24"},     \
     {25, "x25"}, {26, "x26"}, {27, "x27"}, {28, "x28"}, {29, "x29"}, {30, "x30"}}

#endif /* CORRAL_ARCH_AARCH64_H */
