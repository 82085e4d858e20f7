/* arch_x86_64.h — what corral knows about x86-64 (chosen by arch.h).
 *
 * Frames: managed code is compiled frame-pointer=all.
 *
 *   higher addresses
 *   | caller's frame ...      |
 *   | return address          |  <- CFA - 8
 *   | saved caller RBP        |  <- CFA - 16 = RBP of this frame
 *   | spills, locals ...      |
 *   | ...                     |  <- SP at the call (stackmap offsets from RSP)
 *   lower addresses
 *
 * CFA = RBP + 16; SP at a call is CFA - 8 - stack_size, or lower by the
 * outgoing arguments the call pushed, which the walker checks on every frame.
 * Functions with dynamic allocas report stack size UINT64_MAX: there RBP + 16
 * is the CFA. A callee's CFA is its caller's SP at the call.
 */
#ifndef CORRAL_ARCH_X86_64_H
#define CORRAL_ARCH_X86_64_H

#include <stdbool.h>
#include <stdint.h>

#define ARCH_NAME "x86-64"
/* The LLVM triple of this machine: what a JIT generates code for (polls/target.c). */
#define ARCH_LLVM_TRIPLE "x86_64-unknown-linux-gnu"

/* DWARF register numbers in stackmap locations. */
enum {
    ARCH_DWARF_FP = 6,    /* RBP */
    ARCH_DWARF_SP = 7,    /* RSP */
    ARCH_DWARF_LAST = 125, /* k7, the highest number LLVM's x86-64 target uses */
};
#define ARCH_DWARF_REGISTER_NAMES                                                      \
    {"RAX", "RDX", "RCX", "RBX", "RSI", "RDI", "RBP", "RSP", "R8",                      \
     "R9",  "R10", "R11", "R12", "R13", "R14", "R15", "RIP"}
#define ARCH_CALLEE_SAVED_NAMES "RBX, RBP, R12-R15"
/* What the two words at [FP + 0] and [FP + 8] hold. */
#define ARCH_FRAME_LINK_NAMES "the saved RBP or the return address"

static inline bool arch_dwarf_callee_saved(unsigned dwarf_reg)
{
    return dwarf_reg == 3 || dwarf_reg == 6 || (dwarf_reg >= 12 && dwarf_reg <= 15);
}

/* Whether [SP + offset] in a frame of stack_size bytes is its return address. */
static inline bool arch_sp_offset_is_frame_link(int32_t offset, uint64_t stack_size)
{
    return offset >= 0 && (uint64_t)offset == stack_size;
}

/* Whether SP at a call site fits a frame whose CFA the frame pointer gives.
 * SP is the fixed frame's bottom, or below it by the outgoing arguments the
 * call pushed (x86 call-frame optimisation at -O1 and above: such functions
 * address their slots from RBP, or from RSP with the push already counted).
 * A frame with dynamic allocas (UINT64_MAX) has no fixed size. */
static inline bool frame_sp_fits_record(uintptr_t stack_pointer, uintptr_t cfa,
                                        uint64_t stack_size)
{
    if (stack_size == UINT64_MAX)
        return stack_pointer < cfa && (cfa - stack_pointer) % 8 == 0;
    uintptr_t fixed_bottom = cfa - 8 - stack_size;
    return stack_pointer <= fixed_bottom && (fixed_bottom - stack_pointer) % 8 == 0;
}

/* The CFA of a managed frame from its SP at the call, its frame pointer and
 * its record's stack size; 0 when they disagree (code without frame pointers). */
static inline uintptr_t frame_cfa(uintptr_t stack_pointer, uintptr_t frame_pointer,
                                  uint64_t stack_size)
{
    uintptr_t cfa = frame_pointer + 16;
    return frame_sp_fits_record(stack_pointer, cfa, stack_size) ? cfa : 0;
}

/* Frames with dynamic allocas are walkable: RBP + 16 is their CFA. */
#define FRAME_DYNAMIC_WALKABLE true

/* A CFA a frame saved (the pass saves none on x86-64): RBP + 16 or nothing. */
static inline uintptr_t frame_cfa_from_saved(uintptr_t stack_pointer, uintptr_t frame_pointer,
                                             uintptr_t saved_cfa)
{
    return saved_cfa == frame_pointer + 16 && stack_pointer < saved_cfa ? saved_cfa : 0;
}

static inline uintptr_t frame_return_address(uintptr_t frame_pointer, uintptr_t cfa)
{
    (void)frame_pointer;
    return *(const uintptr_t *)(cfa - 8);
}

static inline uintptr_t frame_caller_fp(uintptr_t frame_pointer)
{
    return *(const uintptr_t *)frame_pointer;
}

/* The caller's SP at the call into the current noinline function. */
#define FRAME_CALLER_SP() ((uintptr_t)__builtin_frame_address(0) + 16)
/* The same for a function whose frame pointer is fp: the CFA is always RBP + 16. */
static inline uintptr_t frame_caller_sp_from_fp(uintptr_t frame_pointer)
{
    return frame_pointer + 16;
}

/* The spin-wait hint. */
static inline void arch_cpu_relax(void)
{
    __builtin_ia32_pause();
}

/* A signal handler's view of the interrupted registers (ucontext_t *uc);
 * macros, so only code built with _GNU_SOURCE and <ucontext.h> expands them. */
#define ARCH_SIGNAL_PC(uc) ((uintptr_t)(uc)->uc_mcontext.gregs[REG_RIP])
#define ARCH_SIGNAL_REGISTER(uc, index) ((uint64_t)(uc)->uc_mcontext.gregs[index])
#define ARCH_SIGNAL_REGISTERS                                                          \
    {{REG_RAX, "rax"}, {REG_RBX, "rbx"}, {REG_RCX, "rcx"}, {REG_RDX, "rdx"},           \
     {REG_RSI, "rsi"}, {REG_RDI, "rdi"}, {REG_RBP, "rbp"}, {REG_R8, "r8"},             \
     {REG_R9, "r9"},   {REG_R10, "r10"}, {REG_R11, "r11"}, {REG_R12, "r12"},           \
     {REG_R13, "r13"}, {REG_R14, "r14"}, {REG_R15, "r15"}}

#endif /* CORRAL_ARCH_X86_64_H */
