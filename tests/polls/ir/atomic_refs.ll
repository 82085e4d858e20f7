; C11 atomics on a reference field as clang 19 emits them (corralc -O2
; before optimisation): i64 loads, stores, exchanges and compare-exchanges,
; the references moved through locals of their own type. push is a
; compare-exchange loop with a call in it: optimised as it is, the desired
; reference's integer is hoisted above the loop and the expected one kept as
; an i64 phi, both live across the call. The pass retypes each operation to
; the references themselves (polls/atomic_refs.c), so they are relocated.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.cell = type { %struct.corral_header, ptr addrspace(1) }
%struct.corral_header = type { ptr }

define void @push(ptr addrspace(1) noundef %h, ptr addrspace(1) noundef %c) {
entry:
  %h.addr = alloca ptr addrspace(1), align 8
  %c.addr = alloca ptr addrspace(1), align 8
  %expected = alloca ptr addrspace(1), align 8
  %atomic-temp = alloca ptr addrspace(1), align 8
  %.atomictmp = alloca ptr addrspace(1), align 8
  %cmpxchg.bool = alloca i8, align 1
  store ptr addrspace(1) %h, ptr %h.addr, align 8
  store ptr addrspace(1) %c, ptr %c.addr, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %expected)
  %0 = load ptr addrspace(1), ptr %h.addr, align 8
  %next = getelementptr inbounds %struct.cell, ptr addrspace(1) %0, i32 0, i32 1
  %1 = load atomic i64, ptr addrspace(1) %next monotonic, align 8
  store i64 %1, ptr %atomic-temp, align 8
  %2 = load ptr addrspace(1), ptr %atomic-temp, align 8
  store ptr addrspace(1) %2, ptr %expected, align 8
  br label %do.body

do.body:                                          ; preds = %cmpxchg.continue, %entry
  call void @g()
  br label %do.cond

do.cond:                                          ; preds = %do.body
  %3 = load ptr addrspace(1), ptr %h.addr, align 8
  %next1 = getelementptr inbounds %struct.cell, ptr addrspace(1) %3, i32 0, i32 1
  %4 = load ptr addrspace(1), ptr %c.addr, align 8
  store ptr addrspace(1) %4, ptr %.atomictmp, align 8
  %5 = load i64, ptr %expected, align 8
  %6 = load i64, ptr %.atomictmp, align 8
  %7 = cmpxchg weak ptr addrspace(1) %next1, i64 %5, i64 %6 seq_cst seq_cst, align 8
  %8 = extractvalue { i64, i1 } %7, 0
  %9 = extractvalue { i64, i1 } %7, 1
  br i1 %9, label %cmpxchg.continue, label %cmpxchg.store_expected

cmpxchg.store_expected:                           ; preds = %do.cond
  store i64 %8, ptr %expected, align 8
  br label %cmpxchg.continue

cmpxchg.continue:                                 ; preds = %cmpxchg.store_expected, %do.cond
  %storedv = zext i1 %9 to i8
  store i8 %storedv, ptr %cmpxchg.bool, align 1
  %10 = load i8, ptr %cmpxchg.bool, align 1
  %loadedv = trunc i8 %10 to i1
  %lnot = xor i1 %loadedv, true
  br i1 %lnot, label %do.body, label %do.end

do.end:                                           ; preds = %cmpxchg.continue
  call void @llvm.lifetime.end.p0(i64 8, ptr %expected)
  ret void
}

declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture)

declare void @g()

declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture)

define ptr addrspace(1) @swap(ptr addrspace(1) noundef %h, ptr addrspace(1) noundef %c) {
entry:
  %h.addr = alloca ptr addrspace(1), align 8
  %c.addr = alloca ptr addrspace(1), align 8
  %.atomictmp = alloca ptr addrspace(1), align 8
  %atomic-temp = alloca ptr addrspace(1), align 8
  store ptr addrspace(1) %h, ptr %h.addr, align 8
  store ptr addrspace(1) %c, ptr %c.addr, align 8
  %0 = load ptr addrspace(1), ptr %h.addr, align 8
  %next = getelementptr inbounds %struct.cell, ptr addrspace(1) %0, i32 0, i32 1
  %1 = load ptr addrspace(1), ptr %c.addr, align 8
  store ptr addrspace(1) %1, ptr %.atomictmp, align 8
  %2 = load i64, ptr %.atomictmp, align 8
  %3 = atomicrmw xchg ptr addrspace(1) %next, i64 %2 seq_cst, align 8
  store i64 %3, ptr %atomic-temp, align 8
  %4 = load ptr addrspace(1), ptr %atomic-temp, align 8
  ret ptr addrspace(1) %4
}

define void @copy(ptr addrspace(1) noundef %h, ptr addrspace(1) noundef %from) {
entry:
  %h.addr = alloca ptr addrspace(1), align 8
  %from.addr = alloca ptr addrspace(1), align 8
  %.atomictmp = alloca ptr addrspace(1), align 8
  %atomic-temp = alloca ptr addrspace(1), align 8
  store ptr addrspace(1) %h, ptr %h.addr, align 8
  store ptr addrspace(1) %from, ptr %from.addr, align 8
  %0 = load ptr addrspace(1), ptr %h.addr, align 8
  %next = getelementptr inbounds %struct.cell, ptr addrspace(1) %0, i32 0, i32 1
  %1 = load ptr addrspace(1), ptr %from.addr, align 8
  %next1 = getelementptr inbounds %struct.cell, ptr addrspace(1) %1, i32 0, i32 1
  %2 = load atomic i64, ptr addrspace(1) %next1 seq_cst, align 8
  store i64 %2, ptr %atomic-temp, align 8
  %3 = load ptr addrspace(1), ptr %atomic-temp, align 8
  store ptr addrspace(1) %3, ptr %.atomictmp, align 8
  %4 = load i64, ptr %.atomictmp, align 8
  store atomic i64 %4, ptr addrspace(1) %next seq_cst, align 8
  ret void
}
