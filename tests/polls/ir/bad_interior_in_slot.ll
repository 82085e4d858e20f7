; An address inside an object stored in a stack slot: the collector
; updates each stack word as an object reference.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @fill(ptr %out) noinline {
  ret void
}

define void @cursor(ptr addrspace(1) %object) {
  %slot = alloca ptr addrspace(1)
  %field = getelementptr i8, ptr addrspace(1) %object, i64 16
  store ptr addrspace(1) %field, ptr %slot
  call void @fill(ptr %slot)
  ret void
}
