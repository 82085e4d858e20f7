; A reference cast to a plain pointer and used after a call.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @g() {
  ret void
}

define i64 @raw(ptr addrspace(1) %r) {
  %p = addrspacecast ptr addrspace(1) %r to ptr
  call void @g()
  %v = load i64, ptr %p
  ret i64 %v
}
