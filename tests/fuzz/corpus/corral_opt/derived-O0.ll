; ModuleID = 'derived-O0.bc'
source_filename = "derived.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.corral_type = type { i64, ptr, i32, i32, i32, i32, ptr, ptr, ptr }
%struct.corral_tlab = type { ptr, ptr, i64 }
%struct.rec = type { %struct.corral_header, ptr addrspace(1), i64, i64 }
%struct.corral_header = type { ptr }
%struct.corral_array_header = type { %struct.corral_header, i64 }

@rec_type = internal constant %struct.corral_type { i64 -4601938305112712191, ptr @.str, i32 32, i32 0, i32 0, i32 1, ptr @refs, ptr null, ptr null }, align 8
@longs = internal constant %struct.corral_type { i64 -4601938305112712191, ptr @.str.1, i32 16, i32 8, i32 1, i32 0, ptr null, ptr null, ptr null }, align 8
@corral_thread_tlab = external thread_local(initialexec) global %struct.corral_tlab, align 8
@.str = private unnamed_addr constant [4 x i8] c"rec\00", align 1
@refs = internal constant [1 x i32] [i32 8], align 4
@.str.1 = private unnamed_addr constant [7 x i8] c"long[]\00", align 1
@.str.2 = private unnamed_addr constant [17 x i8] c"corral_safepoint\00", section "llvm.metadata"
@.str.3 = private unnamed_addr constant [48 x i8] c"/work/main/build-stress/bin/../include/corral.h\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @corral_collect, ptr @.str.2, ptr @.str.3, i32 214, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @corral_alloc_slow, ptr @.str.2, ptr @.str.3, i32 211, ptr null }], section "llvm.metadata"

; Function Attrs: noinline nounwind uwtable
define dso_local i64 @f(i64 noundef %n) #0 {
entry:
  %retval.i5 = alloca ptr addrspace(1), align 8
  %type.addr.i6 = alloca ptr, align 8
  %length.addr.i = alloca i64, align 8
  %tlab.i7 = alloca ptr, align 8
  %bytes.i8 = alloca i64, align 8
  %cursor.i9 = alloca ptr, align 8
  %retval.i = alloca ptr addrspace(1), align 8
  %type.addr.i = alloca ptr, align 8
  %bytes.i = alloca i64, align 8
  %tlab.i = alloca ptr, align 8
  %cursor.i = alloca ptr, align 8
  %n.addr = alloca i64, align 8
  %r = alloca ptr addrspace(1), align 8
  %p = alloca ptr addrspace(1), align 8
  %arr = alloca ptr addrspace(1), align 8
  %e = alloca ptr addrspace(1), align 8
  %i = alloca i64, align 8
  store i64 %n, ptr %n.addr, align 8
  store ptr @rec_type, ptr %type.addr.i, align 8
  %0 = load ptr, ptr %type.addr.i, align 8
  %size.i = getelementptr inbounds %struct.corral_type, ptr %0, i32 0, i32 2
  %1 = load i32, ptr %size.i, align 8
  %conv.i = zext i32 %1 to i64
  %add.i = add i64 %conv.i, 7
  %and.i = and i64 %add.i, -8
  store i64 %and.i, ptr %bytes.i, align 8
  %2 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %2, ptr %tlab.i, align 8
  %3 = load ptr, ptr %tlab.i, align 8
  %4 = load ptr, ptr %3, align 8
  store ptr %4, ptr %cursor.i, align 8
  %5 = load ptr, ptr %type.addr.i, align 8
  %flags.i = getelementptr inbounds %struct.corral_type, ptr %5, i32 0, i32 4
  %6 = load i32, ptr %flags.i, align 8
  %and2.i = and i32 %6, 12
  %tobool.i = icmp ne i32 %and2.i, 0
  br i1 %tobool.i, label %land.end.i, label %land.lhs.true.i

land.lhs.true.i:                                  ; preds = %entry
  %7 = load i64, ptr %bytes.i, align 8
  %8 = load ptr, ptr %tlab.i, align 8
  %max_inline.i = getelementptr inbounds %struct.corral_tlab, ptr %8, i32 0, i32 2
  %9 = load i64, ptr %max_inline.i, align 8
  %cmp.i = icmp ule i64 %7, %9
  br i1 %cmp.i, label %land.rhs.i, label %land.end.i

land.rhs.i:                                       ; preds = %land.lhs.true.i
  %10 = load i64, ptr %bytes.i, align 8
  %11 = load ptr, ptr %tlab.i, align 8
  %limit.i = getelementptr inbounds %struct.corral_tlab, ptr %11, i32 0, i32 1
  %12 = load ptr, ptr %limit.i, align 8
  %13 = load ptr, ptr %cursor.i, align 8
  %sub.ptr.lhs.cast.i = ptrtoint ptr %12 to i64
  %sub.ptr.rhs.cast.i = ptrtoint ptr %13 to i64
  %sub.ptr.sub.i = sub i64 %sub.ptr.lhs.cast.i, %sub.ptr.rhs.cast.i
  %cmp4.i = icmp ule i64 %10, %sub.ptr.sub.i
  br label %land.end.i

land.end.i:                                       ; preds = %land.rhs.i, %land.lhs.true.i, %entry
  %14 = phi i1 [ false, %land.lhs.true.i ], [ false, %entry ], [ %cmp4.i, %land.rhs.i ]
  %land.ext.i = zext i1 %14 to i32
  %conv6.i = sext i32 %land.ext.i to i64
  br i1 %14, label %if.then.i, label %if.end.i

if.then.i:                                        ; preds = %land.end.i
  %15 = load ptr, ptr %cursor.i, align 8
  %16 = load i64, ptr %bytes.i, align 8
  %add.ptr.i = getelementptr inbounds i8, ptr %15, i64 %16
  %17 = load ptr, ptr %tlab.i, align 8
  store ptr %add.ptr.i, ptr %17, align 8
  %18 = load ptr, ptr %type.addr.i, align 8
  %19 = load ptr, ptr %cursor.i, align 8
  store ptr %18, ptr %19, align 8
  %20 = load ptr, ptr %cursor.i, align 8
  %21 = addrspacecast ptr %20 to ptr addrspace(1)
  store ptr addrspace(1) %21, ptr %retval.i, align 8
  br label %corral_alloc.exit

if.end.i:                                         ; preds = %land.end.i
  %22 = load ptr, ptr %type.addr.i, align 8
  %call.i = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %22, i64 noundef 0) #3
  store ptr addrspace(1) %call.i, ptr %retval.i, align 8
  br label %corral_alloc.exit

corral_alloc.exit:                                ; preds = %if.then.i, %if.end.i
  %23 = load ptr addrspace(1), ptr %retval.i, align 8
  store ptr addrspace(1) %23, ptr %r, align 8
  %24 = load ptr addrspace(1), ptr %r, align 8
  %b = getelementptr inbounds %struct.rec, ptr addrspace(1) %24, i32 0, i32 3
  store ptr addrspace(1) %b, ptr %p, align 8
  %25 = load i64, ptr %n.addr, align 8
  store ptr @longs, ptr %type.addr.i6, align 8
  store i64 %25, ptr %length.addr.i, align 8
  %26 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %26, ptr %tlab.i7, align 8
  %27 = load i64, ptr %length.addr.i, align 8
  %cmp.i10 = icmp ule i64 %27, 16777216
  %conv.i11 = zext i1 %cmp.i10 to i32
  %conv1.i = sext i32 %conv.i11 to i64
  br i1 %cmp.i10, label %if.then.i14, label %if.end18.i

if.then.i14:                                      ; preds = %corral_alloc.exit
  %28 = load ptr, ptr %type.addr.i6, align 8
  %size.i15 = getelementptr inbounds %struct.corral_type, ptr %28, i32 0, i32 2
  %29 = load i32, ptr %size.i15, align 8
  %conv2.i = zext i32 %29 to i64
  %30 = load i64, ptr %length.addr.i, align 8
  %31 = load ptr, ptr %type.addr.i6, align 8
  %element_size.i = getelementptr inbounds %struct.corral_type, ptr %31, i32 0, i32 3
  %32 = load i32, ptr %element_size.i, align 4
  %conv3.i = zext i32 %32 to i64
  %mul.i = mul i64 %30, %conv3.i
  %add.i16 = add i64 %conv2.i, %mul.i
  %add4.i = add i64 %add.i16, 7
  %and.i17 = and i64 %add4.i, -8
  store i64 %and.i17, ptr %bytes.i8, align 8
  %33 = load ptr, ptr %tlab.i7, align 8
  %34 = load ptr, ptr %33, align 8
  store ptr %34, ptr %cursor.i9, align 8
  %35 = load ptr, ptr %type.addr.i6, align 8
  %flags.i18 = getelementptr inbounds %struct.corral_type, ptr %35, i32 0, i32 4
  %36 = load i32, ptr %flags.i18, align 8
  %and6.i = and i32 %36, 12
  %tobool7.i = icmp ne i32 %and6.i, 0
  br i1 %tobool7.i, label %land.end.i21, label %land.lhs.true.i19

land.lhs.true.i19:                                ; preds = %if.then.i14
  %37 = load i64, ptr %bytes.i8, align 8
  %38 = load ptr, ptr %tlab.i7, align 8
  %max_inline.i20 = getelementptr inbounds %struct.corral_tlab, ptr %38, i32 0, i32 2
  %39 = load i64, ptr %max_inline.i20, align 8
  %cmp8.i = icmp ule i64 %37, %39
  br i1 %cmp8.i, label %land.rhs.i25, label %land.end.i21

land.rhs.i25:                                     ; preds = %land.lhs.true.i19
  %40 = load i64, ptr %bytes.i8, align 8
  %41 = load ptr, ptr %tlab.i7, align 8
  %limit.i26 = getelementptr inbounds %struct.corral_tlab, ptr %41, i32 0, i32 1
  %42 = load ptr, ptr %limit.i26, align 8
  %43 = load ptr, ptr %cursor.i9, align 8
  %sub.ptr.lhs.cast.i27 = ptrtoint ptr %42 to i64
  %sub.ptr.rhs.cast.i28 = ptrtoint ptr %43 to i64
  %sub.ptr.sub.i29 = sub i64 %sub.ptr.lhs.cast.i27, %sub.ptr.rhs.cast.i28
  %cmp10.i = icmp ule i64 %40, %sub.ptr.sub.i29
  br label %land.end.i21

land.end.i21:                                     ; preds = %land.rhs.i25, %land.lhs.true.i19, %if.then.i14
  %44 = phi i1 [ false, %land.lhs.true.i19 ], [ false, %if.then.i14 ], [ %cmp10.i, %land.rhs.i25 ]
  %land.ext.i22 = zext i1 %44 to i32
  %conv12.i = sext i32 %land.ext.i22 to i64
  br i1 %44, label %if.then14.i, label %if.end.i23

if.then14.i:                                      ; preds = %land.end.i21
  %45 = load ptr, ptr %cursor.i9, align 8
  %46 = load i64, ptr %bytes.i8, align 8
  %add.ptr.i24 = getelementptr inbounds i8, ptr %45, i64 %46
  %47 = load ptr, ptr %tlab.i7, align 8
  store ptr %add.ptr.i24, ptr %47, align 8
  %48 = load ptr, ptr %type.addr.i6, align 8
  %49 = load ptr, ptr %cursor.i9, align 8
  store ptr %48, ptr %49, align 8
  %50 = load i64, ptr %length.addr.i, align 8
  %51 = load ptr, ptr %cursor.i9, align 8
  %length17.i = getelementptr inbounds %struct.corral_array_header, ptr %51, i32 0, i32 1
  store i64 %50, ptr %length17.i, align 8
  %52 = load ptr, ptr %cursor.i9, align 8
  %53 = addrspacecast ptr %52 to ptr addrspace(1)
  store ptr addrspace(1) %53, ptr %retval.i5, align 8
  br label %corral_alloc_array.exit

if.end.i23:                                       ; preds = %land.end.i21
  br label %if.end18.i

if.end18.i:                                       ; preds = %if.end.i23, %corral_alloc.exit
  %54 = load ptr, ptr %type.addr.i6, align 8
  %55 = load i64, ptr %length.addr.i, align 8
  %call.i13 = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %54, i64 noundef %55) #3
  store ptr addrspace(1) %call.i13, ptr %retval.i5, align 8
  br label %corral_alloc_array.exit

corral_alloc_array.exit:                          ; preds = %if.then14.i, %if.end18.i
  %56 = load ptr addrspace(1), ptr %retval.i5, align 8
  store ptr addrspace(1) %56, ptr %arr, align 8
  %57 = load ptr addrspace(1), ptr %arr, align 8
  %add.ptr = getelementptr inbounds i8, ptr addrspace(1) %57, i64 16
  store ptr addrspace(1) %add.ptr, ptr %e, align 8
  store i64 0, ptr %i, align 8
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %corral_alloc_array.exit
  %58 = load i64, ptr %i, align 8
  %59 = load i64, ptr %n.addr, align 8
  %cmp = icmp slt i64 %58, %59
  br i1 %cmp, label %for.body, label %for.end

for.body:                                         ; preds = %for.cond
  %60 = load i64, ptr %i, align 8
  %61 = load ptr addrspace(1), ptr %e, align 8
  %62 = load i64, ptr %i, align 8
  %arrayidx = getelementptr inbounds i64, ptr addrspace(1) %61, i64 %62
  store i64 %60, ptr addrspace(1) %arrayidx, align 8
  %63 = load i64, ptr %i, align 8
  %rem = srem i64 %63, 8
  %cmp2 = icmp eq i64 %rem, 0
  br i1 %cmp2, label %if.then, label %if.end

if.then:                                          ; preds = %for.body
  call void @corral_collect() #4
  br label %if.end

if.end:                                           ; preds = %if.then, %for.body
  br label %for.inc

for.inc:                                          ; preds = %if.end
  %64 = load i64, ptr %i, align 8
  %inc = add nsw i64 %64, 1
  store i64 %inc, ptr %i, align 8
  br label %for.cond, !llvm.loop !6

for.end:                                          ; preds = %for.cond
  %65 = load ptr addrspace(1), ptr %e, align 8
  %66 = load i64, ptr %n.addr, align 8
  %sub = sub nsw i64 %66, 1
  %arrayidx3 = getelementptr inbounds i64, ptr addrspace(1) %65, i64 %sub
  %67 = load i64, ptr addrspace(1) %arrayidx3, align 8
  %68 = load ptr addrspace(1), ptr %p, align 8
  store i64 %67, ptr addrspace(1) %68, align 8
  %69 = load ptr addrspace(1), ptr %r, align 8
  %b4 = getelementptr inbounds %struct.rec, ptr addrspace(1) %69, i32 0, i32 3
  %70 = load i64, ptr addrspace(1) %b4, align 8
  %71 = load ptr addrspace(1), ptr %p, align 8
  %72 = load i64, ptr addrspace(1) %71, align 8
  %add = add nsw i64 %70, %72
  ret i64 %add
}

declare void @corral_collect() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare nonnull ptr @llvm.threadlocal.address.p0(ptr nonnull) #2

declare ptr addrspace(1) @corral_alloc_slow(ptr noundef, i64 noundef) #1

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "frame-pointer"="all" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nobuiltin nounwind "no-builtins" }
attributes #4 = { nobuiltin "no-builtins" }

!llvm.module.flags = !{!0, !1, !2, !3, !4}
!llvm.ident = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.mustprogress"}
