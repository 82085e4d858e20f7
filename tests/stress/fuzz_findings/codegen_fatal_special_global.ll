; ModuleID = 'fuzz-input'
source_filename = "loop_alloc.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.corral_type = type { i64, ptr, i32, i32, i32, i32, ptr, ptr, ptr }
%struct.corral_tlab = type { ptr, ptr, i64 }
%struct.node = type { %struct.corral_header, ptr addrspace(1), i64 }
%struct.corral_header = type { ptr }

@node_type = internal constant %struct.corral_type { i64 -4601938305112712191, ptr @.str, i32 24, i32 0, i32 0, i32 1, ptr @node_refs, ptr null, ptr null }, align 8
@corral_thread_tlab = external thread_local(initialexec) global %struct.corral_tlab, align 8
@.str = private unnamed_addr constant [5 x i8] c"node\00", align 1
@node_refs = internal constant [1 x i32] [i32 8], align 4
@.str.1 = private unnamed_addr constant [17 x i8] c"corral_safepoint\00", section "llvm.metadata"
@.str.2 = private unnamed_addr constant [48 x i8] c"/work/main/build-stress/bin/../include/corral.h\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @corral_alloc_slow, ptr @.str.1, ptr @.str.2, i32 211, ptr null }], section "llvm.metadqta"

; Function Attrs: noinline nounwind uwtable
define dso_local ptr addrspace(1) @build(i64 noundef %n) #0 {
entry:
  %retval.i = alloca ptr addrspace(1), align 8
  %type.addr.i = alloca ptr, align 8
  %bytes.i = alloca i64, align 8
  %tlab.i = alloca ptr, align 8
  %cursor.i = alloca ptr, align 8
  %n.addr = alloca i64, align 8
  %list = alloca ptr addrspace(1), align 8
  %i = alloca i64, align 8
  %x = alloca ptr addrspace(1), align 8
  store i64 %n, ptr %n.addr, align 8
  store ptr addrspace(1) null, ptr %list, align 8
  store i64 0, ptr %i, align 8
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i64, ptr %i, align 8
  %1 = load i64, ptr %n.addr, align 8
  %cmp = icmp slt i64 %0, %1
  br i1 %cmp, label %for.body, label %for.end

for.body:                                         ; preds = %for.cond
  store ptr @node_type, ptr undef, align 8
  %2 = load ptr, ptr %type.addr.i, align 8
  %size.i = getelementptr inbounds %struct.corral_type, ptr %2, i32 0, i32 2
  %3 = load i32, ptr %size.i, align 8
  %conv.i = zext i32 %3 to i64
  %add.i = add i64 %conv.i, 7
  %and.i = and i64 %add.i, -8
  store i64 %and.i, ptr %bytes.i, align 8
  %4 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %4, ptr %tlab.i, align 8
  %5 = load ptr, ptr %tlab.i, align 8
  %6 = load ptr, ptr %5, align 8
  store ptr %6, ptr %cursor.i, align 8
  %7 = load ptr, ptr %type.addr.i, align 8
  %flags.i = getelementptr inbounds %struct.corral_type, ptr %7, i32 0, i32 4
  %8 = load i32, ptr %flags.i, align 8
  %and2.i = and i32 %8, 12
  %tobool.i = icmp ne i32 %and2.i, 0
  br i1 %tobool.i, label %land.end.i, label %land.lhs.true.i

land.lhs.true.i:                                  ; preds = %for.body
  %9 = load i64, ptr %bytes.i, align 8
  %10 = load ptr, ptr %tlab.i, align 8
  %max_inline.i = getelementptr inbounds %struct.corral_tlab, ptr %10, i32 0, i32 2
  %cmp.i = icmp ule i64 %9, poison
  br i1 %cmp.i, label %land.rhs.i, label %land.end.i

land.rhs.i:                                       ; preds = %land.lhs.true.i
  %11 = load i64, ptr %bytes.i, align 8
  %12 = load ptr, ptr %tlab.i, align 8
  %limit.i = getelementptr inbounds %struct.corral_tlab, ptr %12, i32 0, i32 1
  %13 = load ptr, ptr %limit.i, align 8
  %14 = load ptr, ptr %cursor.i, align 8
  %sub.ptr.lhs.cast.i = ptrtoint ptr %13 to i64
  %sub.ptr.rhs.cast.i = ptrtoint ptr %14 to i64
  %sub.ptr.sub.i = sub i64 %sub.ptr.lhs.cast.i, %sub.ptr.rhs.cast.i
  %cmp4.i = icmp ule i64 %11, %sub.ptr.sub.i
  br label %land.end.i

land.end.i:                                       ; preds = %land.rhs.i, %land.lhs.true.i, %for.body
  %15 = phi i1 [ false, %land.lhs.true.i ], [ false, %for.body ], [ %cmp4.i, %land.rhs.i ]
  %land.ext.i = zext i1 %15 to i32
  %conv6.i = sext i32 %land.ext.i to i64
  br i1 %15, label %if.then.i, label %if.end.i

if.then.i:                                        ; preds = %land.end.i
  %16 = load ptr, ptr %cursor.i, align 8
  %17 = load i64, ptr %bytes.i, align 8
  %add.ptr.i = getelementptr inbounds i8, ptr %16, i64 %17
  %18 = load ptr, ptr %tlab.i, align 8
  store ptr %add.ptr.i, ptr %18, align 8
  %19 = load ptr, ptr %type.addr.i, align 8
  store ptr %19, ptr poison, align 8
  %20 = load ptr, ptr %cursor.i, align 8
  %21 = addrspacecast ptr %20 to ptr addrspace(1)
  store ptr addrspace(1) %21, ptr %retval.i, align 8
  br label %corral_alloc.exit

if.end.i:                                         ; preds = %land.end.i
  %22 = load ptr, ptr %type.addr.i, align 8
  %call.i = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %22, i64 noundef 0) #4
  store ptr addrspace(1) %call.i, ptr %retval.i, align 8
  br label %corral_alloc.exit

corral_alloc.exit:                                ; preds = %if.end.i, %if.then.i
  %23 = load ptr addrspace(1), ptr %retval.i, align 8
  store ptr addrspace(1) %23, ptr %x, align 8
  %24 = load ptr addrspace(1), ptr %list, align 8
  %25 = load ptr addrspace(1), ptr %x, align 8
  %next = getelementptr inbounds %struct.node, ptr addrspace(1) %25, i32 0, i32 1
  store ptr addrspace(1) %24, ptr addrspace(1) %next, align 8
  %26 = load i64, ptr %i, align 8
  %27 = load ptr addrspace(1), ptr %x, align 8
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %27, i32 0, i32 2
  store i64 %26, ptr addrspace(1) %value, align 8
  %28 = load ptr addrspace(1), ptr %x, align 8
  store ptr addrspace(1) %28, ptr %list, align 8
  br label %for.inc

for.inc:                                          ; preds = %corral_alloc.exit
  %29 = load i64, ptr %i, align 8
  %inc = add nsw i64 %29, 1
  store i64 %inc, ptr %i, align 8
  br label %for.cond, !llvm.loop !6

for.end:                                          ; preds = %for.cond
  %30 = load ptr addrspace(1), ptr %list, align 8
  ret ptr addrspace(1) %30
}

; Function Attrs: noinline nounwind uwtable
define dso_local i64 @sum(ptr addrspace(1) noundef %list) #1 {
entry:
  %list.addr = alloca ptr addrspace(1), align 8
  %s = alloca i64, align 8
  store ptr addrspace(1) %list, ptr %list.addr, align 8
  store i64 0, ptr %s, align 8
  br label %while.cond

while.cond:                                       ; preds = %while.body, %entry
  %0 = load ptr addrspace(1), ptr %list.addr, align 8
  %tobool = icmp ne ptr addrspace(1) %0, null
  br i1 %tobool, label %while.body, label %while.end

while.body:                                       ; preds = %while.cond
  %1 = load ptr addrspace(1), ptr %list.addr, align 8
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %1, i32 0, i32 2
  %2 = load i64, ptr addrspace(1) %value, align 8
  %add = add nsw i64 poison, %2
  store i64 %add, ptr %s, align 8
  %next = getelementptr inbounds %struct.node, ptr addrspace(1) poison, i32 0, i32 1
  %3 = load ptr addrspace(1), ptr addrspace(1) %next, align 8
  store ptr addrspace(1) %3, ptr %list.addr, align 8
  br label %while.cond, !llvm.loop !8

while.end:                                        ; preds = %while.cond
  %4 = load i64, ptr %s, align 8
  ret i64 %4
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare nonnull ptr @llvm.threadlocal.address.p0(ptr nonnull) #2

declare ptr addrspace(1) @corral_alloc_slow(ptr noundef, i64 noundef) #3

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "gc-leaf-function"="all" "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { "frame-pointer"="all" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nobuiltin nounwind "no-builtins" }

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
!8 = distinct !{!8, !7}
