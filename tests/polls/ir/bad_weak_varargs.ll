; A weak managed varargs function returning a value: another object's
; definition may replace it, so even a whole program cannot rewrite it.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define weak i32 @log_value(i32 %n, ...) {
  ret i32 %n
}

define i32 @use_log() {
  %r = call i32 (i32, ...) @log_value(i32 1, i32 2)
  ret i32 %r
}
