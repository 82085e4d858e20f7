; clang -ftrivial-auto-var-init=pattern: a reference local starts as the
; word 0xAAAAAAAAAAAAAAAA (-6148914691236517206), an array of references as
; a memset of 0xAA bytes, a struct as a copy of a constant holding the word.
; Each becomes null before optimisation, so no collection reads the pattern
; as a reference; a char buffer keeps its pattern.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.pair = type { ptr addrspace(1), ptr addrspace(1), i64 }

@__const.locals.pair = private unnamed_addr constant %struct.pair { ptr addrspace(1) inttoptr (i64 -6148914691236517206 to ptr addrspace(1)), ptr addrspace(1) inttoptr (i64 -6148914691236517206 to ptr addrspace(1)), i64 -6148914691236517206 }, align 8

declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)
declare void @fill(ptr, ptr, ptr)
declare i64 @sum(ptr, ptr, ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; The uninitialised reference meets the allocated one in a phi live across
; the second allocation.
define ptr addrspace(1) @pick(i1 %allocate) {
entry:
  %x = alloca ptr addrspace(1), align 8
  store ptr addrspace(1) inttoptr (i64 -6148914691236517206 to ptr addrspace(1)), ptr %x, align 8, !annotation !0
  br i1 %allocate, label %new, label %join

new:
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 0)
  store ptr addrspace(1) %object, ptr %x, align 8
  br label %join

join:
  %other = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 0)
  %kept = load ptr addrspace(1), ptr %x, align 8
  ret ptr addrspace(1) %kept
}

define i64 @locals() {
entry:
  %array = alloca [40 x ptr addrspace(1)], align 16
  %pair = alloca %struct.pair, align 8
  %text = alloca [64 x i8], align 16
  call void @llvm.memset.p0.i64(ptr align 16 %array, i8 -86, i64 320, i1 false), !annotation !0
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %pair, ptr align 8 @__const.locals.pair, i64 24, i1 false), !annotation !0
  call void @llvm.memset.p0.i64(ptr align 16 %text, i8 -86, i64 64, i1 false), !annotation !0
  call void @fill(ptr %array, ptr %pair, ptr %text)
  %total = call i64 @sum(ptr %array, ptr %pair, ptr %text)
  ret i64 %total
}

!0 = !{!"auto-init"}
