; An address chosen between two objects by a select, live across setjmp:
; its base is a select of the two objects, kept in a root slot, and its
; distance from that base is measured where it is chosen.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @_setjmp(ptr)
declare void @g()

define i64 @chosen(ptr addrspace(1) %a, ptr addrspace(1) %b, i1 %c, ptr %buf) {
entry:
  %fa = getelementptr i8, ptr addrspace(1) %a, i64 8
  %fb = getelementptr i8, ptr addrspace(1) %b, i64 16
  %field = select i1 %c, ptr addrspace(1) %fa, ptr addrspace(1) %fb
  %r = call i32 @_setjmp(ptr %buf)
  call void @g()
  %v = load i64, ptr addrspace(1) %field
  ret i64 %v
}
