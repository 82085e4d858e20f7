; ModuleID = 'fuzz-input'
source_filename = "fuzz-input"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i64 @sum(ptr %a, i32 %n) {
entry:
  %positive = icmp sgt i32 %n, 0
  br i1 %positive, label %preheader, label %exit

preheader:                                        ; preds = %entry
  %count = zext i32 %n to i64
  br label %body

body:                                             ; preds = %body, %preheader
  %i = phi i64 [ 0, %preheader ], [ %i.next, %body ]
  %sum = phi i64 [ 0, %preheader ], [ %sum.next, %body ]
  %address = getelementptr inbounds i32, ptr %a, i64 %i
  %value = load i32, ptr %address, align 4
  %wide = sext i32 %value to i64
  %sum.next = add nsw i64 %sum, %wide
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %count
  br i1 %done, label %exit, label %body

exit:                                             ; preds = %body, %entry
  %result = phi i64 [ 0, %entry ], [ %sum.next, %body ]
  ret i64 %result
}

define i32 @stride(i32 %n) {
entry:
  br label %body

body:                                             ; preds = %body, %entry
  %i = phi i32 [ -7, %entry ], [ %i.next, %body ]
  %k = phi i32 [ 0, %entry ], [ %k.next, %body ]
  %k.next = add i32 %k, 1
  %i.next = add nsw i32 %i, 3
  %more = icmp sgt i32 %n, %i.next
  br i1 %more, label %body, label %exit

exit:                                             ; preds = %body
  ret i32 %k.next
}

define i64 @short_loop(ptr %a) {
entry:
  br label %body

body:                                             ; preds = %body, %entry
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %sum = phi i64 ;[ 0, %entry ], [ %sum.next, %body ]
  %address = getelementptr inbounds i64, ptr %a, i64 %i
  %value = load i64, ptr %address, align 8
  %sum.next = add i64 %sum, %value
  %i.next = add nuw nsw i64 %i, 1
  %0 = call i64 @short_loop(ptr %a)
  %done = icmp eq i64 %i.next, 64
  br i1 %done, label %exit, label %body

exit:                                             ; preds = %body
  ret i64 %sum.next
}
