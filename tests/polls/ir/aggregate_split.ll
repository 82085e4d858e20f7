; A small struct holding a reference, live across the return poll: split
; into fields, relocated, rebuilt.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @g() {
  ret void
}

define { ptr addrspace(1), i64 } @pair(ptr addrspace(1) %r, i64 %t) {
  %a = insertvalue { ptr addrspace(1), i64 } poison, ptr addrspace(1) %r, 0
  %b = insertvalue { ptr addrspace(1), i64 } %a, i64 %t, 1
  call void @g()
  ret { ptr addrspace(1), i64 } %b
}
