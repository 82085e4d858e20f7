; vfork returns twice otherwise than setjmp: its child runs on the parent's
; stack. Only the setjmp family is supported in managed code.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @vfork() returns_twice

define i32 @jump() {
  %r = call i32 @vfork()
  ret i32 %r
}
