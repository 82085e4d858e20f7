; Raw pointers made from references, live across calls: recomputed from the
; relocated reference after each call, and pinned when a call receives one.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @g()
declare i64 @write(i32, ptr, i64)
@buffer = global [16 x i8] zeroinitializer

define i64 @raw(ptr addrspace(1) %r) {
  %p = addrspacecast ptr addrspace(1) %r to ptr
  %q = getelementptr i8, ptr %p, i64 16
  call void @g()
  %v = load i64, ptr %q
  ret i64 %v
}

define i64 @bytes_to_c(ptr addrspace(1) %b, i64 %n) {
  %data = getelementptr i8, ptr addrspace(1) %b, i64 16
  %p = addrspacecast ptr addrspace(1) %data to ptr
  %w = call i64 @write(i32 1, ptr %p, i64 %n)
  ret i64 %w
}

define i64 @loop_phi(ptr addrspace(1) %b, i64 %n) {
entry:
  %start = addrspacecast ptr addrspace(1) %b to ptr
  br label %loop
loop:
  %p = phi ptr [ %start, %entry ], [ %next, %loop ]
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  call void @g()
  store i8 1, ptr %p
  %next = getelementptr i8, ptr %p, i64 1
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %i.next
}

define ptr addrspace(1) @round_trip(ptr addrspace(1) %b) {
  %p = addrspacecast ptr addrspace(1) %b to ptr
  %q = getelementptr i8, ptr %p, i64 0
  call void @g()
  %back = addrspacecast ptr %q to ptr addrspace(1)
  ret ptr addrspace(1) %back
}
