; A reference compared before a setjmp call, the result branched on after it:
; RS4GC moves a compare that only a conditional branch uses to just before
; the branch, so %object becomes live across the call. The pass must move
; it first, so the reference is kept in a root slot and loaded again for
; the compare (before the fix: "internal error: reference ... is live across
; a setjmp call after RS4GC"; gen.py seed 74134 at -O3).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @_setjmp(ptr)

define void @g() noinline {
  ret void
}

define i64 @compare_then_setjmp(ptr addrspace(1) %object, ptr %buf) {
entry:
  %is_null = icmp eq ptr addrspace(1) %object, null
  %r = call i32 @_setjmp(ptr %buf)
  call void @g()
  br i1 %is_null, label %none, label %some
none:
  ret i64 0
some:
  ret i64 1
}

define i64 @compare_in_another_block(ptr addrspace(1) %object, ptr %buf, i1 %c) {
entry:
  %is_null = icmp eq ptr addrspace(1) %object, null
  br i1 %c, label %jump, label %other
jump:
  %r = call i32 @_setjmp(ptr %buf)
  call void @g()
  br label %test
other:
  call void @g()
  br label %test
test:
  br i1 %is_null, label %none, label %some
none:
  ret i64 0
some:
  ret i64 1
}
