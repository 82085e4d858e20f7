; A runtime safepoint call given a reference.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @corral_collect(ptr addrspace(1))

define void @collect_with(ptr addrspace(1) %r) {
  call void @corral_collect(ptr addrspace(1) %r)
  ret void
}
