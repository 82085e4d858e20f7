; An address made from the object a loop loads each round, kept into the
; next round across a call: the frame pin of strchr's site then holds the
; next round's object, and the one the address points into may move.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr @strchr(ptr, i32)
declare void @g()

define i64 @address_into_the_next_round(ptr addrspace(1) %lines, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %previous = phi i64 [ 0, %entry ], [ %address, %loop ]
  %bytes = phi i8 [ 0, %entry ], [ %bytes.next, %loop ]
  %slot = getelementptr ptr addrspace(1), ptr addrspace(1) %lines, i64 %i
  %line = load ptr addrspace(1), ptr addrspace(1) %slot
  %raw = addrspacecast ptr addrspace(1) %line to ptr
  %comma = call ptr @strchr(ptr %raw, i32 44)
  %start = addrspacecast ptr addrspace(1) %line to ptr
  %address = ptrtoint ptr %start to i64
  call void @g()
  %byte = load i8, ptr %comma
  %bytes.next = add i8 %bytes, %byte
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %b = zext i8 %bytes.next to i64
  %r = add i64 %previous, %b
  ret i64 %r
}
