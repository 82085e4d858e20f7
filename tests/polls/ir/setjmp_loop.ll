; An address stepped through an object by a loop whose body calls setjmp:
; its base is a phi the pass builds (of %object and itself), and that phi
; is live across the call around the loop, so it needs a root slot too.
; The pass must build the base first and then look again at what is live.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @_setjmp(ptr)

define void @g() noinline {
  ret void
}

define i64 @step(ptr addrspace(1) %object, ptr %buf, i64 %n) {
entry:
  %first = getelementptr i8, ptr addrspace(1) %object, i64 16
  br label %loop
loop:
  %p = phi ptr addrspace(1) [ %first, %entry ], [ %next, %loop ]
  %sum = phi i64 [ 0, %entry ], [ %sum.next, %loop ]
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %r = call i32 @_setjmp(ptr %buf)
  call void @g()
  %v = load i64, ptr addrspace(1) %p
  %sum.next = add i64 %sum, %v
  %next = getelementptr i8, ptr addrspace(1) %p, i64 8
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %sum.next
}
