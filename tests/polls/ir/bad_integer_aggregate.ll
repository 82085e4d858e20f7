; A reference's address packed into an aggregate of integers (as AArch64's
; [2 x i64] struct return is built) and kept across a call: stale once the
; object moves, though no single integer crosses the call.
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128"
target triple = "aarch64-unknown-linux-gnu"

declare void @g()

define [2 x i64] @pack(ptr addrspace(1) %r) {
  %address = ptrtoint ptr addrspace(1) %r to i64
  %pair = insertvalue [2 x i64] poison, i64 %address, 0
  call void @g()
  ret [2 x i64] %pair
}
