; A managed function taking a reference, passed to unmanaged C, which may
; call it: C holds no reference to pass.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @register_hook(ptr)

define internal i64 @visit(ptr addrspace(1) %object) {
  ret i64 0
}

define void @hook() {
  call void @register_hook(ptr @visit)
  ret void
}
