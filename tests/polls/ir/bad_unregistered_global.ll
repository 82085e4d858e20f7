; Globals holding references that nothing registers as roots: their address
; is only loaded from and stored to, so corral_global_root_add never saw it.
; The static one is an error, the external one a warning (C elsewhere may
; register it); the registered one and the one whose address is passed to a
; helper get nothing. A thread-local one is reached through
; llvm.threadlocal.address (this thread's instance), which is no registration.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@cache = internal global ptr addrspace(1) null
@pair = internal global { i64, ptr addrspace(1) } zeroinitializer
@shared = global ptr addrspace(1) null
@registered = internal global ptr addrspace(1) null
@handed_over = internal global [2 x ptr addrspace(1)] zeroinitializer
@per_thread = internal thread_local global ptr addrspace(1) null
@per_thread_registered = internal thread_local global ptr addrspace(1) null

declare void @corral_global_root_add(ptr)
declare void @register_elsewhere(ptr)
declare ptr @llvm.threadlocal.address.p0(ptr)

define void @setup() {
  call void @corral_global_root_add(ptr @registered)
  call void @register_elsewhere(ptr getelementptr ([2 x ptr addrspace(1)], ptr @handed_over, i64 0, i64 1))
  %mine = call ptr @llvm.threadlocal.address.p0(ptr @per_thread_registered)
  call void @corral_global_root_add(ptr %mine)
  ret void
}

define ptr addrspace(1) @keep(ptr addrspace(1) %object) {
  store ptr addrspace(1) %object, ptr @cache
  store ptr addrspace(1) %object, ptr getelementptr inbounds ({ i64, ptr addrspace(1) }, ptr @pair, i64 0, i32 1)
  store ptr addrspace(1) %object, ptr @shared
  store ptr addrspace(1) %object, ptr @registered
  store ptr addrspace(1) %object, ptr getelementptr ([2 x ptr addrspace(1)], ptr @handed_over, i64 0, i64 1)
  %slot = call ptr @llvm.threadlocal.address.p0(ptr @per_thread)
  store ptr addrspace(1) %object, ptr %slot
  %registered = call ptr @llvm.threadlocal.address.p0(ptr @per_thread_registered)
  store ptr addrspace(1) %object, ptr %registered
  %old = load ptr addrspace(1), ptr @cache
  ret ptr addrspace(1) %old
}
