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
 * CFA = RBP + 16; SP at a call is CFA - 8 - stack_size, or lower by the
 * outgoing arguments the call pushed, which the walker checks on every frame. Functions with
 * dynamic allocas report stack size UINT64_MAX: there RBP + 16 is the CFA.
 * Porting to AArch64 means a sibling of this file.
 */
#ifndef CORRAL_FRAME_X86_64_H
#define CORRAL_FRAME_X86_64_H

#include <stdbool.h>
#include <stdint.h>

#define FRAME_DWARF_RBP 6
#define FRAME_DWARF_RSP 7

static inline uintptr_t frame_cfa_from_fp(uintptr_t frame_pointer)
{
    return frame_pointer + 16;
}

/* Whether SP at a call site fits a frame whose CFA the frame pointer gives.
 * SP is the fixed frame's bottom, or below it by the outgoing arguments the
 * call pushed (x86 call-frame optimisation at -O1 and above: such functions
 * address their slots from RBP, or from RSP with the push already counted).
 * A frame with dynamic allocas (STACKMAP_DYNAMIC_FRAME) has no fixed size. */
static inline bool frame_sp_fits_record(uintptr_t stack_pointer, uintptr_t cfa,
                                        uint64_t stack_size)
{
    if (stack_size == UINT64_MAX)
        return stack_pointer < cfa && (cfa - stack_pointer) % 8 == 0;
    uintptr_t fixed_bottom = cfa - 8 - stack_size;
    return stack_pointer <= fixed_bottom && (fixed_bottom - stack_pointer) % 8 == 0;
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
