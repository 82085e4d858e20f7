; An address kept as an integer across a call: stale once the object moves.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @g() {
  ret void
}

define i64 @hash(ptr addrspace(1) %r) {
  %address = ptrtoint ptr addrspace(1) %r to i64
  call void @g()
  %h = xor i64 %address, 7
  ret i64 %h
}
