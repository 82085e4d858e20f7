; References live across setjmp: an argument, a call's result and an
; address inside it. Each object gets a root slot of a frame on the
; frame-root chain, stored where it is defined and loaded before each use;
; the address is recomputed from its object.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @_setjmp(ptr)
declare void @longjmp(ptr, i32)
declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)

define ptr addrspace(1) @make() noinline {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 0)
  ret ptr addrspace(1) %object
}

define void @g(ptr addrspace(1) %object) noinline {
  ret void
}

define i64 @kept(ptr addrspace(1) %arg, ptr %buf) {
entry:
  %made = call ptr addrspace(1) @make()
  %field = getelementptr i8, ptr addrspace(1) %made, i64 16
  %r = call i32 @_setjmp(ptr %buf)
  %first = icmp eq i32 %r, 0
  br i1 %first, label %jump, label %again
jump:
  call void @longjmp(ptr %buf, i32 1)
  unreachable
again:
  call void @g(ptr addrspace(1) %arg)
  %v = load i64, ptr addrspace(1) %field
  ret i64 %v
}

; No reference lives across this one: no frame, only the save and restore.
define i32 @plain(ptr %buf) {
  %r = call i32 @_setjmp(ptr %buf)
  ret i32 %r
}
