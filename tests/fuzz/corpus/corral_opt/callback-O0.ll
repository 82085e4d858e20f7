; ModuleID = 'callback-O0.bc'
source_filename = "callback.c"
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
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @corral_thread_attach, ptr @.str.1, ptr @.str.2, i32 189, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @corral_alloc_slow, ptr @.str.1, ptr @.str.2, i32 211, ptr null }], section "llvm.metadata"

; Function Attrs: noinline nounwind uwtable
define dso_local ptr @cb(ptr noundef %arg) #0 {
entry:
  %retval.i = alloca ptr addrspace(1), align 8
  %type.addr.i = alloca ptr, align 8
  %bytes.i = alloca i64, align 8
  %tlab.i = alloca ptr, align 8
  %cursor.i = alloca ptr, align 8
  %arg.addr = alloca ptr, align 8
  %d = alloca ptr, align 8
  %n = alloca ptr addrspace(1), align 8
  store ptr %arg, ptr %arg.addr, align 8
  %0 = load ptr, ptr %arg.addr, align 8
  store ptr %0, ptr %d, align 8
  store ptr @node_type, ptr %type.addr.i, align 8
  %1 = load ptr, ptr %type.addr.i, align 8
  %size.i = getelementptr inbounds %struct.corral_type, ptr %1, i32 0, i32 2
  %2 = load i32, ptr %size.i, align 8
  %conv.i = zext i32 %2 to i64
  %add.i = add i64 %conv.i, 7
  %and.i = and i64 %add.i, -8
  store i64 %and.i, ptr %bytes.i, align 8
  %3 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %3, ptr %tlab.i, align 8
  %4 = load ptr, ptr %tlab.i, align 8
  %5 = load ptr, ptr %4, align 8
  store ptr %5, ptr %cursor.i, align 8
  %6 = load ptr, ptr %type.addr.i, align 8
  %flags.i = getelementptr inbounds %struct.corral_type, ptr %6, i32 0, i32 4
  %7 = load i32, ptr %flags.i, align 8
  %and2.i = and i32 %7, 12
  %tobool.i = icmp ne i32 %and2.i, 0
  br i1 %tobool.i, label %land.end.i, label %land.lhs.true.i

land.lhs.true.i:                                  ; preds = %entry
  %8 = load i64, ptr %bytes.i, align 8
  %9 = load ptr, ptr %tlab.i, align 8
  %max_inline.i = getelementptr inbounds %struct.corral_tlab, ptr %9, i32 0, i32 2
  %10 = load i64, ptr %max_inline.i, align 8
  %cmp.i = icmp ule i64 %8, %10
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

land.end.i:                                       ; preds = %land.rhs.i, %land.lhs.true.i, %entry
  %15 = phi i1 [ false, %land.lhs.true.i ], [ false, %entry ], [ %cmp4.i, %land.rhs.i ]
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
  %20 = load ptr, ptr %cursor.i, align 8
  store ptr %19, ptr %20, align 8
  %21 = load ptr, ptr %cursor.i, align 8
  %22 = addrspacecast ptr %21 to ptr addrspace(1)
  store ptr addrspace(1) %22, ptr %retval.i, align 8
  br label %corral_alloc.exit

if.end.i:                                         ; preds = %land.end.i
  %23 = load ptr, ptr %type.addr.i, align 8
  %call.i = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %23, i64 noundef 0) #3
  store ptr addrspace(1) %call.i, ptr %retval.i, align 8
  br label %corral_alloc.exit

corral_alloc.exit:                                ; preds = %if.then.i, %if.end.i
  %24 = load ptr addrspace(1), ptr %retval.i, align 8
  store ptr addrspace(1) %24, ptr %n, align 8
  %25 = load ptr, ptr %d, align 8
  %26 = load i64, ptr %25, align 8
  %27 = load ptr addrspace(1), ptr %n, align 8
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %27, i32 0, i32 2
  store i64 %26, ptr addrspace(1) %value, align 8
  %28 = load ptr, ptr %d, align 8
  %29 = load i64, ptr %28, align 8
  %tobool = icmp ne i64 %29, 0
  br i1 %tobool, label %if.then, label %if.end

if.then:                                          ; preds = %corral_alloc.exit
  %30 = load ptr, ptr %d, align 8
  %31 = load i64, ptr %30, align 8
  %sub = sub nsw i64 %31, 1
  %call1 = call i64 @c_visit(i64 noundef %sub) #4
  br label %if.end

if.end:                                           ; preds = %if.then, %corral_alloc.exit
  %32 = load ptr addrspace(1), ptr %n, align 8
  %value2 = getelementptr inbounds %struct.node, ptr addrspace(1) %32, i32 0, i32 2
  %33 = load i64, ptr addrspace(1) %value2, align 8
  %34 = load ptr, ptr %d, align 8
  store i64 %33, ptr %34, align 8
  ret ptr null
}

declare i64 @c_visit(i64 noundef) #1

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @main() #0 {
entry:
  %retval = alloca i32, align 4
  %d = alloca i64, align 8
  store i32 0, ptr %retval, align 4
  %call = call i32 @corral_init(ptr noundef null) #4
  %call1 = call i32 @corral_thread_attach() #4
  store i64 3, ptr %d, align 8
  %call2 = call ptr @cb(ptr noundef %d) #4
  %0 = load i64, ptr %d, align 8
  %conv = trunc i64 %0 to i32
  ret i32 %conv
}

declare i32 @corral_init(ptr noundef) #1

declare i32 @corral_thread_attach() #1

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
