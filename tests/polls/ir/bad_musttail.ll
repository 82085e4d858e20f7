; A musttail call of unmanaged C: the GC transition around it must run when
; it returns, so it cannot be a tail jump.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i64 @callee(i64)

define i64 @tail(i64 %a) {
  %r = musttail call i64 @callee(i64 %a)
  ret i64 %r
}
