; Small functions to see each poll kind where it belongs and nowhere else.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i64 @strlen(ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define i64 @straight(i64 %x) {
  %a = add i64 %x, 1
  %b = mul i64 %a, 3
  ret i64 %b
}

define i64 @two_returns(i1 %c, i64 %x) {
entry:
  br i1 %c, label %left, label %right
left:
  %a = add i64 %x, 1
  ret i64 %a
right:
  %b = mul i64 %x, 2
  ret i64 %b
}

define i64 @leaf_call(ptr %s, ptr %buffer, i64 %n) {
  %length = call i64 @strlen(ptr %s)
  call void @llvm.memset.p0.i64(ptr %buffer, i8 0, i64 %n, i1 false)
  call void @llvm.memset.p0.i64(ptr %buffer, i8 0, i64 16, i1 false)
  ret i64 %length
}

; A loop that is not counted: walking a linked list.
define i64 @list_length(ptr addrspace(1) %head) {
entry:
  %empty = icmp eq ptr addrspace(1) %head, null
  br i1 %empty, label %done, label %loop
loop:
  %node = phi ptr addrspace(1) [ %head, %entry ], [ %next, %loop ]
  %count = phi i64 [ 0, %entry ], [ %count.next, %loop ]
  %count.next = add i64 %count, 1
  %next = load ptr addrspace(1), ptr addrspace(1) %node, align 8
  %end = icmp eq ptr addrspace(1) %next, null
  br i1 %end, label %done, label %loop
done:
  %result = phi i64 [ 0, %entry ], [ %count.next, %loop ]
  ret i64 %result
}
