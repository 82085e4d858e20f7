; AArch64 passes and returns a 16-byte struct in two registers, so clang
; moves a struct of references as [2 x i64] through its stack slot (here as
; clang -O0 writes it) or, once optimised, as ptrtoint + insertvalue and
; extractvalue + inttoptr. The pass types the slot's accesses by its fields
; (polls/abi_coercion.c) and puts the return poll before the ptrtoints.
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128"
target triple = "aarch64-unknown-linux-gnu"

%struct.pair = type { ptr addrspace(1), ptr addrspace(1) }
%struct.ref_and_long = type { ptr addrspace(1), i64 }

declare void @g()

define [2 x i64] @make_pair(ptr addrspace(1) %a, ptr addrspace(1) %b) {
  %retval = alloca %struct.pair, align 8
  store ptr addrspace(1) %b, ptr %retval, align 8
  %second = getelementptr inbounds %struct.pair, ptr %retval, i32 0, i32 1
  store ptr addrspace(1) %a, ptr %second, align 8
  %v = load [2 x i64], ptr %retval, align 8
  ret [2 x i64] %v
}

define i64 @take_ref_and_long([2 x i64] %both.coerce) {
  %both = alloca %struct.ref_and_long, align 8
  store [2 x i64] %both.coerce, ptr %both, align 8
  call void @g()
  %ref = load ptr addrspace(1), ptr %both, align 8
  %value = load i64, ptr addrspace(1) %ref, align 8
  %number.addr = getelementptr inbounds %struct.ref_and_long, ptr %both, i32 0, i32 1
  %number = load i64, ptr %number.addr, align 8
  %sum = add i64 %value, %number
  ret i64 %sum
}

define i64 @use_pair(ptr addrspace(1) %x, ptr addrspace(1) %y) {
  %p = alloca %struct.pair, align 8
  %r = call [2 x i64] @make_pair(ptr addrspace(1) %x, ptr addrspace(1) %y)
  store [2 x i64] %r, ptr %p, align 8
  call void @g()
  %first = load ptr addrspace(1), ptr %p, align 8
  %v = load i64, ptr addrspace(1) %first, align 8
  ret i64 %v
}

; As clang -O2 writes it for AArch64.
define [2 x i64] @make_pair_optimised(ptr addrspace(1) %a, ptr addrspace(1) %b) {
  %ia = ptrtoint ptr addrspace(1) %b to i64
  %pa = insertvalue [2 x i64] poison, i64 %ia, 0
  %ib = ptrtoint ptr addrspace(1) %a to i64
  %pb = insertvalue [2 x i64] %pa, i64 %ib, 1
  ret [2 x i64] %pb
}
