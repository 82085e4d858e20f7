; A variable-length array of structs mixing an integer and a reference: the
; collector keeps stack memory allocated at run time only as whole words of
; references (one run of its inline map).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @fill(ptr %out) noinline {
  ret void
}

define void @vla(ptr addrspace(1) %r, i64 %n) {
  %array = alloca { i64, ptr addrspace(1) }, i64 %n
  %field = getelementptr { i64, ptr addrspace(1) }, ptr %array, i64 0, i32 1
  store ptr addrspace(1) %r, ptr %field
  call void @fill(ptr %array)
  ret void
}
