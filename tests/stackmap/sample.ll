; Managed code for stackmap.t: each function keeps references live across
; calls so LLVM 19 emits the record shapes the parser must handle. References
; are `ptr addrspace(1)`; every call becomes a statepoint (RS4GC) and every
; function gets an entry poll (place-safepoints inlines gc.safepoint_poll).
; The test defines @stackmap_sample_callee in C: it records each call's
; return address and the caller's stack and frame pointers.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128-ni:1"
target triple = "x86_64-pc-linux-gnu"

declare void @stackmap_sample_callee()

; place-safepoints needs a definition of the poll in every module.
define internal void @gc.safepoint_poll() {
  call void @stackmap_sample_callee()
  ret void
}

; Two objects and an interior pointer with a variable offset (so CodeGenPrepare
; cannot rematerialise it) live across calls: real (base, derived) pairs.
define ptr addrspace(1) @stackmap_sample_pairs(ptr addrspace(1) %a, ptr addrspace(1) %b, i64 %i) gc "coreclr" {
entry:
  %field = getelementptr i64, ptr addrspace(1) %a, i64 %i
  call void @stackmap_sample_callee()
  %v = load i64, ptr addrspace(1) %field
  store i64 %v, ptr addrspace(1) %b
  call void @stackmap_sample_callee()
  ret ptr addrspace(1) %field
}

; A dynamic alloca: the function's stack size is recorded as UINT64_MAX.
define i64 @stackmap_sample_dynamic(i64 %n, ptr addrspace(1) %a) gc "coreclr" {
entry:
  %buffer = alloca i64, i64 %n
  store i64 %n, ptr %buffer
  call void @stackmap_sample_callee()
  %x = load i64, ptr addrspace(1) %a
  %y = load i64, ptr %buffer
  %s = add i64 %x, %y
  ret i64 %s
}

; Deoptimisation state on a call (an integer, a constant and a reference):
; the parser skips it.
define i64 @stackmap_sample_deopt(i64 %x, ptr addrspace(1) %a) gc "coreclr" {
entry:
  call void @stackmap_sample_callee() [ "deopt"(i64 %x, i32 7, ptr addrspace(1) %a) ]
  %v = load i64, ptr addrspace(1) %a
  ret i64 %v
}

; A loop: a backedge poll, and a reference that is null on the first trip.
define i64 @stackmap_sample_loop(ptr addrspace(1) %a, i64 %n) gc "coreclr" {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %sel = phi ptr addrspace(1) [ null, %entry ], [ %a, %loop ]
  call void @stackmap_sample_callee()
  %next = add i64 %i, 1
  %done = icmp uge i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  %v = load i64, ptr addrspace(1) %sel
  ret i64 %v
}
