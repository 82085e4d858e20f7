; A managed main returns to the C library, which runs the atexit handlers
; and the destructors, and exits: before each of main's returns, after the
; return poll, the thread leaves managed code (corral_main_returns, a
; statepoint); not before a return whose value a musttail call makes, nor
; in any other function. The C library calls the constructors and
; destructors (at load, dlopen included, and at exit), so their tables hold
; the functions' entries; llvm.used keeps its function. pthread_exit and
; thrd_exit become the runtime's, and so do swapcontext, setcontext and
; getcontext (no longer returns_twice), which leave a stack.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @at_load, ptr null }]
@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @at_exit, ptr null }]
@llvm.used = appending global [1 x ptr] [ptr @kept], section "llvm.metadata"

declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)
declare void @pthread_exit(ptr) noreturn
declare void @thrd_exit(i32) noreturn

; pthread_exit and thrd_exit become the runtime's, which drop the thread's
; managed frames before the exit unwinds them.
define void @ends_thread(i32 %how) {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 16)
  %c11 = icmp eq i32 %how, 0
  br i1 %c11, label %c11_exit, label %posix_exit

c11_exit:
  call void @thrd_exit(i32 3)
  unreachable

posix_exit:
  call void @pthread_exit(ptr null)
  unreachable
}

declare i32 @swapcontext(ptr, ptr)
declare i32 @setcontext(ptr)
declare i32 @getcontext(ptr) returns_twice

; A generator's switches: the runtime's versions set the managed frames of
; the stack they leave aside (threads/stack_switch.c).
define i32 @switches_stacks(ptr %save, ptr %target) {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 16)
  %made = call i32 @getcontext(ptr %save) returns_twice
  %swapped = call i32 @swapcontext(ptr %save, ptr %target)
  %set = call i32 @setcontext(ptr %target)
  ret i32 %set
}

define internal void @at_load() {
  ret void
}

define internal void @at_exit() {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 16)
  ret void
}

define internal void @kept() {
  ret void
}
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
