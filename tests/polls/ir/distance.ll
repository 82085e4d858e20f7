; Functions whose poll distance is known by counting (polls=none, or as noted).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @managed_elsewhere()

; add, mul, ret: 3
define i64 @straight(i64 %x) {
  %a = add i64 %x, 1
  %b = mul i64 %a, 3
  ret i64 %b
}

; [add, call] and [add, add, ret]: 3
define i64 @split_by_call(i64 %x) {
  %a = add i64 %x, 1
  call void @callee()
  %b = add i64 %a, 2
  %c = add i64 %b, 3
  ret i64 %c
}

define void @callee() {
  ret void
}

; entry (br) + left (3 adds + br) + join (ret): 6
define i64 @diamond(i1 %c, i64 %x) {
entry:
  br i1 %c, label %left, label %right
left:
  %a = add i64 %x, 1
  %b = add i64 %a, 1
  %d = add i64 %b, 1
  br label %join
right:
  %e = add i64 %x, 5
  br label %join
join:
  %r = phi i64 [ %d, %left ], [ %e, %right ]
  ret i64 %r
}
