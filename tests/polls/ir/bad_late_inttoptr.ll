; An address kept as an integer across a call and made a reference after
; it: stale once the object moves, whatever its low bits are used for too.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @g() {
  ret void
}

define ptr addrspace(1) @late(ptr addrspace(1) %r) {
  %word = ptrtoint ptr addrspace(1) %r to i64
  call void @g()
  %tag = and i64 %word, 1
  %plus = add i64 %word, %tag
  %tagged = inttoptr i64 %plus to ptr addrspace(1)
  ret ptr addrspace(1) %tagged
}
