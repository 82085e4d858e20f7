; A raw pointer into an object, live across setjmp (and no safepoint): at
; the second return the object may have moved.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @_setjmp(ptr)
@buffer = global [16 x i8] zeroinitializer

define i8 @raw(ptr addrspace(1) %r, i1 %c, ptr %buf) {
entry:
  %p = addrspacecast ptr addrspace(1) %r to ptr
  br i1 %c, label %object, label %join
object:
  br label %join
join:
  %m = phi ptr [ %p, %object ], [ @buffer, %entry ]
  %s = call i32 @_setjmp(ptr %buf)
  %v = load i8, ptr %m
  ret i8 %v
}
