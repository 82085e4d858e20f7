; ModuleID = 'structs-O0.bc'
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

; Function Attrs: noinline nounwind uwtable
define dso_local i64 @use(i64 noundef %v) #0 {
entry:
  %v.addr = alloca i64, align 8
  %p = alloca %struct.pair, align 8
  %s = alloca i64, align 8
  %i = alloca i32, align 4
  %q = alloca %struct.pair, align 8
  store i64 %v, ptr %v.addr, align 8
  %0 = load i64, ptr %v.addr, align 8
  %call = call { ptr addrspace(1), ptr addrspace(1) } @make(i64 noundef %0) #3
  %1 = getelementptr inbounds { ptr addrspace(1), ptr addrspace(1) }, ptr %p, i32 0, i32 0
  %2 = extractvalue { ptr addrspace(1), ptr addrspace(1) } %call, 0
  store ptr addrspace(1) %2, ptr %1, align 8
  %3 = getelementptr inbounds { ptr addrspace(1), ptr addrspace(1) }, ptr %p, i32 0, i32 1
  %4 = extractvalue { ptr addrspace(1), ptr addrspace(1) } %call, 1
  store ptr addrspace(1) %4, ptr %3, align 8
  call void @corral_collect() #3
  store i64 0, ptr %s, align 8
  store i32 0, ptr %i, align 4
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %5 = load i32, ptr %i, align 4
  %cmp = icmp slt i32 %5, 3
  br i1 %cmp, label %for.body, label %for.end

for.body:                                         ; preds = %for.cond
  %6 = load i32, ptr %i, align 4
  %conv = sext i32 %6 to i64
  %call1 = call { ptr addrspace(1), ptr addrspace(1) } @make(i64 noundef %conv) #3
  %7 = getelementptr inbounds { ptr addrspace(1), ptr addrspace(1) }, ptr %q, i32 0, i32 0
  %8 = extractvalue { ptr addrspace(1), ptr addrspace(1) } %call1, 0
  store ptr addrspace(1) %8, ptr %7, align 8
  %9 = getelementptr inbounds { ptr addrspace(1), ptr addrspace(1) }, ptr %q, i32 0, i32 1
  %10 = extractvalue { ptr addrspace(1), ptr addrspace(1) } %call1, 1
  store ptr addrspace(1) %10, ptr %9, align 8
  %a = getelementptr inbounds %struct.pair, ptr %q, i32 0, i32 0
  %11 = load ptr addrspace(1), ptr %a, align 8
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %11, i32 0, i32 2
  %12 = load i64, ptr addrspace(1) %value, align 8
  %13 = load i64, ptr %s, align 8
  %add = add nsw i64 %13, %12
  store i64 %add, ptr %s, align 8
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %14 = load i32, ptr %i, align 4
  %inc = add nsw i32 %14, 1
  store i32 %inc, ptr %i, align 4
  br label %for.cond, !llvm.loop !6

for.end:                                          ; preds = %for.cond
  %a2 = getelementptr inbounds %struct.pair, ptr %p, i32 0, i32 0
  %15 = load ptr addrspace(1), ptr %a2, align 8
  %value3 = getelementptr inbounds %struct.node, ptr addrspace(1) %15, i32 0, i32 2
  %16 = load i64, ptr addrspace(1) %value3, align 8
  %b = getelementptr inbounds %struct.pair, ptr %p, i32 0, i32 1
  %17 = load ptr addrspace(1), ptr %b, align 8
  %value4 = getelementptr inbounds %struct.node, ptr addrspace(1) %17, i32 0, i32 2
  %18 = load i64, ptr addrspace(1) %value4, align 8
  %add5 = add nsw i64 %16, %18
  %19 = load i64, ptr %s, align 8
  %add6 = add nsw i64 %add5, %19
  ret i64 %add6
}

; Function Attrs: noinline nounwind uwtable
define internal { ptr addrspace(1), ptr addrspace(1) } @make(i64 noundef %v) #0 {
entry:
  %retval.i5 = alloca ptr addrspace(1), align 8
  %type.addr.i6 = alloca ptr, align 8
  %bytes.i7 = alloca i64, align 8
  %tlab.i8 = alloca ptr, align 8
  %cursor.i9 = alloca ptr, align 8
  %retval.i = alloca ptr addrspace(1), align 8
  %type.addr.i = alloca ptr, align 8
  %bytes.i = alloca i64, align 8
  %tlab.i = alloca ptr, align 8
  %cursor.i = alloca ptr, align 8
  %retval = alloca %struct.pair, align 8
  %v.addr = alloca i64, align 8
  store i64 %v, ptr %v.addr, align 8
  store ptr @node_type, ptr %type.addr.i6, align 8
  %0 = load ptr, ptr %type.addr.i6, align 8
  %size.i10 = getelementptr inbounds %struct.corral_type, ptr %0, i32 0, i32 2
  %1 = load i32, ptr %size.i10, align 8
  %conv.i11 = zext i32 %1 to i64
  %add.i12 = add i64 %conv.i11, 7
  %and.i13 = and i64 %add.i12, -8
  store i64 %and.i13, ptr %bytes.i7, align 8
  %2 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %2, ptr %tlab.i8, align 8
  %3 = load ptr, ptr %tlab.i8, align 8
  %4 = load ptr, ptr %3, align 8
  store ptr %4, ptr %cursor.i9, align 8
  %5 = load ptr, ptr %type.addr.i6, align 8
  %flags.i14 = getelementptr inbounds %struct.corral_type, ptr %5, i32 0, i32 4
  %6 = load i32, ptr %flags.i14, align 8
  %and2.i15 = and i32 %6, 12
  %tobool.i16 = icmp ne i32 %and2.i15, 0
  br i1 %tobool.i16, label %land.end.i20, label %land.lhs.true.i17

land.lhs.true.i17:                                ; preds = %entry
  %7 = load i64, ptr %bytes.i7, align 8
  %8 = load ptr, ptr %tlab.i8, align 8
  %max_inline.i18 = getelementptr inbounds %struct.corral_tlab, ptr %8, i32 0, i32 2
  %9 = load i64, ptr %max_inline.i18, align 8
  %cmp.i19 = icmp ule i64 %7, %9
  br i1 %cmp.i19, label %land.rhs.i27, label %land.end.i20

land.rhs.i27:                                     ; preds = %land.lhs.true.i17
  %10 = load i64, ptr %bytes.i7, align 8
  %11 = load ptr, ptr %tlab.i8, align 8
  %limit.i28 = getelementptr inbounds %struct.corral_tlab, ptr %11, i32 0, i32 1
  %12 = load ptr, ptr %limit.i28, align 8
  %13 = load ptr, ptr %cursor.i9, align 8
  %sub.ptr.lhs.cast.i29 = ptrtoint ptr %12 to i64
  %sub.ptr.rhs.cast.i30 = ptrtoint ptr %13 to i64
  %sub.ptr.sub.i31 = sub i64 %sub.ptr.lhs.cast.i29, %sub.ptr.rhs.cast.i30
  %cmp4.i32 = icmp ule i64 %10, %sub.ptr.sub.i31
  br label %land.end.i20

land.end.i20:                                     ; preds = %land.rhs.i27, %land.lhs.true.i17, %entry
  %14 = phi i1 [ false, %land.lhs.true.i17 ], [ false, %entry ], [ %cmp4.i32, %land.rhs.i27 ]
  %land.ext.i21 = zext i1 %14 to i32
  %conv6.i22 = sext i32 %land.ext.i21 to i64
  br i1 %14, label %if.then.i25, label %if.end.i23

if.then.i25:                                      ; preds = %land.end.i20
  %15 = load ptr, ptr %cursor.i9, align 8
  %16 = load i64, ptr %bytes.i7, align 8
  %add.ptr.i26 = getelementptr inbounds i8, ptr %15, i64 %16
  %17 = load ptr, ptr %tlab.i8, align 8
  store ptr %add.ptr.i26, ptr %17, align 8
  %18 = load ptr, ptr %type.addr.i6, align 8
  %19 = load ptr, ptr %cursor.i9, align 8
  store ptr %18, ptr %19, align 8
  %20 = load ptr, ptr %cursor.i9, align 8
  %21 = addrspacecast ptr %20 to ptr addrspace(1)
  store ptr addrspace(1) %21, ptr %retval.i5, align 8
  br label %corral_alloc.exit33

if.end.i23:                                       ; preds = %land.end.i20
  %22 = load ptr, ptr %type.addr.i6, align 8
  %call.i24 = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %22, i64 noundef 0) #4
  store ptr addrspace(1) %call.i24, ptr %retval.i5, align 8
  br label %corral_alloc.exit33

corral_alloc.exit33:                              ; preds = %if.then.i25, %if.end.i23
  %23 = load ptr addrspace(1), ptr %retval.i5, align 8
  %a = getelementptr inbounds %struct.pair, ptr %retval, i32 0, i32 0
  store ptr addrspace(1) %23, ptr %a, align 8
  store ptr @node_type, ptr %type.addr.i, align 8
  %24 = load ptr, ptr %type.addr.i, align 8
  %size.i = getelementptr inbounds %struct.corral_type, ptr %24, i32 0, i32 2
  %25 = load i32, ptr %size.i, align 8
  %conv.i = zext i32 %25 to i64
  %add.i = add i64 %conv.i, 7
  %and.i = and i64 %add.i, -8
  store i64 %and.i, ptr %bytes.i, align 8
  %26 = call align 8 ptr @llvm.threadlocal.address.p0(ptr align 8 @corral_thread_tlab)
  store ptr %26, ptr %tlab.i, align 8
  %27 = load ptr, ptr %tlab.i, align 8
  %28 = load ptr, ptr %27, align 8
  store ptr %28, ptr %cursor.i, align 8
  %29 = load ptr, ptr %type.addr.i, align 8
  %flags.i = getelementptr inbounds %struct.corral_type, ptr %29, i32 0, i32 4
  %30 = load i32, ptr %flags.i, align 8
  %and2.i = and i32 %30, 12
  %tobool.i = icmp ne i32 %and2.i, 0
  br i1 %tobool.i, label %land.end.i, label %land.lhs.true.i

land.lhs.true.i:                                  ; preds = %corral_alloc.exit33
  %31 = load i64, ptr %bytes.i, align 8
  %32 = load ptr, ptr %tlab.i, align 8
  %max_inline.i = getelementptr inbounds %struct.corral_tlab, ptr %32, i32 0, i32 2
  %33 = load i64, ptr %max_inline.i, align 8
  %cmp.i = icmp ule i64 %31, %33
  br i1 %cmp.i, label %land.rhs.i, label %land.end.i

land.rhs.i:                                       ; preds = %land.lhs.true.i
  %34 = load i64, ptr %bytes.i, align 8
  %35 = load ptr, ptr %tlab.i, align 8
  %limit.i = getelementptr inbounds %struct.corral_tlab, ptr %35, i32 0, i32 1
  %36 = load ptr, ptr %limit.i, align 8
  %37 = load ptr, ptr %cursor.i, align 8
  %sub.ptr.lhs.cast.i = ptrtoint ptr %36 to i64
  %sub.ptr.rhs.cast.i = ptrtoint ptr %37 to i64
  %sub.ptr.sub.i = sub i64 %sub.ptr.lhs.cast.i, %sub.ptr.rhs.cast.i
  %cmp4.i = icmp ule i64 %34, %sub.ptr.sub.i
  br label %land.end.i

land.end.i:                                       ; preds = %land.rhs.i, %land.lhs.true.i, %corral_alloc.exit33
  %38 = phi i1 [ false, %land.lhs.true.i ], [ false, %corral_alloc.exit33 ], [ %cmp4.i, %land.rhs.i ]
  %land.ext.i = zext i1 %38 to i32
  %conv6.i = sext i32 %land.ext.i to i64
  br i1 %38, label %if.then.i, label %if.end.i

if.then.i:                                        ; preds = %land.end.i
  %39 = load ptr, ptr %cursor.i, align 8
  %40 = load i64, ptr %bytes.i, align 8
  %add.ptr.i = getelementptr inbounds i8, ptr %39, i64 %40
  %41 = load ptr, ptr %tlab.i, align 8
  store ptr %add.ptr.i, ptr %41, align 8
  %42 = load ptr, ptr %type.addr.i, align 8
  %43 = load ptr, ptr %cursor.i, align 8
  store ptr %42, ptr %43, align 8
  %44 = load ptr, ptr %cursor.i, align 8
  %45 = addrspacecast ptr %44 to ptr addrspace(1)
  store ptr addrspace(1) %45, ptr %retval.i, align 8
  br label %corral_alloc.exit

if.end.i:                                         ; preds = %land.end.i
  %46 = load ptr, ptr %type.addr.i, align 8
  %call.i = call ptr addrspace(1) @corral_alloc_slow(ptr noundef %46, i64 noundef 0) #4
  store ptr addrspace(1) %call.i, ptr %retval.i, align 8
  br label %corral_alloc.exit

corral_alloc.exit:                                ; preds = %if.then.i, %if.end.i
  %47 = load ptr addrspace(1), ptr %retval.i, align 8
  %b = getelementptr inbounds %struct.pair, ptr %retval, i32 0, i32 1
  store ptr addrspace(1) %47, ptr %b, align 8
  %48 = load i64, ptr %v.addr, align 8
  %a2 = getelementptr inbounds %struct.pair, ptr %retval, i32 0, i32 0
  %49 = load ptr addrspace(1), ptr %a2, align 8
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %49, i32 0, i32 2
  store i64 %48, ptr addrspace(1) %value, align 8
  %50 = load i64, ptr %v.addr, align 8
  %sub = sub nsw i64 0, %50
  %b3 = getelementptr inbounds %struct.pair, ptr %retval, i32 0, i32 1
  %51 = load ptr addrspace(1), ptr %b3, align 8
  %value4 = getelementptr inbounds %struct.node, ptr addrspace(1) %51, i32 0, i32 2
  store i64 %sub, ptr addrspace(1) %value4, align 8
  %52 = load { ptr addrspace(1), ptr addrspace(1) }, ptr %retval, align 8
  ret { ptr addrspace(1), ptr addrspace(1) } %52
}

declare void @corral_collect() #1

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @sel(i32 noundef %c, ptr addrspace(1) noundef %x, ptr addrspace(1) noundef %y) #0 {
entry:
  %c.addr = alloca i32, align 4
  %x.addr = alloca ptr addrspace(1), align 8
  %y.addr = alloca ptr addrspace(1), align 8
  %z = alloca ptr addrspace(1), align 8
  store i32 %c, ptr %c.addr, align 4
  store ptr addrspace(1) %x, ptr %x.addr, align 8
  store ptr addrspace(1) %y, ptr %y.addr, align 8
  %0 = load i32, ptr %c.addr, align 4
  %tobool = icmp ne i32 %0, 0
  br i1 %tobool, label %cond.true, label %cond.false

cond.true:                                        ; preds = %entry
  %1 = load ptr addrspace(1), ptr %x.addr, align 8
  br label %cond.end

cond.false:                                       ; preds = %entry
  %2 = load ptr addrspace(1), ptr %y.addr, align 8
  br label %cond.end

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond = phi ptr addrspace(1) [ %1, %cond.true ], [ %2, %cond.false ]
  store ptr addrspace(1) %cond, ptr %z, align 8
  call void @corral_collect() #3
  %3 = load ptr addrspace(1), ptr %z, align 8
  %tobool1 = icmp ne ptr addrspace(1) %3, null
  br i1 %tobool1, label %cond.true2, label %cond.false3

cond.true2:                                       ; preds = %cond.end
  %4 = load ptr addrspace(1), ptr %z, align 8
  %value = getelementptr inbounds %struct.node, ptr addrspace(1) %4, i32 0, i32 2
  %5 = load i64, ptr addrspace(1) %value, align 8
  %conv = trunc i64 %5 to i32
  br label %cond.end4

cond.false3:                                      ; preds = %cond.end
  br label %cond.end4

cond.end4:                                        ; preds = %cond.false3, %cond.true2
  %cond5 = phi i32 [ %conv, %cond.true2 ], [ 0, %cond.false3 ]
  ret i32 %cond5
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare nonnull ptr @llvm.threadlocal.address.p0(ptr nonnull) #2

declare ptr addrspace(1) @corral_alloc_slow(ptr noundef, i64 noundef) #1

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "frame-pointer"="all" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nobuiltin "no-builtins" }
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
