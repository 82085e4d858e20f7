; x86-64: varargs calls returning a struct in memory, direct and indirect. A
; statepoint of a varargs callee cannot carry sret (LLVM 19's verifier); the
; sret pointer travels as the first argument, so the calls drop it.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.L = type { i64, i64, i64 }

declare void @g()

define void @make(ptr sret(%struct.L) align 8 %out, i32 %x, ...) noinline {
  %wide = sext i32 %x to i64
  store i64 %wide, ptr %out, align 8
  call void @g()
  ret void
}

define i64 @use(i32 %x) {
  %l = alloca %struct.L, align 8
  call void (ptr, i32, ...) @make(ptr sret(%struct.L) align 8 %l, i32 %x, i64 1)
  %a = load i64, ptr %l, align 8
  ret i64 %a
}

define i64 @through(ptr %callee, i32 %x) {
  %l = alloca %struct.L, align 8
  call void (ptr, i32, ...) %callee(ptr sret(%struct.L) align 8 %l, i32 %x, i64 1)
  %a = load i64, ptr %l, align 8
  ret i64 %a
}
