/* segment_aarch64.S — enter managed code at a known frame.
 *
 *   void *corral_segment_call(void *(*fn)(void *), void *arg, uintptr_t *outer_cfa)
 *
 * Stores into *outer_cfa the stack pointer at which it calls fn: that is the
 * CFA of fn's frame (bl pushes nothing), where the walker must stop this
 * managed segment. Its own frame is only the frame record, so the walker's
 * frame-pointer chain passes through it like any C frame.
 */
    .text
    .globl corral_segment_call
    .hidden corral_segment_call
    .type corral_segment_call, %function
    .p2align 4
corral_segment_call:
    .cfi_startproc
    stp x29, x30, [sp, #-16]!
    .cfi_def_cfa_offset 16
    .cfi_offset x30, -8
    .cfi_offset x29, -16
    mov x29, sp
    .cfi_def_cfa x29, 16
    mov x16, x0
    mov x0, x1
    mov x17, sp
    str x17, [x2]
    blr x16
    ldp x29, x30, [sp], #16
    .cfi_def_cfa sp, 0
    .cfi_restore x30
    .cfi_restore x29
    ret
    .cfi_endproc
    .size corral_segment_call, .-corral_segment_call

    .section .note.GNU-stack,"",%progbits
