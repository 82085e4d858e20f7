; AArch64: a varargs function returning a struct in memory. A statepoint of
; a varargs callee cannot carry sret (LLVM 19's verifier), and AArch64 passes
; the sret pointer in x8, so the callee and its calls drop sret together.
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

%struct.L = type { i64, i64, i64 }

declare void @g()

define internal void @make(ptr sret(%struct.L) align 8 %out, i32 %x, ...) noinline {
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
