; ModuleID = 'derived-O2.bc'
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

; Function Attrs: nounwind uwtable
define dso_local i64 @f(i64 noundef %n) #0 {
entry:
  %n.addr = alloca i64, align 8
  %r = alloca ptr addrspace(1), align 8
  %p = alloca ptr addrspace(1), align 8
  %arr = alloca ptr addrspace(1), align 8
  %e = alloca ptr addrspace(1), align 8
  %i = alloca i64, align 8
  store i64 %n, ptr %n.addr, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 8, ptr %r) #6
  %call = call ptr addrspace(1) @corral_alloc(ptr noundef @rec_type) #7
  store ptr addrspace(1) %call, ptr %r, align 8, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 8, ptr %p) #6
  %0 = load ptr addrspace(1), ptr %r, align 8, !tbaa !9
  %b = getelementptr inbounds %struct.rec, ptr addrspace(1) %0, i32 0, i32 3
  store ptr addrspace(1) %b, ptr %p, align 8, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 8, ptr %arr) #6
  %1 = load i64, ptr %n.addr, align 8, !tbaa !5
  %call1 = call ptr addrspace(1) @corral_alloc_array(ptr noundef @longs, i64 noundef %1) #7
  store ptr addrspace(1) %call1, ptr %arr, align 8, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 8, ptr %e) #6
  %2 = load ptr addrspace(1), ptr %arr, align 8, !tbaa !9
  %add.ptr = getelementptr inbounds i8, ptr addrspace(1) %2, i64 16
  store ptr addrspace(1) %add.ptr, ptr %e, align 8, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 8, ptr %i) #6
  store i64 0, ptr %i, align 8, !tbaa !5
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %3 = load i64, ptr %i, align 8, !tbaa !5
  %4 = load i64, ptr %n.addr, align 8, !tbaa !5
  %cmp = icmp slt i64 %3, %4
  br i1 %cmp, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 8, ptr %i) #6
  br label %for.end

for.body:                                         ; preds = %for.cond
  %5 = load i64, ptr %i, align 8, !tbaa !5
  %6 = load ptr addrspace(1), ptr %e, align 8, !tbaa !9
  %7 = load i64, ptr %i, align 8, !tbaa !5
  %arrayidx = getelementptr inbounds i64, ptr addrspace(1) %6, i64 %7
  store i64 %5, ptr addrspace(1) %arrayidx, align 8, !tbaa !5
  %8 = load i64, ptr %i, align 8, !tbaa !5
  %rem = srem i64 %8, 8
  %cmp2 = icmp eq i64 %rem, 0
  br i1 %cmp2, label %if.then, label %if.end

if.then:                                          ; preds = %for.body
  call void @corral_collect() #7
  br label %if.end

if.end:                                           ; preds = %if.then, %for.body
  br label %for.inc

for.inc:                                          ; preds = %if.end
  %9 = load i64, ptr %i, align 8, !tbaa !5
  %inc = add nsw i64 %9, 1
  store i64 %inc, ptr %i, align 8, !tbaa !5
  br label %for.cond, !llvm.loop !11

for.end:                                          ; preds = %for.cond.cleanup
  %10 = load ptr addrspace(1), ptr %e, align 8, !tbaa !9
  %11 = load i64, ptr %n.addr, align 8, !tbaa !5
  %sub = sub nsw i64 %11, 1
  %arrayidx3 = getelementptr inbounds i64, ptr addrspace(1) %10, i64 %sub
  %12 = load i64, ptr addrspace(1) %arrayidx3, align 8, !tbaa !5
  %13 = load ptr addrspace(1), ptr %p, align 8, !tbaa !9
  store i64 %12, ptr addrspace(1) %13, align 8, !tbaa !5
  %14 = load ptr addrspace(1), ptr %r, align 8, !tbaa !9
  %b4 = getelementptr inbounds %struct.rec, ptr addrspace(1) %14, i32 0, i32 3
  %15 = load i64, ptr addrspace(1) %b4, align 8, !tbaa !13
  %16 = load ptr addrspace(1), ptr %p, align 8, !tbaa !9
  %17 = load i64, ptr addrspace(1) %16, align 8, !tbaa !5
  %add = add nsw i64 %15, %17
  call void @llvm.lifetime.end.p0(i64 8, ptr %e) #6
  call void @llvm.lifetime.end.p0(i64 8, ptr %arr) #6
  call void @llvm.lifetime.end.p0(i64 8, ptr %p) #6
  call void @llvm.lifetime.end.p0(i64 8, ptr %r) #6
  ret i64 %add
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline nounwind uwtable
define internal ptr addrspace(1) @corral_alloc(ptr noundef %type) #2 {
entry:
  %retval = alloca ptr addrspace(1), align 8
  %type.addr = alloca ptr, align 8
  %bytes = alloca i64, align 8
  %tlab = alloca ptr, align 8
  %cursor = alloca ptr, align 8
  %cleanup.dest.slot = alloca i32, align 4
  store ptr %type, ptr %type.addr, align 8, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 8, ptr %bytes) #6
  %0 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %size = getelementptr inbounds %struct.corral_type, ptr %0, i32 0, i32 2
  %1 = load i32, ptr %size, align 8, !tbaa !16
  %conv = zext i32 %1 to i64
  %add = add i64 %conv, 7
  %and = and i64 %add, -8
  store i64 %and, ptr %bytes, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 8, ptr %tlab) #6
  %2 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %2, ptr %tlab, align 8, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 8, ptr %cursor) #6
  %3 = load ptr, ptr %tlab, align 8, !tbaa !9
  %cursor1 = getelementptr inbounds %struct.corral_tlab, ptr %3, i32 0, i32 0
  %4 = load ptr, ptr %cursor1, align 8, !tbaa !19
  store ptr %4, ptr %cursor, align 8, !tbaa !9
  %5 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %flags = getelementptr inbounds %struct.corral_type, ptr %5, i32 0, i32 4
  %6 = load i32, ptr %flags, align 8, !tbaa !21
  %and2 = and i32 %6, 12
  %tobool = icmp ne i32 %and2, 0
  br i1 %tobool, label %land.end, label %land.lhs.true

land.lhs.true:                                    ; preds = %entry
  %7 = load i64, ptr %bytes, align 8, !tbaa !5
  %8 = load ptr, ptr %tlab, align 8, !tbaa !9
  %max_inline = getelementptr inbounds %struct.corral_tlab, ptr %8, i32 0, i32 2
  %9 = load i64, ptr %max_inline, align 8, !tbaa !22
  %cmp = icmp ule i64 %7, %9
  br i1 %cmp, label %land.rhs, label %land.end

land.rhs:                                         ; preds = %land.lhs.true
  %10 = load i64, ptr %bytes, align 8, !tbaa !5
  %11 = load ptr, ptr %tlab, align 8, !tbaa !9
  %limit = getelementptr inbounds %struct.corral_tlab, ptr %11, i32 0, i32 1
  %12 = load ptr, ptr %limit, align 8, !tbaa !23
  %13 = load ptr, ptr %cursor, align 8, !tbaa !9
  %sub.ptr.lhs.cast = ptrtoint ptr %12 to i64
  %sub.ptr.rhs.cast = ptrtoint ptr %13 to i64
  %sub.ptr.sub = sub i64 %sub.ptr.lhs.cast, %sub.ptr.rhs.cast
  %cmp4 = icmp ule i64 %10, %sub.ptr.sub
  br label %land.end

land.end:                                         ; preds = %land.rhs, %land.lhs.true, %entry
  %14 = phi i1 [ false, %land.lhs.true ], [ false, %entry ], [ %cmp4, %land.rhs ]
  %land.ext = zext i1 %14 to i32
  %conv6 = sext i32 %land.ext to i64
  %expval = call i64 @llvm.expect.i64(i64 %conv6, i64 1)
  %tobool7 = icmp ne i64 %expval, 0
  br i1 %tobool7, label %if.then, label %if.end

if.then:                                          ; preds = %land.end
  %15 = load ptr, ptr %cursor, align 8, !tbaa !9
  %16 = load i64, ptr %bytes, align 8, !tbaa !5
  %add.ptr = getelementptr inbounds i8, ptr %15, i64 %16
  %17 = load ptr, ptr %tlab, align 8, !tbaa !9
  %cursor8 = getelementptr inbounds %struct.corral_tlab, ptr %17, i32 0, i32 0
  store ptr %add.ptr, ptr %cursor8, align 8, !tbaa !19
  %18 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %19 = load ptr, ptr %cursor, align 8, !tbaa !9
  %type9 = getelementptr inbounds %struct.corral_header, ptr %19, i32 0, i32 0
  store ptr %18, ptr %type9, align 8, !tbaa !24
  %20 = load ptr, ptr %cursor, align 8, !tbaa !9
  %21 = addrspacecast ptr %20 to ptr addrspace(1)
  store ptr addrspace(1) %21, ptr %retval, align 8
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

if.end:                                           ; preds = %land.end
  %22 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %call = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %22, i64 noundef 0) #7
  store ptr addrspace(1) %call, ptr %retval, align 8
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

cleanup:                                          ; preds = %if.end, %if.then
  call void @llvm.lifetime.end.p0(i64 8, ptr %cursor) #6
  call void @llvm.lifetime.end.p0(i64 8, ptr %tlab) #6
  call void @llvm.lifetime.end.p0(i64 8, ptr %bytes) #6
  %23 = load ptr addrspace(1), ptr %retval, align 8
  ret ptr addrspace(1) %23
}

; Function Attrs: alwaysinline nounwind uwtable
define internal ptr addrspace(1) @corral_alloc_array(ptr noundef %type, i64 noundef %length) #2 {
entry:
  %retval = alloca ptr addrspace(1), align 8
  %type.addr = alloca ptr, align 8
  %length.addr = alloca i64, align 8
  %tlab = alloca ptr, align 8
  %bytes = alloca i64, align 8
  %cursor = alloca ptr, align 8
  %cleanup.dest.slot = alloca i32, align 4
  store ptr %type, ptr %type.addr, align 8, !tbaa !9
  store i64 %length, ptr %length.addr, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 8, ptr %tlab) #6
  %0 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %0, ptr %tlab, align 8, !tbaa !9
  %1 = load i64, ptr %length.addr, align 8, !tbaa !5
  %cmp = icmp ule i64 %1, 16777216
  %conv = zext i1 %cmp to i32
  %conv1 = sext i32 %conv to i64
  %expval = call i64 @llvm.expect.i64(i64 %conv1, i64 1)
  %tobool = icmp ne i64 %expval, 0
  br i1 %tobool, label %if.then, label %if.end20

if.then:                                          ; preds = %entry
  call void @llvm.lifetime.start.p0(i64 8, ptr %bytes) #6
  %2 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %size = getelementptr inbounds %struct.corral_type, ptr %2, i32 0, i32 2
  %3 = load i32, ptr %size, align 8, !tbaa !16
  %conv2 = zext i32 %3 to i64
  %4 = load i64, ptr %length.addr, align 8, !tbaa !5
  %5 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %element_size = getelementptr inbounds %struct.corral_type, ptr %5, i32 0, i32 3
  %6 = load i32, ptr %element_size, align 4, !tbaa !25
  %conv3 = zext i32 %6 to i64
  %mul = mul i64 %4, %conv3
  %add = add i64 %conv2, %mul
  %add4 = add i64 %add, 7
  %and = and i64 %add4, -8
  store i64 %and, ptr %bytes, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 8, ptr %cursor) #6
  %7 = load ptr, ptr %tlab, align 8, !tbaa !9
  %cursor5 = getelementptr inbounds %struct.corral_tlab, ptr %7, i32 0, i32 0
  %8 = load ptr, ptr %cursor5, align 8, !tbaa !19
  store ptr %8, ptr %cursor, align 8, !tbaa !9
  %9 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %flags = getelementptr inbounds %struct.corral_type, ptr %9, i32 0, i32 4
  %10 = load i32, ptr %flags, align 8, !tbaa !21
  %and6 = and i32 %10, 12
  %tobool7 = icmp ne i32 %and6, 0
  br i1 %tobool7, label %land.end, label %land.lhs.true

land.lhs.true:                                    ; preds = %if.then
  %11 = load i64, ptr %bytes, align 8, !tbaa !5
  %12 = load ptr, ptr %tlab, align 8, !tbaa !9
  %max_inline = getelementptr inbounds %struct.corral_tlab, ptr %12, i32 0, i32 2
  %13 = load i64, ptr %max_inline, align 8, !tbaa !22
  %cmp8 = icmp ule i64 %11, %13
  br i1 %cmp8, label %land.rhs, label %land.end

land.rhs:                                         ; preds = %land.lhs.true
  %14 = load i64, ptr %bytes, align 8, !tbaa !5
  %15 = load ptr, ptr %tlab, align 8, !tbaa !9
  %limit = getelementptr inbounds %struct.corral_tlab, ptr %15, i32 0, i32 1
  %16 = load ptr, ptr %limit, align 8, !tbaa !23
  %17 = load ptr, ptr %cursor, align 8, !tbaa !9
  %sub.ptr.lhs.cast = ptrtoint ptr %16 to i64
  %sub.ptr.rhs.cast = ptrtoint ptr %17 to i64
  %sub.ptr.sub = sub i64 %sub.ptr.lhs.cast, %sub.ptr.rhs.cast
  %cmp10 = icmp ule i64 %14, %sub.ptr.sub
  br label %land.end

land.end:                                         ; preds = %land.rhs, %land.lhs.true, %if.then
  %18 = phi i1 [ false, %land.lhs.true ], [ false, %if.then ], [ %cmp10, %land.rhs ]
  %land.ext = zext i1 %18 to i32
  %conv12 = sext i32 %land.ext to i64
  %expval13 = call i64 @llvm.expect.i64(i64 %conv12, i64 1)
  %tobool14 = icmp ne i64 %expval13, 0
  br i1 %tobool14, label %if.then15, label %if.end

if.then15:                                        ; preds = %land.end
  %19 = load ptr, ptr %cursor, align 8, !tbaa !9
  %20 = load i64, ptr %bytes, align 8, !tbaa !5
  %add.ptr = getelementptr inbounds i8, ptr %19, i64 %20
  %21 = load ptr, ptr %tlab, align 8, !tbaa !9
  %cursor16 = getelementptr inbounds %struct.corral_tlab, ptr %21, i32 0, i32 0
  store ptr %add.ptr, ptr %cursor16, align 8, !tbaa !19
  %22 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %23 = load ptr, ptr %cursor, align 8, !tbaa !9
  %header = getelementptr inbounds %struct.corral_array_header, ptr %23, i32 0, i32 0
  %type17 = getelementptr inbounds %struct.corral_header, ptr %header, i32 0, i32 0
  store ptr %22, ptr %type17, align 8, !tbaa !26
  %24 = load i64, ptr %length.addr, align 8, !tbaa !5
  %25 = load ptr, ptr %cursor, align 8, !tbaa !9
  %length18 = getelementptr inbounds %struct.corral_array_header, ptr %25, i32 0, i32 1
  store i64 %24, ptr %length18, align 8, !tbaa !28
  %26 = load ptr, ptr %cursor, align 8, !tbaa !9
  %27 = addrspacecast ptr %26 to ptr addrspace(1)
  store ptr addrspace(1) %27, ptr %retval, align 8
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

if.end:                                           ; preds = %land.end
  store i32 0, ptr %cleanup.dest.slot, align 4
  br label %cleanup

cleanup:                                          ; preds = %if.end, %if.then15
  call void @llvm.lifetime.end.p0(i64 8, ptr %cursor) #6
  call void @llvm.lifetime.end.p0(i64 8, ptr %bytes) #6
  %cleanup.dest = load i32, ptr %cleanup.dest.slot, align 4
  switch i32 %cleanup.dest, label %cleanup21 [
    i32 0, label %cleanup.cont
  ]

cleanup.cont:                                     ; preds = %cleanup
  br label %if.end20

if.end20:                                         ; preds = %cleanup.cont, %entry
  %28 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %29 = load i64, ptr %length.addr, align 8, !tbaa !5
  %call = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %28, i64 noundef %29) #7
  store ptr addrspace(1) %call, ptr %retval, align 8
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup21

cleanup21:                                        ; preds = %if.end20, %cleanup
  call void @llvm.lifetime.end.p0(i64 8, ptr %tlab) #6
  %30 = load ptr addrspace(1), ptr %retval, align 8
  ret ptr addrspace(1) %30
}

declare void @corral_collect() #3

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare nonnull ptr @llvm.threadlocal.address.p0(ptr nonnull) #4

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(none)
declare i64 @llvm.expect.i64(i64, i64) #5

declare ptr addrspace(1) @corral_alloc_slow(ptr noundef, i64 noundef) #3

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline nounwind uwtable "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { nocallback nofree nosync nounwind willreturn memory(none) }
attributes #6 = { nounwind }
attributes #7 = { nobuiltin "no-builtins" }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"long", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"any pointer", !7, i64 0}
!11 = distinct !{!11, !12}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!14, !6, i64 24}
!14 = !{!"rec", !15, i64 0, !10, i64 8, !6, i64 16, !6, i64 24}
!15 = !{!"corral_header", !10, i64 0}
!16 = !{!17, !18, i64 16}
!17 = !{!"corral_type", !6, i64 0, !10, i64 8, !18, i64 16, !18, i64 20, !18, i64 24, !18, i64 28, !10, i64 32, !10, i64 40, !10, i64 48}
!18 = !{!"int", !7, i64 0}
!19 = !{!20, !10, i64 0}
!20 = !{!"corral_tlab", !10, i64 0, !10, i64 8, !6, i64 16}
!21 = !{!17, !18, i64 24}
!22 = !{!20, !6, i64 16}
!23 = !{!20, !10, i64 8}
!24 = !{!15, !10, i64 0}
!25 = !{!17, !18, i64 20}
!26 = !{!27, !10, i64 0}
!27 = !{!"corral_array_header", !15, i64 0, !6, i64 8}
!28 = !{!27, !6, i64 8}
