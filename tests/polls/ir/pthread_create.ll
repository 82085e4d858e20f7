; pthread_create with a start routine the module defines (managed code) calls
; corral_pthread_create instead, which attaches the new thread; one whose
; start routine is only declared (C or managed code elsewhere) calls
; corral_pthread_create_any, which decides at run time; one that attaches
; itself stays as written.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare ptr @c_worker(ptr)

define internal ptr @worker(ptr %arg) {
  ret ptr %arg
}

define i32 @start_managed(ptr %tid) {
  %r = call i32 @pthread_create(ptr %tid, ptr null, ptr @worker, ptr null)
  ret i32 %r
}

define i32 @start_c(ptr %tid) {
  %r = call i32 @pthread_create(ptr %tid, ptr null, ptr @c_worker, ptr null)
  ret i32 %r
}

declare i32 @corral_thread_attach()

define internal ptr @self_attaching(ptr %arg) {
  %a = call i32 @corral_thread_attach()
  ret ptr %arg
}

define i32 @start_self_attaching(ptr %tid) {
  %r = call i32 @pthread_create(ptr %tid, ptr null, ptr @self_attaching, ptr null)
  ret i32 %r
}
