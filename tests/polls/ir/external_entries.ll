; External managed functions C in other files may call by name: the entry
; takes the symbol at the end of the pass, the function becomes internal
; (corral.managed.F) and managed callers call it directly. Not for a
; function taking references, a weak one, one in a comdat, main, or a
; static one (nothing outside the file names it).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

$in_comdat = comdat any

declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)

define i64 @api(i64 %x) {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 16)
  store i64 %x, ptr addrspace(1) %object
  %v = load i64, ptr addrspace(1) %object
  ret i64 %v
}

define i64 @user(i64 %x) {
  %a = call i64 @api(i64 %x)
  %b = call i64 @helper(i64 %a)
  ret i64 %b
}

define internal i64 @helper(i64 %x) {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 16)
  ret i64 %x
}

define ptr addrspace(1) @takes_ref(ptr addrspace(1) %object) {
  ret ptr addrspace(1) %object
}

define weak i64 @weak_api(i64 %x) {
  ret i64 %x
}

define i64 @in_comdat(i64 %x) comdat {
  ret i64 %x
}

define i32 @main() {
  %r = call i64 @user(i64 1)
  ret i32 0
}
