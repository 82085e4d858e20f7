; A dynamically sized frame with an over-aligned local: the local is aligned
; by hand and the frame never realigned (no base-register spill slots).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @use(ptr, ptr)

define void @vla(i64 %n, ptr addrspace(1) %keep) {
  %aligned = alloca [8 x i64], align 64
  %vla = alloca i64, i64 %n, align 16
  call void @use(ptr %aligned, ptr %vla)
  ret void
}

define void @fixed(ptr addrspace(1) %keep) {
  %aligned = alloca [8 x i64], align 64
  call void @use(ptr %aligned, ptr %aligned)
  ret void
}
