; Vectors of references live across setjmp, as the loop vectorizer leaves
; them: a splat hoisted above the call and stored in a loop after it (gen.py
; seed 91027: a computed goto's dispatch block led from after a setjmp back
; to a vectorized loop before it). The pass keeps references across setjmp
; in root slots, so it builds such a vector again after the call from the
; scalars in its lanes, which it keeps; a lane that is a constant stays one.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @_setjmp(ptr)

define void @g() noinline {
  ret void
}

define void @splat_across(ptr %buf, ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %arr, i1 %c) {
entry:
  %ins = insertelement <2 x ptr addrspace(1)> poison, ptr addrspace(1) %a, i64 0
  %splat = shufflevector <2 x ptr addrspace(1)> %ins, <2 x ptr addrspace(1)> poison, <2 x i32> zeroinitializer
  %pair.0 = insertelement <2 x ptr addrspace(1)> zeroinitializer, ptr addrspace(1) %b, i64 1
  %r = call i32 @_setjmp(ptr %buf)
  br label %loop
loop:
  call void @g()
  %slot = getelementptr i8, ptr addrspace(1) %arr, i64 16
  store <2 x ptr addrspace(1)> %splat, ptr addrspace(1) %slot
  %other = getelementptr i8, ptr addrspace(1) %arr, i64 32
  store <2 x ptr addrspace(1)> %pair.0, ptr addrspace(1) %other
  br i1 %c, label %loop, label %done
done:
  ret void
}
