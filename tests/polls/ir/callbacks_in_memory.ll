; Managed functions whose address C finds in memory (polls/callback_reach.c):
; each address that may reach C becomes the function's entry everywhere but
; in direct calls, so C calling it while the thread is UNMANAGED enters
; through the runtime, and managed code compares the addresses as C would.
; A static dispatch table read only by managed calls keeps the addresses.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i64 @run_ops(ptr, i64)
declare void @keep(ptr)

; A struct of callbacks handed to C.
@ops = internal constant { ptr, ptr } { ptr @each, ptr @finish }
; A dispatch table only managed code reads and calls through.
@table = internal constant [2 x ptr] [ptr @op_add, ptr @op_sub]
; A table filled at run time, whose address C gets.
@hooks = internal global [2 x ptr] zeroinitializer

define internal i64 @each(i64 %i) {
  ret i64 %i
}

define internal i64 @finish(i64 %s) {
  ret i64 %s
}

define internal i64 @op_add(i64 %a, i64 %b) {
  %r = add i64 %a, %b
  ret i64 %r
}

define internal i64 @op_sub(i64 %a, i64 %b) {
  %r = sub i64 %a, %b
  ret i64 %r
}

define internal i64 @hook(i64 %a) {
  ret i64 %a
}

define internal i64 @local_only(i64 %a) {
  ret i64 %a
}

; Not static: another file may take its address and hand it to C.
define i64 @exported(i64 %a) {
  ret i64 %a
}

define i64 @use_ops(i64 %n) {
  %s = call i64 @run_ops(ptr @ops, i64 %n)
  ; Identity: the address loaded from the struct is @each's, as C says.
  %e = load ptr, ptr @ops
  %same = icmp eq ptr %e, @each
  %z = zext i1 %same to i64
  %r = add i64 %s, %z
  ret i64 %r
}

define i64 @dispatch(i64 %op, i64 %a, i64 %b) {
  %slot = getelementptr [2 x ptr], ptr @table, i64 0, i64 %op
  %f = load ptr, ptr %slot
  %r = call i64 %f(i64 %a, i64 %b)
  %d = call i64 @op_add(i64 %r, i64 1)
  ret i64 %d
}

define void @fill_hooks() {
  store ptr @hook, ptr @hooks
  call void @keep(ptr @hooks)
  ret void
}

; -O0's shape of a local function pointer: stored, loaded, called.
define i64 @through_local(i64 %a) {
  %fp = alloca ptr
  store ptr @local_only, ptr %fp
  %f = load ptr, ptr %fp
  %r = call i64 %f(i64 %a)
  %x = call i64 @exported(i64 %r)
  ret i64 %x
}

define ptr @exported_address() {
  ret ptr @exported
}
