/* frame_x86_64.h — frame arithmetic for the stack walker on x86-64 with
 * frame pointers everywhere (managed code is compiled frame-pointer=all).
 *
 *   higher addresses
 *   | caller's frame ...      |
 *   | return address          |  <- CFA - 8
 *   | saved caller RBP        |  <- CFA - 16 = RBP of this frame
 *   | spills, locals ...      |
 *   | ...                     |  <- SP at the call (stackmap offsets from RSP)
 *   lower addresses
 *
 * CFA = SP + stack_size + 8 from the stackmap; with frame pointers it must
 * also equal RBP + 16, which the walker checks on every frame. Functions with
 * dynamic allocas report stack size UINT64_MAX: there RBP + 16 is the CFA.
 * Porting to AArch64 means a sibling of this file.
 */
#ifndef CORRAL_FRAME_X86_64_H
#define CORRAL_FRAME_X86_64_H

#include <stdint.h>

#define FRAME_DWARF_RBP 6
#define FRAME_DWARF_RSP 7

static inline uintptr_t frame_cfa_from_fp(uintptr_t frame_pointer)
{
    return frame_pointer + 16;
}

static inline uintptr_t frame_cfa_from_sp(uintptr_t stack_pointer, uint64_t stack_size)
{
    return stack_pointer + stack_size + 8;
}

static inline uintptr_t frame_return_address(uintptr_t cfa)
{
    return *(const uintptr_t *)(cfa - 8);
}

static inline uintptr_t frame_caller_fp(uintptr_t frame_pointer)
{
    return *(const uintptr_t *)frame_pointer;
}

#endif /* CORRAL_FRAME_X86_64_H */
