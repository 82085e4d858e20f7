; Stack memory holding references beyond typed fixed-size slots: a
; variable-length array of references (an entry of its own, pushed where it
; is allocated, with its map inline), its loop's stackrestore cutting the
; chain back, and untyped memory (a char buffer) holding only references,
; kept as words of references in the frame.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)
declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)

define void @fill(ptr %out) noinline {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 0)
  store ptr addrspace(1) %object, ptr %out
  ret void
}

define ptr addrspace(1) @rounds(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %saved = call ptr @llvm.stacksave.p0()
  %vla = alloca ptr addrspace(1), i64 %n, align 16
  call void @fill(ptr %vla)
  %first = load ptr addrspace(1), ptr %vla
  call void @llvm.stackrestore.p0(ptr %saved)
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, 4
  br i1 %done, label %exit, label %loop
exit:
  ret ptr addrspace(1) %first
}

define ptr addrspace(1) @untyped() {
  %buffer = alloca [32 x i8], align 1
  %third = getelementptr i8, ptr %buffer, i64 16
  call void @fill(ptr %third)
  %object = load ptr addrspace(1), ptr %third
  store ptr addrspace(1) %object, ptr %buffer
  call void @fill(ptr %third)
  %back = load ptr addrspace(1), ptr %buffer
  ret ptr addrspace(1) %back
}
