; AArch64: an indirect call of a varargs function returning a struct in
; memory: its callee keeps sret (x8), which a statepoint cannot carry.
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

%struct.L = type { i64, i64, i64 }

define i64 @through(ptr %callee, i32 %x) {
  %l = alloca %struct.L, align 8
  call void (ptr, i32, ...) %callee(ptr sret(%struct.L) align 8 %l, i32 %x, i64 1)
  %a = load i64, ptr %l, align 8
  ret i64 %a
}
