; An aggregate of 80 references live across a call: too big to split.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @g() {
  ret void
}

define ptr addrspace(1) @big(ptr addrspace(1) %r) {
  %all = load [80 x ptr addrspace(1)], ptr addrspace(1) %r
  call void @g()
  %one = extractvalue [80 x ptr addrspace(1)] %all, 3
  ret ptr addrspace(1) %one
}
