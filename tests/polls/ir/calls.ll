; Every kind of call site the pass classifies.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@fmt.int = private constant [4 x i8] c"%d\0A\00"
@fmt.two = private constant [7 x i8] c"%s %f\0A\00"
@text = private constant [3 x i8] c"hi\00"
@.leaf = private constant [12 x i8] c"corral_leaf\00", section "llvm.metadata"
@.unmanaged = private constant [17 x i8] c"corral_unmanaged\00", section "llvm.metadata"
@.safepoint = private constant [17 x i8] c"corral_safepoint\00", section "llvm.metadata"
@.file = private constant [9 x i8] c"calls.ll\00", section "llvm.metadata"
@llvm.global.annotations = appending global [3 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @annotated_leaf, ptr @.leaf, ptr @.file, i32 1, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @annotated_unmanaged, ptr @.unmanaged, ptr @.file, i32 2, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @annotated_safepoint, ptr @.safepoint, ptr @.file, i32 3, ptr null }
], section "llvm.metadata"

declare i32 @printf(ptr, ...)
declare i32 @puts(ptr)
declare i64 @strlen(ptr)
declare void @annotated_leaf(ptr addrspace(1))
declare void @annotated_unmanaged()
declare void @annotated_safepoint()
declare void @corral_collect()
declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1), ptr addrspace(1), i64, i1)

define ptr addrspace(1) @managed_callee(ptr addrspace(1) %object) {
  ret ptr addrspace(1) %object
}

define ptr addrspace(1) @caller(ptr addrspace(1) %object, ptr %callback, i64 %bytes) {
  %1 = call ptr addrspace(1) @managed_callee(ptr addrspace(1) %object)
  %2 = call i32 @puts(ptr @text)
  %3 = call i32 (ptr, ...) @printf(ptr @fmt.int, i32 %2)
  %4 = call i32 (ptr, ...) @printf(ptr @fmt.two, ptr @text, double 2.5)
  %5 = call i32 (ptr, ...) @printf(ptr @fmt.int, i32 %3)
  %6 = call i64 @strlen(ptr @text)
  call void @annotated_leaf(ptr addrspace(1) %1)
  call void @annotated_unmanaged()
  call void @annotated_safepoint()
  call void @corral_collect()
  call void %callback()
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) %1, ptr addrspace(1) %object, i64 %bytes, i1 false)
  ret ptr addrspace(1) %1
}
