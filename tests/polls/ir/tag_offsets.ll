; References tagged by a pointer offset under V8's scheme (corral-opt
; --ref-tags=1): the +1 offset becomes a base of its own, so %r need not
; stay live, and it may be passed to a call; +7 on a tagged reference is the
; field at 8 of its object, a derived pointer as before.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @g() {
  ret void
}

define void @use(ptr addrspace(1) %value) {
  ret void
}

define ptr addrspace(1) @tag(ptr addrspace(1) %r) {
  %tagged = getelementptr i8, ptr addrspace(1) %r, i64 1
  call void @g()
  call void @use(ptr addrspace(1) %tagged)
  ret ptr addrspace(1) %tagged
}

define i64 @field(ptr addrspace(1) %tagged) {
  %car = getelementptr i8, ptr addrspace(1) %tagged, i64 7
  call void @g()
  %value = load i64, ptr addrspace(1) %car
  ret i64 %value
}
