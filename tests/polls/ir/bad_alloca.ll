; An address-taken reference local handed to plain C, which must not see references.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @use_slot(ptr)

define void @escapes(ptr addrspace(1) %r) {
  %slot = alloca ptr addrspace(1)
  store ptr addrspace(1) %r, ptr %slot
  call void @use_slot(ptr %slot)
  ret void
}
