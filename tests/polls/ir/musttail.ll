; musttail calls of managed code (docs/managed-c.md rule 7) stay tail jumps,
; not statepoints: the return poll goes before the call, and so does the
; pop of a frame of stack references; references live across the poll are
; relocated into the call's arguments.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)

define void @fill(ptr %out) noinline {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 0)
  store ptr addrspace(1) %object, ptr %out
  ret void
}

define i64 @even(ptr addrspace(1) %a, i64 %n) noinline {
  %zero = icmp eq i64 %n, 0
  br i1 %zero, label %done, label %more
more:
  %fresh = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 0)
  %m = sub i64 %n, 1
  %r = musttail call i64 @odd(ptr addrspace(1) %fresh, i64 %m)
  ret i64 %r
done:
  ret i64 0
}

define i64 @odd(ptr addrspace(1) %a, i64 %n) noinline {
  %r = musttail call i64 @even(ptr addrspace(1) %a, i64 %n)
  ret i64 %r
}

; Through a function pointer, as a dispatch table's handlers call.
define i64 @dispatch(ptr %handler, ptr addrspace(1) %a, i64 %n) {
  %r = musttail call i64 %handler(ptr %handler, ptr addrspace(1) %a, i64 %n)
  ret i64 %r
}

define i64 @framed(ptr addrspace(1) %a, i64 %n) noinline {
  %slot = alloca ptr addrspace(1)
  call void @fill(ptr %slot)
  %r = load ptr addrspace(1), ptr %slot
  %t = musttail call i64 @framed(ptr addrspace(1) %r, i64 %n)
  ret i64 %t
}
