; A managed definition marked as a leaf.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.leaf = private constant [12 x i8] c"corral_leaf\00", section "llvm.metadata"
@.file = private constant [24 x i8] c"bad_definition_mark.ll\00\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @defined_leaf, ptr @.leaf, ptr @.file, i32 1, ptr null }
], section "llvm.metadata"

define void @defined_leaf() {
  ret void
}
