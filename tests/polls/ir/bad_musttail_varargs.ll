; A musttail call of a managed varargs function: the pass rewrites such
; calls (pins of references in "...", results, %al), which a tail jump
; cannot keep.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @callee(i64 %a, ...) {
  ret void
}

define void @forward(i64 %a, ...) {
  musttail call void (i64, ...) @callee(i64 %a, ...)
  ret void
}
