; A managed main returns to the C library, which runs the atexit handlers
; and exits: before each of its returns, after the return poll, the thread
; leaves managed code (corral_main_returns, a statepoint). Not before a
; return whose value a musttail call makes, nor in any other function.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)
define internal void @use(ptr addrspace(1) %object) {
  store i64 1, ptr addrspace(1) %object
  ret void
}

define i32 @main(i32 %argc) {
entry:
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 16)
  %more = icmp sgt i32 %argc, 1
  br i1 %more, label %early, label %late

early:
  ret i32 3

late:
  call void @use(ptr addrspace(1) %object)
  %negative = icmp slt i32 %argc, 0
  br i1 %negative, label %tail, label %zero

zero:
  ret i32 0

tail:
  %r = musttail call i32 @tail_main(i32 %argc)
  ret i32 %r
}

define i32 @not_main(i32 %argc) {
  ret i32 %argc
}

define i32 @tail_main(i32 %argc) {
  ret i32 %argc
}
