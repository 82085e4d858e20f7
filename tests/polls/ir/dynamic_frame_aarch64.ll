; AArch64 keeps the frame record below the other saved registers, so a
; dynamic frame's CFA is not at a fixed distance from x29: each statepoint of
; @vla carries its CFA (llvm.sponentry) as deopt operands, 600 bytes of fixed
; locals move below the fixed frame (else slots would be [x19 + n]), and
; @fixed, with a fixed frame, is aligned by hand and never realigned either.
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128"
target triple = "aarch64-unknown-linux-gnu"

declare void @use(ptr, ptr)
declare void @managed_callee() "corral-managed"

define i64 @vla(i64 %n, ptr addrspace(1) %keep) {
  %aligned = alloca [8 x i64], align 64
  %table = alloca [600 x i8], align 8
  %small = alloca i64, align 8
  %vla = alloca i64, i64 %n, align 16
  call void @use(ptr %aligned, ptr %vla)
  call void @use(ptr %table, ptr %small)
  call void @managed_callee()
  %v = load i64, ptr addrspace(1) %keep
  ret i64 %v
}

define i64 @fixed(ptr addrspace(1) %keep) {
  %aligned = alloca [8 x i64], align 64
  call void @use(ptr %aligned, ptr %aligned)
  %v = load i64, ptr addrspace(1) %keep
  ret i64 %v
}
