; Raw memory becoming a reference (corral_alloc's fast path), address
; differences (allowed), and an atomic exchange of references.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @g() {
  ret void
}

define ptr addrspace(1) @fresh(ptr %raw) {
  %r = addrspacecast ptr %raw to ptr addrspace(1)
  call void @g()
  ret ptr addrspace(1) %r
}

define i64 @offset_in_object(ptr addrspace(1) %base, ptr addrspace(1) %field) {
  %a = ptrtoint ptr addrspace(1) %field to i64
  %b = ptrtoint ptr addrspace(1) %base to i64
  %offset = sub i64 %a, %b
  call void @g()
  ret i64 %offset
}

define ptr addrspace(1) @swap(ptr addrspace(1) %slot, ptr addrspace(1) %new) {
  %old = atomicrmw xchg ptr addrspace(1) %slot, ptr addrspace(1) %new seq_cst, align 8
  call void @g()
  ret ptr addrspace(1) %old
}
