; An immediate's payload taken by a plain shift, live across a call: the
; pass cannot tell it from an address (corral_untag_int marks it).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @g() {
  ret void
}

define i64 @unbox(ptr addrspace(1) %value) {
  %word = ptrtoint ptr addrspace(1) %value to i64
  %n = ashr i64 %word, 1
  call void @g()
  ret i64 %n
}
