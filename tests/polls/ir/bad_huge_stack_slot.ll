; A stack array of references larger than a frame of the frame-root chain
; holds (128 MiB; a thread's stack is 8 MiB by default).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @fill(ptr %out) noinline {
  ret void
}

define void @huge() {
  %array = alloca [16777216 x ptr addrspace(1)]
  call void @fill(ptr %array)
  ret void
}
