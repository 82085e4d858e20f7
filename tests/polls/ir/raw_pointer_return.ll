; A function returning a raw pointer into an object whose pin its caller
; holds (corral_require_pinned, checked at run time): accepted, and the
; pointer is made again after the return poll, from the reference the poll
; relocates (before 2026-11-29 the pass refused it, the cast being live
; across that poll). A corral-nopoll function may return one too: the
; llvm.gcroot boundary, an allocation a gcroot caller roots at once. And
; results of calls given a raw pointer that point elsewhere: memcpy's
; destination, strdup's new memory; strchr's result on a pinned object.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @corral_require_pinned(ptr addrspace(1))

define ptr @text_of_pinned(ptr addrspace(1) %text) {
  call void @corral_require_pinned(ptr addrspace(1) %text)
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  ret ptr %raw
}

define ptr addrspace(1) @new_object() {
  ret ptr addrspace(1) null
}

define ptr @new_object_for_gcroot() #0 {
  %object = call ptr addrspace(1) @new_object()
  %raw = addrspacecast ptr addrspace(1) %object to ptr
  ret ptr %raw
}

attributes #0 = { "corral-nopoll" }

@buffer = global [64 x i8] zeroinitializer
declare ptr @memcpy(ptr, ptr, i64)
declare noalias ptr @strdup(ptr)

define ptr @copied_out(ptr addrspace(1) %text) {
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  %to = call ptr @memcpy(ptr @buffer, ptr %raw, i64 8)
  ret ptr %to
}

define ptr @duplicated(ptr addrspace(1) %text) {
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  %copy = call ptr @strdup(ptr %raw)
  ret ptr %copy
}

declare ptr @strchr(ptr, i32)

define ptr @comma_of_pinned(ptr addrspace(1) %text) {
  call void @corral_require_pinned(ptr addrspace(1) %text)
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  %comma = call ptr @strchr(ptr %raw, i32 44)
  ret ptr %comma
}
