; C11 thrd_create with a start routine the module defines (managed code)
; calls corral_thrd_create instead, through a managed adapter that returns
; the routine's int as thrd_join reads it; one whose start routine is only
; declared, or chosen at run time, calls corral_thrd_create_any (and
; pthread_create corral_pthread_create_any), which decide at run time; a
; defined routine of the wrong type gets a warning; a null one stays.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @thrd_create(ptr, ptr, ptr)
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @c_worker(ptr)

define internal i32 @worker(ptr %arg) {
  ret i32 7
}

define internal void @wrong_type(ptr %arg) {
  ret void
}

define i32 @start_managed(ptr %thr) {
  %r = call i32 @thrd_create(ptr %thr, ptr @worker, ptr null)
  ret i32 %r
}

define i32 @start_managed_again(ptr %thr) {
  %r = call i32 @thrd_create(ptr %thr, ptr @worker, ptr null)
  ret i32 %r
}

define i32 @start_c(ptr %thr) {
  %r = call i32 @thrd_create(ptr %thr, ptr @c_worker, ptr null)
  ret i32 %r
}

define i32 @start_wrong_type(ptr %thr) {
  %r = call i32 @thrd_create(ptr %thr, ptr @wrong_type, ptr null)
  ret i32 %r
}

define i32 @spawn_chosen(ptr %thr, ptr %start) {
  %r = call i32 @thrd_create(ptr %thr, ptr %start, ptr null)
  ret i32 %r
}

define i32 @pthread_spawn_chosen(ptr %tid, ptr %start) {
  %r = call i32 @pthread_create(ptr %tid, ptr null, ptr %start, ptr null)
  ret i32 %r
}

define i32 @start_null(ptr %thr) {
  %r = call i32 @thrd_create(ptr %thr, ptr null, ptr null)
  ret i32 %r
}
