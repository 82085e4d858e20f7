; ModuleID = 'fuzz-input'
source_filename = "fuzz-input"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@corral_thread_tlab = external thread_local(initialexec) global { ptr, ptr, i64 }

declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) noalias nocapture writeonly, ptr addrspace(1) noalias nocapture readonly, i64, i1 immarg) #0

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p1.i64(ptr addrspace(1) nocapture writeonly, i8, i64, i1 immarg) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare nonnull ptr @llvm.threadlocal.address.p0(ptr nonnull) #2

define void @managed_callee() {
  ret void
}

define void @store_field(ptr addrspace(1) %o, ptr addrspace(1) %v) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  store ptr addrspace(1) poison, ptr addrspace(1) %f, align 8
  ret void
}

define void @store_null(ptr addrspace(1) %o) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  %hidden = ptrtoint ptr addrspace(1) %f to i64
  call void @fuzz_opaque()
  %unhidden = inttoptr i64 %hidden to ptr addrspace(1)
  ret void
}

define void @store_integer(ptr addrspace(1) %o) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 16
  call void @store_pair(ptr addrspace(1) null, ptr addrspace(1) null, ptr addrspace(1) poison)
  store i64 42, ptr addrspace(1) %f, align 8
  ret void
}

define ptr addrspace(1) @store_fresh(ptr %type, ptr addrspace(1) %v) {
  %n = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  %f = getelementptr inbounds i8, ptr addrspace(1) %n, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %f, align 8
  ret ptr addrspace(1) %n
}

define ptr addrspace(1) @store_after_call(ptr %type, ptr addrspace(1) %v) {
  %n = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  call void @managed_callee()
  %f = getelementptr inbounds i8, ptr addrspace(1) %n, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %f, align 8
  ret ptr addrspace(1) %n
}

define ptr addrspace(1) @store_fresh_inlined(ptr %type, ptr addrspace(1) %v, i1 %fits) {
entry:
  %tlab = call ptr @llvm.threadlocal.address.p0(ptr @corral_thread_tlab)
  %cursor = load ptr, ptr %tlab, align 8
  br i1 %fits, label %fast, label %slow

fast:                                             ; preds = %entry
  %next = getelementptr inbounds i8, ptr %cursor, i64 32
  store ptr %next, ptr %tlab, align 8
  store ptr %type, ptr %cursor, align 8
  %bumped = addrspacecast ptr %cursor to ptr addrspace(1)
  br label %done

slow:                                             ; preds = %entry
  %called = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  br label %done

done:                                             ; preds = %slow, %fast
  %n = phi ptr addrspace(1) [ %bumped, %fast ], [ %called, %slow ]
  %f = getelementptr inbounds i8, ptr addrspace(1) %n, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %f, align 8
  %g = getelementptr inbounds i8, ptr addrspace(1) %n, i64 16
  store ptr addrspace(1) %v, ptr addrspace(1) %g, align 8
  ret ptr addrspace(1) %n
}

define ptr addrspace(1) @fresh_then_call(ptr %type, ptr addrspace(1) %v) {
  %n = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  %f = getelementptr inbounds i8, ptr addrspace(1) %n, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %f, align 8
  call void @managed_callee()
  %g = getelementptr inbounds i8, ptr addrspace(1) %n, i64 16
  store ptr addrspace(1) %v, ptr addrspace(1) %g, align 8
  ret ptr addrspace(1) %n
}

define void @fresh_across_loop(ptr %type, ptr addrspace(1) %v, i64 %count) {
entry:
  %first = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  br label %loop

loop:                                             ; preds = %loop, %entry
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %n = phi ptr addrspace(1) [ %first, %entry ], [ %made, %loop ]
  %nf = getelementptr inbounds i8, ptr addrspace(1) %n, i64 16
  store ptr addrspace(1) %v, ptr addrspace(1) %nf, align 8
  %made = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  %f = getelementptr inbounds i8, ptr addrspace(1) %made, i64 8
  store ptr addrspace(1) %n, ptr addrspace(1) %f, align 8
  %i.next = add i64 %i, 1
  %again = icmp ult i64 %i.next, %count
  br i1 %again, label %loop, label %exit

exit:                                             ; preds = %loop
  %last = getelementptr inbounds i8, ptr addrspace(1) %made, i64 16
  store ptr addrspace(1) %v, ptr addrspace(1) %last, align 8
  ret void
}

define ptr addrspace(1) @exchange(ptr addrspace(1) %o, ptr addrspace(1) %v) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  %old = atomicrmw xchg ptr addrspace(1) %f, ptr addrspace(1) %v seq_cst, align 8
  ret ptr addrspace(1) %old
}

define i1 @compare_exchange(ptr addrspace(1) %o, ptr addrspace(1) %v) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  %pair = cmpxchg ptr addrspace(1) %f, ptr addrspace(1) null, ptr addrspace(1) %v seq_cst seq_cst, align 8
  %done = extractvalue { ptr addrspace(1), i1 } %pair, 1
  ret i1 %done
}

define void @copy(ptr addrspace(1) %to, ptr addrspace(1) %from, i64 %bytes) {
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) %to, ptr addrspace(1) %from, i64 %bytes, i1 false)
  call void @llvm.memset.p1.i64(ptr addrspace(1) %to, i8 0, i64 %bytes, i1 false)
  ret void
}

define void @store_pair(ptr addrspace(1) %o, ptr addrspace(1) %a, ptr addrspace(1) %b) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  %p0 = insertelement <2 x ptr addrspace(1)> poison, ptr addrspace(1) %a, i64 0
  %p1 = insertelement <2 x ptr addrspace(1)> %p0, ptr addrspace(1) %b, i64 1
  store <2 x ptr addrspace(1)> %p1, ptr addrspace(1) %f, align 8
  ret void
}

declare void @fuzz_opaque()

attributes #0 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #1 = { nocallback nofree nounwind willreturn memory(argmem: write) }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
