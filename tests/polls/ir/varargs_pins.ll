; References passed through "..." are pinned around the call, null is not.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @sum(i32 %n, ...) {
  ret void
}

define void @pass_refs(ptr addrspace(1) %a, ptr addrspace(1) %b) {
  call void (i32, ...) @sum(i32 3, ptr addrspace(1) %a, i64 7, ptr addrspace(1) null, ptr addrspace(1) %b)
  ret void
}
