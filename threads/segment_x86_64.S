/* segment_x86_64.S — enter managed code at a known frame.
 *
 *   void *corral_segment_call(void *(*fn)(void *), void *arg, uintptr_t *outer_cfa)
 *
 * Stores into *outer_cfa the stack pointer at which it calls fn: that is the
 * CFA of fn's frame, where the walker must stop this managed segment. Doing
 * it here rather than in C makes "the SP at the call" exact, whatever the C
 * compiler does with its own frame.
 */
    .text
    .globl corral_segment_call
    .hidden corral_segment_call
    .type corral_segment_call, @function
    .p2align 4
corral_segment_call:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    movq %rdi, %rax
    movq %rsi, %rdi
    movq %rsp, (%rdx)
    call *%rax
    popq %rbp
    .cfi_def_cfa %rsp, 8
    ret
    .cfi_endproc
    .size corral_segment_call, .-corral_segment_call

    .section .note.GNU-stack,"",@progbits
