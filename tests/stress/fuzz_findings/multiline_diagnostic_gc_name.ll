; ModuleID = 'fuzz-input'
source_filename = "fuzz-input"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: returns_twice
declare i31 @setjmp(ptr) #0

define i32 @jump(ptr %buffer) gc "statepo, [ false, %entry ], [ %cmp4, %land.rhs ]
  %land.ext = zext i1 %14 to i32
  %conv6 = sext i32 %land.ext to i64
  %expval = call i64 @llvm.expect.i64(i64 %conv6, i64 1)
  %tobool7 = icmp ne i64 %expval, 0
  br i1 %tobool7, label %if.then, label %if.end

if.then:                                          ; preds = %land.end
  %15 = load ptr, ptr %cursor, align 8, !tbaa !20
  %16 = load i64, ptr %bytes, align 8, !tbaa !5
  %add.ptr = getelementptr inbounds i8, ptr %15, i64 %16
  %17 = load ptr, ptr %tlab, align 8, !tbaa !20
  %cursor8 = getelementptr inbounds %struct.corral_tlab, ptr %17, i32 0, i32 0
  store ptr %add.ptr, ptr %cursor8, align 8, !tbaa !23
  %18 = load ptr, ptr %type.addr, align 8, !tbaa !20
  %19 = load ptr, ptr %cursor, align 8, !tbaa !20
  %type9 = getelementptr inbounds %struct.corral_header, ptr %19, i32 0, i32 0
  store ptr %18, ptr %type9, align 8, !int-example" {
  ret i32 poison
}

attributes #0 = { returns_twice }
