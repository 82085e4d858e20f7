; ModuleID = 'unmanaged-O2.bc'
source_filename = "unmanaged.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.corral_type = type { i64, ptr, i32, i32, i32, i32, ptr, ptr, ptr }
%union.pthread_mutex_t = type { %struct.__pthread_mutex_s }
%struct.__pthread_mutex_s = type { i32, i32, i32, i32, i32, i16, i16, %struct.__pthread_internal_list }
%struct.__pthread_internal_list = type { ptr, ptr }
%struct.corral_tlab = type { ptr, ptr, i64 }
%struct.node = type { %struct.corral_header, ptr addrspace(1), i64 }
%struct.corral_header = type { ptr }

@node_type = internal constant %struct.corral_type { i64 -4601938305112712191, ptr @.str.2, i32 24, i32 0, i32 0, i32 1, ptr @node_refs, ptr null, ptr null }, align 8
@lock = internal global %union.pthread_mutex_t zeroinitializer, align 8
@.str = private unnamed_addr constant [8 x i8] c"%ld %s\0A\00", align 1
@.str.1 = private unnamed_addr constant [2 x i8] c"x\00", align 1
@corral_thread_tlab = external thread_local(initialexec) global %struct.corral_tlab, align 8
@.str.2 = private unnamed_addr constant [5 x i8] c"node\00", align 1
@node_refs = internal constant [1 x i32] [i32 8], align 4
@.str.3 = private unnamed_addr constant [12 x i8] c"corral_leaf\00", section "llvm.metadata"
@.str.4 = private unnamed_addr constant [12 x i8] c"unmanaged.c\00", section "llvm.metadata"
@.str.5 = private unnamed_addr constant [17 x i8] c"corral_safepoint\00", section "llvm.metadata"
@.str.6 = private unnamed_addr constant [48 x i8] c"/work/main/build-stress/bin/../include/corral.h\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @fast_hash, ptr @.str.3, ptr @.str.4, i32 9, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @corral_alloc_slow, ptr @.str.5, ptr @.str.6, i32 211, ptr null }], section "llvm.metadata"

; Function Attrs: nounwind uwtable
define dso_local i64 @g(i64 noundef %v) #0 {
entry:
  %v.addr = alloca i64, align 8
  %n = alloca ptr addrspace(1), align 8
  store i64 %v, ptr %v.addr, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 8, ptr %n) #7
  %call = call ptr addrspace(1) @corral_alloc(ptr noundef @node_type) #8
  store ptr addrspace(1) %call, ptr %n, align 8, !tbaa !9
  %0 = load i64, ptr %v.addr, align 8, !tbaa !5
  %call1 = call i64 @fast_hash(i64 noundef %0) #8
  %1 = load ptr addrspace(1), ptr %n, align 8, !tbaa !9
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %1, i32 0, i32 2
  store i64 %call1, ptr addrspace(1) %value, align 8, !tbaa !11
  %call2 = call i32 @pthread_mutex_lock(ptr noundef @lock) #9
  %2 = load ptr addrspace(1), ptr %n, align 8, !tbaa !9
  %value3 = getelementptr inbounds %struct.node, ptr addrspace(1) %2, i32 0, i32 2
  %3 = load i64, ptr addrspace(1) %value3, align 8, !tbaa !11
  %call4 = call i32 (ptr, ...) @printf(ptr noundef @.str, i64 noundef %3, ptr noundef @.str.1) #8
  %call5 = call i32 @pthread_mutex_unlock(ptr noundef @lock) #9
  %4 = load ptr addrspace(1), ptr %n, align 8, !tbaa !9
  %value6 = getelementptr inbounds %struct.node, ptr addrspace(1) %4, i32 0, i32 2
  %5 = load i64, ptr addrspace(1) %value6, align 8, !tbaa !11
  call void @llvm.lifetime.end.p0(i64 8, ptr %n) #7
  ret i64 %5
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
  call void @llvm.lifetime.start.p0(i64 8, ptr %bytes) #7
  %0 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %size = getelementptr inbounds %struct.corral_type, ptr %0, i32 0, i32 2
  %1 = load i32, ptr %size, align 8, !tbaa !14
  %conv = zext i32 %1 to i64
  %add = add i64 %conv, 7
  %and = and i64 %add, -8
  store i64 %and, ptr %bytes, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 8, ptr %tlab) #7
  %2 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %2, ptr %tlab, align 8, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 8, ptr %cursor) #7
  %3 = load ptr, ptr %tlab, align 8, !tbaa !9
  %cursor1 = getelementptr inbounds %struct.corral_tlab, ptr %3, i32 0, i32 0
  %4 = load ptr, ptr %cursor1, align 8, !tbaa !17
  store ptr %4, ptr %cursor, align 8, !tbaa !9
  %5 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %flags = getelementptr inbounds %struct.corral_type, ptr %5, i32 0, i32 4
  %6 = load i32, ptr %flags, align 8, !tbaa !19
  %and2 = and i32 %6, 12
  %tobool = icmp ne i32 %and2, 0
  br i1 %tobool, label %land.end, label %land.lhs.true

land.lhs.true:                                    ; preds = %entry
  %7 = load i64, ptr %bytes, align 8, !tbaa !5
  %8 = load ptr, ptr %tlab, align 8, !tbaa !9
  %max_inline = getelementptr inbounds %struct.corral_tlab, ptr %8, i32 0, i32 2
  %9 = load i64, ptr %max_inline, align 8, !tbaa !20
  %cmp = icmp ule i64 %7, %9
  br i1 %cmp, label %land.rhs, label %land.end

land.rhs:                                         ; preds = %land.lhs.true
  %10 = load i64, ptr %bytes, align 8, !tbaa !5
  %11 = load ptr, ptr %tlab, align 8, !tbaa !9
  %limit = getelementptr inbounds %struct.corral_tlab, ptr %11, i32 0, i32 1
  %12 = load ptr, ptr %limit, align 8, !tbaa !21
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
  store ptr %add.ptr, ptr %cursor8, align 8, !tbaa !17
  %18 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %19 = load ptr, ptr %cursor, align 8, !tbaa !9
  %type9 = getelementptr inbounds %struct.corral_header, ptr %19, i32 0, i32 0
  store ptr %18, ptr %type9, align 8, !tbaa !22
  %20 = load ptr, ptr %cursor, align 8, !tbaa !9
  %21 = addrspacecast ptr %20 to ptr addrspace(1)
  store ptr addrspace(1) %21, ptr %retval, align 8
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

if.end:                                           ; preds = %land.end
  %22 = load ptr, ptr %type.addr, align 8, !tbaa !9
  %call = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %22, i64 noundef 0) #8
  store ptr addrspace(1) %call, ptr %retval, align 8
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

cleanup:                                          ; preds = %if.end, %if.then
  call void @llvm.lifetime.end.p0(i64 8, ptr %cursor) #7
  call void @llvm.lifetime.end.p0(i64 8, ptr %tlab) #7
  call void @llvm.lifetime.end.p0(i64 8, ptr %bytes) #7
  %23 = load ptr addrspace(1), ptr %retval, align 8
  ret ptr addrspace(1) %23
}

declare i64 @fast_hash(i64 noundef) #3

; Function Attrs: nounwind
declare i32 @pthread_mutex_lock(ptr noundef) #4

declare i32 @printf(ptr noundef, ...) #3

; Function Attrs: nounwind
declare i32 @pthread_mutex_unlock(ptr noundef) #4

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare nonnull ptr @llvm.threadlocal.address.p0(ptr nonnull) #5

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(none)
declare i64 @llvm.expect.i64(i64, i64) #6

declare ptr addrspace(1) @corral_alloc_slow(ptr noundef, i64 noundef) #3

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline nounwind uwtable "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #6 = { nocallback nofree nosync nounwind willreturn memory(none) }
attributes #7 = { nounwind }
attributes #8 = { nobuiltin "no-builtins" }
attributes #9 = { nobuiltin nounwind "no-builtins" }

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
!11 = !{!12, !6, i64 16}
!12 = !{!"node", !13, i64 0, !10, i64 8, !6, i64 16}
!13 = !{!"corral_header", !10, i64 0}
!14 = !{!15, !16, i64 16}
!15 = !{!"corral_type", !6, i64 0, !10, i64 8, !16, i64 16, !16, i64 20, !16, i64 24, !16, i64 28, !10, i64 32, !10, i64 40, !10, i64 48}
!16 = !{!"int", !7, i64 0}
!17 = !{!18, !10, i64 0}
!18 = !{!"corral_tlab", !10, i64 0, !10, i64 8, !6, i64 16}
!19 = !{!15, !16, i64 24}
!20 = !{!18, !6, i64 16}
!21 = !{!18, !10, i64 8}
!22 = !{!13, !10, i64 0}
