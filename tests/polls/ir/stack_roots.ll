; Stack memory holding references (docs/managed-c.md rule 1): an
; address-taken local filled by a callee, a stack array, a struct with a
; word that is not a reference, and a byval parameter. Each moves into one
; frame on the frame-root chain whose map lists the runs of reference
; words; the push comes before the entry poll, the pop before the return.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.triple = type { ptr addrspace(1), ptr addrspace(1), ptr addrspace(1) }

declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)

define void @fill(ptr %out) noinline {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 0)
  store ptr addrspace(1) %object, ptr %out
  ret void
}

define void @set_second(ptr %pair, ptr addrspace(1) %r) noinline {
  %field = getelementptr { i64, ptr addrspace(1) }, ptr %pair, i64 0, i32 1
  store ptr addrspace(1) %r, ptr %field
  ret void
}

define ptr addrspace(1) @slots(ptr addrspace(1) %r) {
entry:
  %slot = alloca ptr addrspace(1)
  %array = alloca [4 x ptr addrspace(1)], align 16
  %mixed = alloca { i64, ptr addrspace(1) }
  %plain = alloca [2 x i64]
  call void @llvm.lifetime.start.p0(i64 32, ptr %array)
  call void @fill(ptr %slot)
  %second = getelementptr [4 x ptr addrspace(1)], ptr %array, i64 0, i64 1
  call void @fill(ptr %second)
  call void @set_second(ptr %mixed, ptr addrspace(1) %r)
  call void @fill(ptr %plain)
  %a = load ptr addrspace(1), ptr %second
  call void @llvm.lifetime.end.p0(i64 32, ptr %array)
  ret ptr addrspace(1) %a
}

define ptr addrspace(1) @third(ptr byval(%struct.triple) align 8 %t) {
  call void @fill(ptr null)
  %field = getelementptr %struct.triple, ptr %t, i64 0, i32 2
  %c = load ptr addrspace(1), ptr %field
  ret ptr addrspace(1) %c
}
