; A vector of references loaded from the heap, live across setjmp: its lanes
; are known only by reading it, so the pass cannot build it again after the
; call, and refuses it.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @_setjmp(ptr)

define void @loaded(ptr %buf, ptr addrspace(1) %arr) {
entry:
  %from = getelementptr i8, ptr addrspace(1) %arr, i64 16
  %pair = load <2 x ptr addrspace(1)>, ptr addrspace(1) %from
  %r = call i32 @_setjmp(ptr %buf)
  %to = getelementptr i8, ptr addrspace(1) %arr, i64 32
  store <2 x ptr addrspace(1)> %pair, ptr addrspace(1) %to
  ret void
}
