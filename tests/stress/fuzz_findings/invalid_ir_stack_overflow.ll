; ModuleID = 'fuzz-input'
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

; Function Attrs: noinline nounwind uwtable
define dso_local i64 @g(i64 noundef %v) #0 {
entry:
  %retval.i = alloca ptr addrspace(1), align 8
  %type.addr.i = alloca ptr, align 8
  %bytes.i = alloca i64, align 8
  %tlab.i = alloca ptr, align 8
  %cursor.i = alloca ptr, align 8
  %v.addr = alloca i64, align 8
  %n = alloca ptr addrspace(1), align 8
  store i64 %v, ptr %v.addr, align 8
  store ptr @node_type, ptr %type.addr.i, align 8
  %0 = load ptr, ptr %type.addr.i, align 8
  %size.i = getelementptr inbounds %struct.corral_type, ptr %0, i32 0, i32 2
  %1 = load i32, ptr %size.i, align 8
  %conv.i = zext i32 %1 to i64
  %add.i = add i64 %conv.i, 7
  %and.i = and i64 %add.i, -8
  store i64 %and.i, ptr %bytes.i, align 8
  %2 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 %11)
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
  %sub.ptr.rhs.cast.i = ptrtoint ptr undef to i64
  %sub.ptr.sub.i = sub i64 %sub.ptr.lhs.cast.i, %9
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
  %18 = load ptr, ptr %type.addr.i, align 8
  %19 = load ptr, ptr %cursor.i, align 8
  store ptr %18, ptr %19, align 8
  %20 = load ptr, ptr %cursor.i, align 8
  %21 = addrspacecast ptr %20 to ptr addrspace(1)
  store ptr addrspace(1) %21, ptr %retval.i, align 8
  br label %corral_alloc.exit

if.end.i:                                         ; preds = %land.end.i
  %22 = load ptr, ptr %type.addr.i, align 8
  %call.i = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %22, i64 noundef 0) #4
  store ptr addrspace(1) %call.i, ptr %retval.i, align 8
  %23 = call i64 @fast_hash(i64 poison)
  br label %corral_alloc.exit

corral_alloc.exit:                                ; preds = %if.end.i, %if.then.i
  %24 = load ptr addrspace(1), ptr %retval.i, align 8
  store ptr addrspace(1) %24, ptr %n, align 8
  %25 = load i64, ptr %v.addr, align 8
  %call1 = call i64 @fast_hash(i64 noundef %25) #5
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) poison, i32 0, i32 2
  store i64 %call1, ptr addrspace(1) %value, align 8
  %call2 = call i32 @pthread_mutex_lock(ptr noundef @lock) #4
  %26 = load ptr addrspace(1), ptr %n, align 8
  %value3 = getelementptr inbounds %struct.node, ptr addrspace(1) %26, i32 0, i32 2
  %27 = load i64, ptr addrspace(1) %value3, align 8
  %call4 = call i32 (ptr, ...) @printf(ptr noundef @.str, i64 noundef %27, ptr noundef @.str.1) #5
  %call5 = call i32 @pthread_mutex_unlock(ptr noundef @lock) #4
  %28 = load ptr addrspace(1), ptr %n, align 8
  %value6 = getelementptr inbounds %struct.node, ptr addrspace(1) %28, i32 0, i32 2
  %29 = load i64, ptr addrspace(1) %value6, align 8
  ret i64 %29
}

declare i64 @fast_hash(i64 noundef) #1

; Function Attrs: nounwind
declare i32 @pthread_mutex_lock(ptr noundef) #2

declare i32 @printf(ptr noundef, ...) #1

; Function Attrs: nounwind
declare i32 @pthread_mutex_unlock(ptr noundef) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare nonnull ptr @llvm.threadlocal.address.p0(ptr nonnull) #3

declare ptr addrspace(1) @corral_alloc_slow(ptr noundef, i64 noundef) #1

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "frame-pointer"="all" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nounwind "frame-pointer"="all" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nobuiltin nounwind "no-builtins" }
attributes #5 = { nobuiltin "no-builtins" }

!llvm.module.flags = !{!0, !1, !2, !3, !4}
!llvm.ident = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
