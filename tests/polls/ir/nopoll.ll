; Opting out of polls, by attribute and by annotation, and forcing all kinds.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.nopoll = private constant [14 x i8] c"corral_nopoll\00", section "llvm.metadata"
@.file = private constant [10 x i8] c"nopoll.ll\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @annotated_spin, ptr @.nopoll, ptr @.file, i32 1, ptr null }
], section "llvm.metadata"

declare i64 @strlen(ptr)

define void @attribute_spin(ptr %flag) "corral-nopoll" {
entry:
  br label %loop
loop:
  %v = load volatile i32, ptr %flag
  %z = icmp eq i32 %v, 0
  br i1 %z, label %loop, label %done
done:
  ret void
}

define void @annotated_spin(ptr %flag) {
entry:
  br label %loop
loop:
  %v = load volatile i32, ptr %flag
  %z = icmp eq i32 %v, 0
  br i1 %z, label %loop, label %done
done:
  ret void
}

define i64 @everything(ptr %s) "corral-poll-all" {
  %length = call i64 @strlen(ptr %s)
  ret i64 %length
}
