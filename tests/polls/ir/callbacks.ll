; Managed functions passed to unmanaged C: each becomes an entry the pass
; adds (polls/callbacks.c), which runs it through corral_call_managed when
; C calls it while the thread is UNMANAGED. Not for a routine that
; attaches itself, a signal handler, or the runtime's own functions; a
; varargs function is left as written, with a warning.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @qsort(ptr, i64, i64, ptr)
declare ptr @signal(i32, ptr)
declare void @register_hook(ptr)
declare i32 @corral_thread_attach()
declare ptr @corral_alloc_slow(ptr, i64)

define internal i32 @compare(ptr %a, ptr %b) {
  %x = load i64, ptr %a
  %y = load i64, ptr %b
  %lt = icmp slt i64 %x, %y
  %r = zext i1 %lt to i32
  ret i32 %r
}

define internal void @handler(i32 %signal) {
  ret void
}

define internal void @attaching(ptr %arg) {
  %r = call i32 @corral_thread_attach()
  ret void
}

define internal void @variadic(i32 %n, ...) {
  ret void
}

define internal zeroext i8 @narrow(i8 signext %c, double %d) {
  ret i8 %c
}

define void @sort(ptr %a, i64 %n) {
  call void @qsort(ptr %a, i64 %n, i64 8, ptr @compare)
  call void @qsort(ptr %a, i64 %n, i64 8, ptr @compare)
  %old = call ptr @signal(i32 2, ptr @handler)
  call void @register_hook(ptr @attaching)
  call void @register_hook(ptr @variadic)
  call void @register_hook(ptr @narrow)
  ret void
}
