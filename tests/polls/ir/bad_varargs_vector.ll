; A vector of references through "...": no single pointer to pin.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @sum(i32 %n, ...) {
  ret void
}

define void @pass_vector(<2 x ptr addrspace(1)> %v) {
  call void (i32, ...) @sum(i32 1, <2 x ptr addrspace(1)> %v)
  ret void
}
