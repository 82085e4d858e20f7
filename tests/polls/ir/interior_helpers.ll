; Static helpers that receive or return an interior reference, or return a
; raw pointer made from a reference, are inlined (clang -O0 marks every
; function noinline): a call cannot carry one.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @g()

define internal ptr addrspace(1) @max_slot(ptr addrspace(1) %array, i64 %n) noinline {
entry:
  %first = getelementptr i8, ptr addrspace(1) %array, i64 16
  br label %loop
loop:
  %best = phi ptr addrspace(1) [ %first, %entry ], [ %best.next, %loop ]
  %i = phi i64 [ 1, %entry ], [ %i.next, %loop ]
  %offset = mul i64 %i, 8
  %offset.all = add i64 %offset, 16
  %slot = getelementptr i8, ptr addrspace(1) %array, i64 %offset.all
  %v = load i64, ptr addrspace(1) %slot
  %w = load i64, ptr addrspace(1) %best
  %more = icmp ugt i64 %v, %w
  %best.next = select i1 %more, ptr addrspace(1) %slot, ptr addrspace(1) %best
  %i.next = add i64 %i, 1
  %done = icmp uge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret ptr addrspace(1) %best.next
}

define internal void @bump(ptr addrspace(1) %field) noinline {
  call void @g()
  %v = load i64, ptr addrspace(1) %field
  %w = add i64 %v, 1
  store i64 %w, ptr addrspace(1) %field
  ret void
}

define i64 @use_helpers(ptr addrspace(1) %array, i64 %n) {
  %slot = call ptr addrspace(1) @max_slot(ptr addrspace(1) %array, i64 %n)
  call void @g()
  %v = load i64, ptr addrspace(1) %slot
  %field = getelementptr i8, ptr addrspace(1) %array, i64 24
  call void @bump(ptr addrspace(1) %field)
  ret i64 %v
}

define internal ptr @bytes_of(ptr addrspace(1) %string) noinline {
  %data = getelementptr i8, ptr addrspace(1) %string, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  ret ptr %raw
}

define i8 @first_byte_later(ptr addrspace(1) %string) {
  %p = call ptr @bytes_of(ptr addrspace(1) %string)
  call void @g()
  %b = load i8, ptr %p
  ret i8 %b
}
