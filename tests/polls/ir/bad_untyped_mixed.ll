; Untyped stack memory holding a reference and an integer: the collector
; would take every word of it for a reference.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @fill(ptr %out) noinline {
  ret void
}

define void @mixed(ptr addrspace(1) %r) {
  %buffer = alloca [16 x i8], align 8
  store ptr addrspace(1) %r, ptr %buffer
  %second = getelementptr i8, ptr %buffer, i64 8
  store i64 7, ptr %second
  call void @fill(ptr %buffer)
  ret void
}
