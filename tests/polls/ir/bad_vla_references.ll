; A variable-length array of references: its size is known only at run
; time, so no frame map can list it.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @fill(ptr %out) noinline {
  ret void
}

define void @vla(ptr addrspace(1) %r, i64 %n) {
  %array = alloca ptr addrspace(1), i64 %n
  store ptr addrspace(1) %r, ptr %array
  call void @fill(ptr %array)
  ret void
}
