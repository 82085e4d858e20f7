; A static function that returns an interior reference is inlined, unless it
; calls itself: what stays a call is rejected.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define internal ptr addrspace(1) @nth_field(ptr addrspace(1) %object, i64 %n) noinline {
entry:
  %zero = icmp eq i64 %n, 0
  br i1 %zero, label %here, label %deeper
here:
  %field = getelementptr i8, ptr addrspace(1) %object, i64 8
  ret ptr addrspace(1) %field
deeper:
  %m = sub i64 %n, 1
  %r = call ptr addrspace(1) @nth_field(ptr addrspace(1) %object, i64 %m)
  ret ptr addrspace(1) %r
}

define i64 @read(ptr addrspace(1) %object) {
  %field = call ptr addrspace(1) @nth_field(ptr addrspace(1) %object, i64 3)
  %v = load i64, ptr addrspace(1) %field
  ret i64 %v
}
