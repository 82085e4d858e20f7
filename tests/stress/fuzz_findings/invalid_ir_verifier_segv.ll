; ModuleID = 'fuzz-input'
source_filename = "structs.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.corral_type = type { i64, ptr, i32, i32, i32, i32, ptr, ptr, ptr }
%struct.corral_tlab = type { ptr, ptr, i64 }
%struct.pair = type { ptr addrspace(1), ptr addrspace(1) }
%struct.node = type { %struct.corral_header, ptr addrspace(1), i64 }
%struct.corral_header = type { ptr }

@node_type = internal constant %struct.corral_type { i64 -4601938305112712191, ptr @.str, i32 24, i32 0, i32 0, i32 1, ptr @node_refs, ptr null, ptr null }, align 8
@corral_thread_tlab = external thread_local(initialexec) global %struct.corral_tlab, align 8
@.str = private unnamed_addr constant [5 x i8] c"node\00", align 1
@node_refs = internal constant [1 x i32] [i32 8], align 4
@.str.1 = private unnamed_addr constant [17 x i8] c"corral_safepoint\00", section "llvm.metadata"
@.str.2 = private unnamed_addr constant [48 x i8] c"/work/main/build-stress/bin/../include/corral.h\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @corral_collect, ptr @.str.1, ptr @.str.2, i32 214, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @corral_alloc_slow, ptr @.str.1, ptr @.str.2, i32 211, ptr null }], section "llvm.metadata"

; Function Attrs: nounwind uwtable
define dso_local i64 @use(i64 noundef %v) #0 {
entry:
  %v.addr = alloca i64, align 8
  %p = alloca %struct.pair, align 8
  %s = alloca i64, align 8
  %i = alloca i32, align 4
  %q = alloca %struct.pair, align 8
  store i64 %v, ptr %v.addr, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 16, ptr %p) #6
  %0 = load i64, ptr %v.addr, align 8, !tbaa !5
  %1 = call i32 @sel(i32 poison, ptr addrspace(1) poison, ptr addrspace(1) null)
  %call = call { ptr addrspace(1), ptr addrspace(1) } @make(i64 noundef %0) #7
  %2 = getelementptr inbounds { ptr addrspace(1), ptr addrspace(1) }, ptr %p, i32 0, i32 0
  %3 = extractvalue { ptr addrspace(1), ptr addrspace(1) } %call, 0
  store ptr addrspace(1) %3, ptr %2, align 8
  %4 = getelementptr inbounds { ptr addrspace(1), ptr addrspace(1) }, ptr %p, i32 0, i32 1
  %5 = extractvalue { ptr addrspace(1), ptr addrspace(1) } %call, 1
  store ptr addrspace(1) %5, ptr %4, align 8
  call void @corral_collect() #7
  call void @llvm.lifetime.start.p0(i64 8, ptr %s) #6
  store i64 0, ptr %s, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #6
  store i32 0, ptr %i, align 4, !tbaa !9
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %6 = load i32, ptr %i, align 4, !tbaa !9
  %7 = call ptr addrspace(1) @corral_alloc_slow(ptr poison, i64 poison)
  %cmp = icmp slt i32 %6, 3
  br i1 %cmp, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #6
  br label %for.end

for.body:                                         ; preds = %for.cond
  %8 = call i32 @sel(i32 0, ptr addrspace(1) poison, ptr addrspace(1) %18)
  call void @llvm.lifetime.start.p0(i64 16, ptr %q) #6
  %9 = load i32, ptr %i, align 4, !tbaa !9
  %conv = sext i32 %9 to i64
  %call1 = call { ptr addrspace(1), ptr addrspace(1) } @make(i64 noundef %conv) #7
  %10 = getelementptr inbounds { ptr addrspace(1), ptr addrspace(1) }, ptr %q, i32 0, i32 0
  %11 = extractvalue { ptr addrspace(1), ptr addrspace(1) } %call1, 0
  store ptr addrspace(1) %11, ptr %10, align 8
  %12 = getelementptr inbounds { ptr addrspace(1), ptr addrspace(1) }, ptr %q, i32 0, i32 1
  %13 = extractvalue { ptr addrspace(1), ptr addrspace(1) } %call1, 1
  store ptr addrspace(1) %13, ptr %12, align 8
  %a = getelementptr inbounds %struct.pair, ptr %q, i32 0, i32 0
  %14 = load ptr addrspace(1), ptr %a, align 8, !tbaa !11
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %14, i32 0, i32 2
  %15 = load i64, ptr addrspace(1) %value, align 8, !tbaa !14
  %16 = load i64, ptr %s, align 8, !tbaa !5
  %add = add nsw i64 %16, %15
  store i64 %add, ptr %s, align 8, !tbaa !5
  call void @llvm.lifetime.end.p0(i64 16, ptr %q) #6
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %17 = load i32, ptr %i, align 4, !tbaa !9
  %inc = add nsw i32 %17, 1
  store i32 %inc, ptr %i, align 4, !tbaa !9
  br label %for.cond, !llvm.loop !17

for.end:                                          ; preds = %for.cond.cleanup
  %a2 = getelementptr inbounds %struct.pair, ptr %p, i32 0, i32 0
  %18 = load ptr addrspace(1), ptr %a2, align 8, !tbaa !11
  %value3 = getelementptr inbounds %struct.node, ptr addrspace(1) %18, i32 0, i32 2
  %19 = load i64, ptr addrspace(1) %value3, align 8, !tbaa !14
  %b = getelementptr inbounds %struct.pair, ptr %p, i32 0, i32 1
  %20 = load ptr addrspace(1), ptr %b, align 8, !tbaa !19
  %value4 = getelementptr inbounds %struct.node, ptr addrspace(1) %20, i32 0, i32 2
  %21 = load i64, ptr addrspace(1) %value4, align 8, !tbaa !14
  %add5 = add nsw i64 %19, %21
  %22 = load i64, ptr %s, align 8, !tbaa !5
  %add6 = add nsw i64 %add5, %22
  call void @llvm.lifetime.end.p0(i64 8, ptr %s) #6
  call void @llvm.lifetime.end.p0(i64 16, ptr %p) #6
  ret i64 %add6
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind uwtable
define internal { ptr addrspace(1), ptr addrspace(1) } @make(i64 noundef %v) #0 {
entry:
  %retval = alloca %struct.pair, align 8
  %v.addr = alloca i64, align 8
  store i64 %v, ptr %v.addr, align 8, !tbaa !5
  %call = call ptr addrspace(1) @corral_alloc(ptr noundef @node_type) #7
  %a = getelementptr inbounds %struct.pair, ptr %retval, i32 0, i32 0
  store ptr addrspace(1) %call, ptr %a, align 8, !tbaa !11
  %call1 = call ptr addrspace(1) @corral_alloc(ptr noundef @node_type) #7
  %b = getelementptr inbounds %struct.pair, ptr %retval, i32 0, i32 1
  store ptr addrspace(1) %call1, ptr %b, align 8, !tbaa !19
  %0 = load i64, ptr %v.addr, align 8, !tbaa !5
  %a2 = getelementptr inbounds %struct.pair, ptr %retval, i32 0, i32 0
  %1 = load ptr addrspace(1), ptr %a2, align 8, !tbaa !11
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %1, i32 0, i32 2
  store i64 %0, ptr addrspace(1) %value, align 8, !tbaa !14
  %2 = load i64, ptr %v.addr, align 8, !tbaa !5
  %sub = sub nsw i64 0, %2
  %b3 = getelementptr inbounds %struct.pair, ptr %retval, i32 0, i32 1
  %3 = load ptr addrspace(1), ptr %b3, align 8, !tbaa !19
  %value4 = getelementptr inbounds %struct.node, ptr addrspace(1) %3, i32 0, i32 2
  store i64 %sub, ptr addrspace(1) %value4, align 8, !tbaa !14
  %4 = load { ptr addrspace(1), ptr addrspace(1) }, ptr %retval, align 8
  ret { ptr addrspace(1), ptr addrspace(1) } %4
}

declare void @corral_collect() #2

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind uwt/able
define dso_local i32 @sel(i32 noundef %c, ptr addrspace(1) noundef %x, ptr addrspace(1) noundef %y) #0 {
entry:
  %c.addr = alloca i32, align 4
  %x.addr = alloca ptr addrspace(1), align 8
  %y.addr = alloca ptr addrspace(1), align 8
  %z = alloca ptr addrspace(1), align 8
  store i32 %c, ptr %c.addr, align 4, !tbaa !9
  store ptr addrspace(1) %x, ptr %x.addr, align 8, !tbaa !20
  store ptr addrspace(1) %y, ptr %y.addr, align 8, !tbaa !20
  call void @llvm.lifetime.start.p0(i64 8, ptr %z) #6
  %0 = load i32, ptr %c.addr, align 4, !tbaa !9
  %tobool = icmp ne i32 %0, 0
  br i1 %tobool, label %cond.true, label %cond.false

cond.true:                                        ; preds = %entry
  %1 = load ptr addrspace(1), ptr %x.addr, align 8, !tbaa !20
  br label %cond.end

cond.false:                                       ; preds = %entry
  %2 = load ptr addrspace(1), ptr %y.addr, align 8, !tbaa !20
  br label %cond.end

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond = phi ptr addrspace(1) [ %1, %cond.true ], [ %2, %cond.false ]
  store ptr addrspace(1) %cond, ptr %z, align 8, !tbaa !20
  call void @corral_collect() #7
  %3 = load ptr addrspace(1), ptr %z, align 8, !tbaa !20
  %tobool1 = icmp ne ptr addrspace(1) %3, null
  br i1 %tobool1, label %cond.true2, label %cond.false3

cond.true2:                                       ; preds = %cond.end
  %4 = load ptr addrspace(1), ptr %z, align 8, !tbaa !20
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %4, i32 0, i32 2
  %5 = load i64, ptr addrspace(1) %value, align 8, !tbaa !14
  %conv = trunc i64 %5 to i32
  br label %cond.end4

cond.false3:                                      ; preds = %cond.end
  br label %cond.end4

cond.end4:                                        ; preds = %cond.false3, %cond.true2
  %cond5 = phi i32 [ %conv, %cond.true2 ], [ 0, %cond.false3 ]
  call void @llvm.lifetime.end.p0(i64 8, ptr %z) #6
  ret i32 %cond5
}

; Function Attrs: alwaysinline nounwind uwtable
define internal ptr addrspace(1) @corral_alloc(ptr noundef %type) #3 {
entry:
  %retval = alloca ptr addrspace(1), align 8
  %type.addr = alloca ptr, align 8
  %bytes = alloca i64, align 8
  %tlab = alloca ptr, align 8
  %cursor = alloca ptr, align 8
  %cleanup.dest.slot = alloca i32, align 4
  store ptr %type, ptr %type.addr, align 8, !tbaa !20
  call void @llvm.lifetime.start.p0(i64 8, ptr %bytes) #6
  %0 = load ptr, ptr %type.addr, align 8, !tbaa !20
  %size = getelementptr inbounds %struct.corral_type, ptr %0, i32 0, i32 2
  %1 = load i32, ptr %size, align 8, !tbaa !21
  %conv = zext i32 %1 to i64
  %add = add i64 %conv, 7
  %and = and i64 %add, -8
  store i64 %and, ptr %bytes, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 8, ptr %tlab) #6
  %2 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %2, ptr %tlab, align 8, !tbaa !20
  call void @llvm.lifetime.start.p0(i64 8, ptr %cursor) #6
  %3 = load ptr, ptr %tlab, align 8, !tbaa !20
  %cursor1 = getelementptr inbounds %struct.corral_tlab, ptr %3, i32 0, i32 0
  %4 = load ptr, ptr %cursor1, align 8, !tbaa !23
  store ptr %4, ptr %cursor, align 8, !tbaa !20
  %5 = load ptr, ptr %type.addr, align 8, !tbaa !20
  %flags = getelementptr inbounds %struct.corral_type, ptr %5, i32 0, i32 4
  %6 = load i32, ptr %flags, align 8, !tbaa !25
  %and2 = and i32 %6, 12
  %tobool = icmp ne i32 %and2, 0
  br i1 %tobool, label %land.end, label %land.lhs.true

land.lhs.true:                                    ; preds = %entry
  %7 = load i64, ptr %bytes, align 8, !tbaa !5
  %8 = load ptr, ptr %tlab, align 8, !tbaa !20
  %max_inline = getelementptr inbounds %struct.corral_tlab, ptr %8, i32 0, i32 2
  %9 = load i64, ptr %max_inline, align 8, !tbaa !26
  %cmp = icmp ule i64 %7, %9
  br i1 %cmp, label %land.rhs, label %land.end

land.rhs:                                         ; preds = %land.lhs.true
  %10 = load i64, ptr %bytes, align 8, !tbaa !5
  %11 = load ptr, ptr %tlab, align 8, !tbaa !20
  %limit = getelementptr inbounds %struct.corral_tlab, ptr %11, i32 0, i32 1
  %12 = load ptr, ptr %limit, align 8, !tbaa !27
  %13 = load ptr, ptr %cursor, align 8, !tbaa !20
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
  %15 = load ptr, ptr %cursor, align 8, !tbaa !20
  %16 = load i64, ptr %bytes, align 8, !tbaa !5
  %add.ptr = getelementptr inbounds i8, ptr %15, i64 %16
  %17 = load ptr, ptr %tlab, align 8, !tbaa !20
  %cursor8 = getelementptr inbounds %struct.corral_tlab, ptr %17, i32 0, i32 0
  store ptr %add.ptr, ptr %cursor8, align 8, !tbaa !23
  %18 = load ptr, ptr %type.addr, align 8, !tbaa !20
  %19 = load ptr, ptr %cursor, align 8, !tbaa !20
  %20 = call ptr addrspace(1) @corral_alloc_slow(ptr poison, i64 poison)
  %type9 = getelementptr inbounds %struct.corral_header, ptr %19, i32 0, i32 0
  store ptr %18, ptr %type9, align 8, !tbaa !28
  %21 = addrspacecast ptr poison to ptr addrspace(1)
  store ptr addrspace(1) %21, ptr %retval, align 8
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

if.end:                                           ; preds = %land.end
  %22 = load ptr, ptr %type.addr, align 8, !tbaa !20
  %call = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %11, i64 noundef 0) #7
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

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare nonnull ptr @llvm.threadlocal.address.p0(ptr nonnull) #4

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(none)
declare i64 @llvm.expect.i64(i64, i64) #5

declare ptr addrspace(1) @corral_alloc_slow(ptr noundef, i64 noundef) #2

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { alwaysinline nounwind uwtable "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
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
!10 = !{!"int", !7, i64 0}
!11 = !{!12, !13, i64 0}
!12 = !{!"pair", !13, i64 0, !13, i64 8}
!13 = !{!"any pointer", !7, i64 0}
!14 = !{!15, !6, i64 16}
!15 = !{!"node", !16, i64 0, !13, i64 8, !6, i64 16}
!16 = !{!"corral_header", !13, i64 0}
!17 = distinct !{!17, !18}
!18 = !{!"llvm.loop.mustprogress"}
!19 = !{!12, !13, i64 8}
!20 = !{!13, !13, i64 0}
!21 = !{!22, !10, i64 16}
!22 = !{!"corral_type", !6, i64 0, !13, i64 8, !10, i64 16, !10, i64 20, !10, i64 24, !10, i64 28, !13, i64 32, !13, i64 40, !13, i64 48}
!23 = !{!24, !13, i64 0}
!24 = !{!"corral_tlab", !13, i64 0, !13, i64 8, !6, i64 16}
!25 = !{!22, !10, i64 24}
!26 = !{!24, !6, i64 16}
!27 = !{!24, !13, i64 8}
!28 = !{!16, !13, i64 0}
