; An indirect call of a varargs function that returns a value.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @call_through(ptr %f) {
  %r = call i32 (i32, ...) %f(i32 1, i32 2)
  ret i32 %r
}
