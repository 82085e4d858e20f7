; Tagged values (corral/tagged.h) across a call: an immediate made by
; inttoptr is a base of its own; low tag bits (or an integer only masked to
; them later) and an immediate's payload taken through corral_untag_int's
; empty asm may stay live as integers.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @g() {
  ret void
}

define ptr addrspace(1) @tag_int(i64 %n) {
  %shifted = shl i64 %n, 1
  %word = or i64 %shifted, 1
  %value = inttoptr i64 %word to ptr addrspace(1)
  call void @g()
  ret ptr addrspace(1) %value
}

define i64 @tag_bits(ptr addrspace(1) %value) {
  %word = ptrtoint ptr addrspace(1) %value to i64
  %tag = and i64 %word, 1
  call void @g()
  ret i64 %tag
}

define i64 @tag_bits_later(ptr addrspace(1) %value) {
  %word = ptrtoint ptr addrspace(1) %value to i64
  call void @g()
  %tag = and i64 %word, 1
  ret i64 %tag
}

define i64 @payload(ptr addrspace(1) %value) {
  %word = ptrtoint ptr addrspace(1) %value to i64
  %bits = call i64 asm "", "=r,0"(i64 %word)
  %n = ashr i64 %bits, 1
  call void @g()
  ret i64 %n
}

; What normalize.c and optimisation make of a +1 tag offset: the integer
; becomes the tagged reference before the call and gives its tag bits after.
define i64 @tag_then_bits(ptr addrspace(1) %r) {
  %word = ptrtoint ptr addrspace(1) %r to i64
  %plus = add i64 %word, 1
  %tagged = inttoptr i64 %plus to ptr addrspace(1)
  call void @g()
  call void @use(ptr addrspace(1) %tagged)
  %tag = and i64 %word, 1
  ret i64 %tag
}

define void @use(ptr addrspace(1) %value) {
  ret void
}
