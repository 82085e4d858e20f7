; Raw pointers into an object that a use may hand back as a pointer the
; pass cannot follow: the object is pinned until the function returns
; (frame_pins.c). A program that read through such a pointer after a moving
; collection read the old copy: strchr's result, strtol's end, a select or
; a phi with C memory (live across a call or setjmp: rejected before frame
; pins), a cursor local a parser advances. Uses that hand nothing back
; get no frame pin: a nocapture argument, an unused result, an integer
; result with no local given.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr @strchr(ptr, i32)
declare i64 @strtol(ptr, ptr, i32)
declare i64 @strlen(ptr nocapture)
declare ptr @memcpy(ptr, ptr, i64)
declare i64 @hash(ptr)
declare i64 @parse(ptr)
declare void @g()
declare i32 @_setjmp(ptr) returns_twice
@buffer = global [16 x i8] zeroinitializer

define i8 @comma_after_gc(ptr addrspace(1) %s) {
  %data = getelementptr i8, ptr addrspace(1) %s, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  %comma = call ptr @strchr(ptr %raw, i32 44)
  call void @g()
  %c = load i8, ptr %comma
  ret i8 %c
}

define i8 @end_after_gc(ptr addrspace(1) %s) {
  %end = alloca ptr
  %data = getelementptr i8, ptr addrspace(1) %s, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  %v = call i64 @strtol(ptr %raw, ptr %end, i32 10)
  call void @g()
  %e = load ptr, ptr %end
  %c = load i8, ptr %e
  ret i8 %c
}

define i8 @select_with_c_memory(ptr addrspace(1) %s, i1 %managed) {
  %raw = addrspacecast ptr addrspace(1) %s to ptr
  %p = select i1 %managed, ptr %raw, ptr @buffer
  call void @g()
  %c = load i8, ptr %p
  ret i8 %c
}

define i8 @phi_with_c_memory(ptr addrspace(1) %r, i1 %c) {
entry:
  %p = addrspacecast ptr addrspace(1) %r to ptr
  br i1 %c, label %object, label %join
object:
  br label %join
join:
  %m = phi ptr [ %p, %object ], [ @buffer, %entry ]
  call void @g()
  %v = load i8, ptr %m
  ret i8 %v
}

define i8 @phi_across_setjmp(ptr addrspace(1) %r, i1 %c, ptr %buf) {
entry:
  %p = addrspacecast ptr addrspace(1) %r to ptr
  br i1 %c, label %object, label %join
object:
  br label %join
join:
  %m = phi ptr [ %p, %object ], [ @buffer, %entry ]
  %s = call i32 @_setjmp(ptr %buf)
  %v = load i8, ptr %m
  ret i8 %v
}

define i64 @cursor_local(ptr addrspace(1) %text) {
  %cursor = alloca ptr
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  store ptr %raw, ptr %cursor
  %n = call i64 @parse(ptr %cursor)
  ret i64 %n
}

define i64 @nothing_handed_back(ptr addrspace(1) %s, ptr %out) {
  %data = getelementptr i8, ptr addrspace(1) %s, i64 16
  %a = addrspacecast ptr addrspace(1) %data to ptr
  %n = call i64 @strlen(ptr %a)
  %b = addrspacecast ptr addrspace(1) %data to ptr
  %unused = call ptr @memcpy(ptr %b, ptr %out, i64 %n)
  %c = addrspacecast ptr addrspace(1) %data to ptr
  %h = call i64 @hash(ptr %c)
  ret i64 %h
}

; An indirect varargs call given a raw pointer it may store into %out and a
; reference through "...": the frame pin comes first, then the call's pin of
; the reference, so the unpin after the call drops that one.
define i8 @varargs_and_raw(ptr addrspace(1) %s, ptr %fn) {
  %out = alloca ptr
  %raw = addrspacecast ptr addrspace(1) %s to ptr
  call void (ptr, ...) %fn(ptr %raw, ptr %out, ptr addrspace(1) %s)
  %p = load ptr, ptr %out
  %c = load i8, ptr %p
  ret i8 %c
}

; The object a loop loads each round, parsed by strtol with its end pointer
; and a call that may collect after it: the offset `end - start`, taken while
; the round's object is pinned, is kept across rounds (a sum), as C code does.
define i64 @offsets_of_each_round(ptr addrspace(1) %lines, i64 %n) {
entry:
  %end = alloca ptr
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %sum = phi i64 [ 0, %entry ], [ %sum.next, %loop ]
  %slot = getelementptr ptr addrspace(1), ptr addrspace(1) %lines, i64 %i
  %line = load ptr addrspace(1), ptr addrspace(1) %slot
  %raw = addrspacecast ptr addrspace(1) %line to ptr
  %v = call i64 @strtol(ptr %raw, ptr %end, i32 10)
  %e = load ptr, ptr %end
  %ei = ptrtoint ptr %e to i64
  %start = addrspacecast ptr addrspace(1) %line to ptr
  %si = ptrtoint ptr %start to i64
  %used = sub i64 %ei, %si
  call void @g()
  %sum.next = add i64 %sum, %used
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %sum.next
}

; strchr on the same object every round of a loop: one pin, before the loop.
define i64 @same_object_each_round(ptr addrspace(1) %s, ptr %wanted, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %sum = phi i64 [ 0, %entry ], [ %sum.next, %loop ]
  %w = getelementptr i8, ptr %wanted, i64 %i
  %c = load i8, ptr %w
  %ci = sext i8 %c to i32
  %raw = addrspacecast ptr addrspace(1) %s to ptr
  %found = call ptr @strchr(ptr %raw, i32 %ci)
  %start = addrspacecast ptr addrspace(1) %s to ptr
  %fi = ptrtoint ptr %found to i64
  %si = ptrtoint ptr %start to i64
  %offset = sub i64 %fi, %si
  call void @g()
  %sum.next = add i64 %sum, %offset
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %sum.next
}
