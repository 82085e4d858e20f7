; Reference stores into the heap, for corral-opt --write-barrier: which get a
; barrier, which are elided, and which are no reference store at all; and
; for --satb-barrier: which overwrites get a deletion barrier before them.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@corral_thread_tlab = external thread_local(initialexec) global { ptr, ptr, i64 }

declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)
declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1), ptr addrspace(1), i64, i1)
declare void @llvm.memset.p1.i64(ptr addrspace(1), i8, i64, i1)
declare void @llvm.memset.p1.i32(ptr addrspace(1), i8, i32, i1)
declare ptr @llvm.threadlocal.address.p0(ptr)
declare ptr @memcpy(ptr, ptr, i64)
declare ptr @memmove(ptr, ptr, i64)
declare void @bcopy(ptr, ptr, i64)
declare void @bzero(ptr, i64)
declare ptr @memset(ptr, i32, i64)

@root = global ptr addrspace(1) null

define void @managed_callee() {
  ret void
}

; barrier
define void @store_field(ptr addrspace(1) %o, ptr addrspace(1) %v) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %f
  ret void
}

; elided: null
define void @store_null(ptr addrspace(1) %o) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  store ptr addrspace(1) null, ptr addrspace(1) %f
  ret void
}

; no reference store: an integer field
define void @store_integer(ptr addrspace(1) %o) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 16
  store i64 42, ptr addrspace(1) %f
  ret void
}

; elided: the object comes from the allocator with no safepoint since
define ptr addrspace(1) @store_fresh(ptr %type, ptr addrspace(1) %v) {
  %n = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  %f = getelementptr inbounds i8, ptr addrspace(1) %n, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %f
  ret ptr addrspace(1) %n
}

; barrier: a call (a safepoint) between the allocation and the store
define ptr addrspace(1) @store_after_call(ptr %type, ptr addrspace(1) %v) {
  %n = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  call void @managed_callee()
  %f = getelementptr inbounds i8, ptr addrspace(1) %n, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %f
  ret ptr addrspace(1) %n
}

; elided: corral_alloc's inlined shape, TLAB bump or slow path, merged
define ptr addrspace(1) @store_fresh_inlined(ptr %type, ptr addrspace(1) %v, i1 %fits) {
entry:
  %tlab = call ptr @llvm.threadlocal.address.p0(ptr @corral_thread_tlab)
  %cursor = load ptr, ptr %tlab
  br i1 %fits, label %fast, label %slow
fast:
  %next = getelementptr inbounds i8, ptr %cursor, i64 32
  store ptr %next, ptr %tlab
  store ptr %type, ptr %cursor
  %bumped = addrspacecast ptr %cursor to ptr addrspace(1)
  br label %done
slow:
  %called = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  br label %done
done:
  %n = phi ptr addrspace(1) [ %bumped, %fast ], [ %called, %slow ]
  %f = getelementptr inbounds i8, ptr addrspace(1) %n, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %f
  %g = getelementptr inbounds i8, ptr addrspace(1) %n, i64 16
  store ptr addrspace(1) %v, ptr addrspace(1) %g
  ret ptr addrspace(1) %n
}

; elided: a headerless type's inlined shape, whose cursor is
; corral_thread_tlab.typed[i].cursor, not the TLAB's first word
define ptr addrspace(1) @store_fresh_headerless(ptr %type, ptr addrspace(1) %v, i1 %fits) {
entry:
  %tlab = call ptr @llvm.threadlocal.address.p0(ptr @corral_thread_tlab)
  %entry.cursor = getelementptr inbounds i8, ptr %tlab, i64 128
  %cursor = load ptr, ptr %entry.cursor
  br i1 %fits, label %fast, label %slow
fast:
  %next = getelementptr inbounds i8, ptr %cursor, i64 16
  store ptr %next, ptr %entry.cursor
  %bumped = addrspacecast ptr %cursor to ptr addrspace(1)
  br label %done
slow:
  %called = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  br label %done
done:
  %n = phi ptr addrspace(1) [ %bumped, %fast ], [ %called, %slow ]
  store ptr addrspace(1) %v, ptr addrspace(1) %n
  %g = getelementptr inbounds i8, ptr addrspace(1) %n, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %g
  ret ptr addrspace(1) %n
}

; one elided, then one barrier: the second store follows a call
define ptr addrspace(1) @fresh_then_call(ptr %type, ptr addrspace(1) %v) {
  %n = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  %f = getelementptr inbounds i8, ptr addrspace(1) %n, i64 8
  store ptr addrspace(1) %v, ptr addrspace(1) %f
  call void @managed_callee()
  %g = getelementptr inbounds i8, ptr addrspace(1) %n, i64 16
  store ptr addrspace(1) %v, ptr addrspace(1) %g
  ret ptr addrspace(1) %n
}

; the loop's phi merges the allocation before the loop and the one of the
; previous iteration, before the loop poll: the stores into it get barriers;
; the store into this iteration's allocation is elided
define void @fresh_across_loop(ptr %type, ptr addrspace(1) %v, i64 %count) {
entry:
  %first = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %n = phi ptr addrspace(1) [ %first, %entry ], [ %made, %loop ]
  %nf = getelementptr inbounds i8, ptr addrspace(1) %n, i64 16
  store ptr addrspace(1) %v, ptr addrspace(1) %nf
  %made = call ptr addrspace(1) @corral_alloc_slow(ptr %type, i64 0)
  %f = getelementptr inbounds i8, ptr addrspace(1) %made, i64 8
  store ptr addrspace(1) %n, ptr addrspace(1) %f
  %i.next = add i64 %i, 1
  %again = icmp ult i64 %i.next, %count
  br i1 %again, label %loop, label %exit
exit:
  %last = getelementptr inbounds i8, ptr addrspace(1) %made, i64 16
  store ptr addrspace(1) %v, ptr addrspace(1) %last
  ret void
}

; barriers: exchange and compare-exchange of a reference
define ptr addrspace(1) @exchange(ptr addrspace(1) %o, ptr addrspace(1) %v) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  %old = atomicrmw xchg ptr addrspace(1) %f, ptr addrspace(1) %v seq_cst
  ret ptr addrspace(1) %old
}

define i1 @compare_exchange(ptr addrspace(1) %o, ptr addrspace(1) %v) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  %pair = cmpxchg ptr addrspace(1) %f, ptr addrspace(1) null, ptr addrspace(1) %v seq_cst seq_cst
  %done = extractvalue { ptr addrspace(1), i1 } %pair, 1
  ret i1 %done
}

; clang's __atomic_compare_exchange_n(&o->f, &seen, NULL): a cmpxchg of i64
; whose new word is 0; it overwrites a reference all the same
define i1 @compare_exchange_null_word(ptr addrspace(1) %o, i64 %seen) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  %pair = cmpxchg ptr addrspace(1) %f, i64 %seen, i64 0 seq_cst seq_cst
  %done = extractvalue { i64, i1 } %pair, 1
  ret i1 %done
}

; a range barrier: memcpy into the heap may copy references; memset may not
define void @copy(ptr addrspace(1) %to, ptr addrspace(1) %from, i64 %bytes) {
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) %to, ptr addrspace(1) %from, i64 %bytes, i1 false)
  call void @llvm.memset.p1.i64(ptr addrspace(1) %to, i8 0, i64 %bytes, i1 false)
  ret void
}

; libc's copies and fills (corralc's -fno-builtin keeps them calls) through
; a raw pointer made from a reference: a range barrier after each copy, over
; its destination and length (bcopy's destination is its second operand);
; bzero (its length the second operand) and memset only a deletion barrier
define void @libc_copy(ptr addrspace(1) %o, ptr %from, i64 %bytes) {
  %raw = addrspacecast ptr addrspace(1) %o to ptr
  %to = getelementptr inbounds i8, ptr %raw, i64 16
  %r1 = call ptr @memcpy(ptr %to, ptr %from, i64 %bytes)
  %r2 = call ptr @memmove(ptr %to, ptr %from, i64 %bytes)
  call void @bcopy(ptr %from, ptr %to, i64 %bytes)
  call void @bzero(ptr %to, i64 %bytes)
  %r3 = call ptr @memset(ptr %to, i32 0, i64 %bytes)
  ret void
}

; no barrier: libc's memcpy into C memory, or from an object into C memory
define void @libc_copy_c(ptr addrspace(1) %o, ptr %to, ptr %from, i64 %bytes) {
  %r1 = call ptr @memcpy(ptr %to, ptr %from, i64 %bytes)
  %raw = addrspacecast ptr addrspace(1) %o to ptr
  %r2 = call ptr @memcpy(ptr %to, ptr %raw, i64 %bytes)
  ret void
}

; a range barrier naming no object: memcpy into what a select picks, an
; object's bytes or C memory (the runtime tells which)
define void @libc_copy_select(ptr addrspace(1) %o, ptr %c, i1 %which, ptr %from, i64 %bytes) {
  %raw = addrspacecast ptr addrspace(1) %o to ptr
  %to = select i1 %which, ptr %raw, ptr %c
  %r = call ptr @memcpy(ptr %to, ptr %from, i64 %bytes)
  ret void
}

; one barrier marking two cards: a vector store of two references
define void @store_pair(ptr addrspace(1) %o, ptr addrspace(1) %a, ptr addrspace(1) %b) {
  %f = getelementptr inbounds i8, ptr addrspace(1) %o, i64 8
  %p0 = insertelement <2 x ptr addrspace(1)> poison, ptr addrspace(1) %a, i64 0
  %p1 = insertelement <2 x ptr addrspace(1)> %p0, ptr addrspace(1) %b, i64 1
  store <2 x ptr addrspace(1)> %p1, ptr addrspace(1) %f, align 8
  ret void
}

; A wide store to a constant address (what inlining store_pair with a null
; object leaves): the last word's address folds to a constant, which gets no
; second barrier (fuzz_corral_opt found the pass splitting after it).
define void @store_pair_constant_field(ptr addrspace(1) %a, ptr addrspace(1) %b) {
  %p0 = insertelement <2 x ptr addrspace(1)> poison, ptr addrspace(1) %a, i64 0
  %p1 = insertelement <2 x ptr addrspace(1)> %p0, ptr addrspace(1) %b, i64 1
  store <2 x ptr addrspace(1)> %p1, ptr addrspace(1) getelementptr (i8, ptr addrspace(1) null, i64 8), align 8
  ret void
}

; deletion barrier only: memset overwrites references with zeros (an i32
; length is widened for the runtime)
define void @fill(ptr addrspace(1) %o, i32 %bytes) {
  call void @llvm.memset.p1.i32(ptr addrspace(1) %o, i8 0, i32 %bytes, i1 false)
  ret void
}

; both barriers: a store through a raw pointer made from a reference
define void @store_raw(ptr addrspace(1) %o, ptr addrspace(1) %v) {
  %raw = addrspacecast ptr addrspace(1) %o to ptr
  %f = getelementptr inbounds i8, ptr %raw, i64 8
  store ptr addrspace(1) %v, ptr %f
  ret void
}

; no barrier, nothing counted: a global is no heap memory
define void @store_global(ptr addrspace(1) %v) {
  store ptr addrspace(1) %v, ptr @root
  ret void
}

; a store that opens its block, into a phi the split of its own block
; rebuilds (the loop's latch is the block)
define void @store_in_loop(ptr addrspace(1) %o, ptr addrspace(1) %v, i64 %count) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = phi ptr addrspace(1) [ %o, %entry ], [ %v, %loop ]
  store ptr addrspace(1) %v, ptr addrspace(1) %p
  %i.next = add i64 %i, 1
  %again = icmp ult i64 %i.next, %count
  br i1 %again, label %loop, label %exit
exit:
  ret void
}
