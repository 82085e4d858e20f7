; A raw pointer into an object passed to a musttail call that may keep it:
; the frame pin would end with the caller's frame, before the call runs.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define ptr @keep(ptr %p, ptr addrspace(1) %s) {
  ret ptr %p
}

define ptr @musttail_keep(ptr %unused, ptr addrspace(1) %s) {
  %raw = addrspacecast ptr addrspace(1) %s to ptr
  %r = musttail call ptr @keep(ptr %raw, ptr addrspace(1) %s)
  ret ptr %r
}
