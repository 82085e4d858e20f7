; examples/gcroot/lists.ll — what a frontend following LLVM's "Accurate Garbage
; Collection with LLVM" emits, run on corral in several threads.
;
; The document's rules, as this file keeps them:
;   - every function that holds references says gc "shadow-stack";
;   - every reference local is an alloca marked with @llvm.gcroot at entry
;     (the second argument is optional metadata, here a type tag; the
;     collector passes it through, corral does not read it);
;   - a root is stored right after the call that made it, and loaded again
;     after every call, since any call may collect and move objects;
;   - heap stores and loads of references may go through @llvm.gcwrite and
;     @llvm.gcread (lowered to plain stores and loads).
; Nothing here is corral's own except @corral_alloc_slow, the allocation
; call, and the cell type @example_cell_type (main.c). corralc builds it in
; both modes: --gcroot=shadow-stack (default) and --gcroot=promoted.
;
; A cell is { header, next, value }: next at offset 8, value at 16.
;   cons(v, tail)       a new cell
;   range(n)            1 -> 2 -> ... -> n
;   squares(list)       a new list of the squares, in reverse order
;   sum(list)           the sum of the values (a loop with no calls)
;   example_worker(job) the thread body: job is { i64 n, i64 rounds }, read at
;                       entry; keeps range(n) alive for all rounds, per round
;                       sums squares(range(n)), and returns the total of all
;                       sums as the thread's result. (Not held across the
;                       loop: the pass cannot tell a pointer to C memory from
;                       one into the heap, and refuses a loop poll there.)

; No target triple or data layout: corralc gives the module its target's
; (the build machine's, or --target's), so one file serves x86-64 and AArch64.

@example_cell_type = external global i8
@cell_tag = private constant [5 x i8] c"cell\00"

declare void @llvm.gcroot(ptr, ptr)
declare void @llvm.gcwrite(ptr, ptr, ptr)
declare ptr @llvm.gcread(ptr, ptr)
declare ptr @corral_alloc_slow(ptr, i64)

define ptr @cons(i64 %value, ptr %tail) gc "shadow-stack" {
entry:
  %rest = alloca ptr
  call void @llvm.gcroot(ptr %rest, ptr @cell_tag)
  store ptr %tail, ptr %rest
  %cell = call ptr @corral_alloc_slow(ptr @example_cell_type, i64 0)
  %next = getelementptr inbounds i8, ptr %cell, i64 8
  %tail1 = load ptr, ptr %rest
  call void @llvm.gcwrite(ptr %tail1, ptr %cell, ptr %next)
  %slot = getelementptr inbounds i8, ptr %cell, i64 16
  store i64 %value, ptr %slot
  ret ptr %cell
}

define ptr @range(i64 %n) gc "shadow-stack" {
entry:
  %list = alloca ptr
  %i = alloca i64
  call void @llvm.gcroot(ptr %list, ptr null)
  store ptr null, ptr %list
  store i64 %n, ptr %i
  br label %test

test:
  %i0 = load i64, ptr %i
  %more = icmp sgt i64 %i0, 0
  br i1 %more, label %body, label %done

body:
  %l0 = load ptr, ptr %list
  %l1 = call ptr @cons(i64 %i0, ptr %l0)
  store ptr %l1, ptr %list
  %i1 = sub i64 %i0, 1
  store i64 %i1, ptr %i
  br label %test

done:
  %result = load ptr, ptr %list
  ret ptr %result
}

define ptr @squares(ptr %from) gc "shadow-stack" {
entry:
  %cursor = alloca ptr
  %out = alloca ptr
  call void @llvm.gcroot(ptr %cursor, ptr null)
  call void @llvm.gcroot(ptr %out, ptr null)
  store ptr %from, ptr %cursor
  store ptr null, ptr %out
  br label %test

test:
  %c0 = load ptr, ptr %cursor
  %more = icmp ne ptr %c0, null
  br i1 %more, label %body, label %done

body:
  %vp = getelementptr inbounds i8, ptr %c0, i64 16
  %v = load i64, ptr %vp
  %square = mul i64 %v, %v
  %o0 = load ptr, ptr %out
  %o1 = call ptr @cons(i64 %square, ptr %o0)
  store ptr %o1, ptr %out
  %c1 = load ptr, ptr %cursor
  %np = getelementptr inbounds i8, ptr %c1, i64 8
  %next = call ptr @llvm.gcread(ptr %c1, ptr %np)
  store ptr %next, ptr %cursor
  br label %test

done:
  %result = load ptr, ptr %out
  ret ptr %result
}

define i64 @sum(ptr %list) gc "shadow-stack" {
entry:
  %cursor = alloca ptr
  %total = alloca i64
  call void @llvm.gcroot(ptr %cursor, ptr null)
  store ptr %list, ptr %cursor
  store i64 0, ptr %total
  br label %test

test:
  %c0 = load ptr, ptr %cursor
  %more = icmp ne ptr %c0, null
  br i1 %more, label %body, label %done

body:
  %c1 = load ptr, ptr %cursor
  %vp = getelementptr inbounds i8, ptr %c1, i64 16
  %v = load i64, ptr %vp
  %t0 = load i64, ptr %total
  %t1 = add i64 %t0, %v
  store i64 %t1, ptr %total
  %np = getelementptr inbounds i8, ptr %c1, i64 8
  %next = load ptr, ptr %np
  store ptr %next, ptr %cursor
  br label %test

done:
  %result = load i64, ptr %total
  ret i64 %result
}

define ptr @example_worker(ptr %job) gc "shadow-stack" {
entry:
  %kept = alloca ptr
  %list = alloca ptr
  %round = alloca i64
  %total = alloca i64
  call void @llvm.gcroot(ptr %kept, ptr null)
  call void @llvm.gcroot(ptr %list, ptr null)
  %n = load i64, ptr %job
  %rounds_field = getelementptr inbounds i8, ptr %job, i64 8
  %rounds = load i64, ptr %rounds_field
  %k = call ptr @range(i64 %n)
  store ptr %k, ptr %kept
  store i64 0, ptr %round
  store i64 0, ptr %total
  br label %test

test:
  %r0 = load i64, ptr %round
  %more = icmp slt i64 %r0, %rounds
  br i1 %more, label %body, label %done

body:
  %l0 = call ptr @range(i64 %n)
  store ptr %l0, ptr %list
  %l1 = load ptr, ptr %list
  %s0 = call ptr @squares(ptr %l1)
  store ptr %s0, ptr %list
  %l2 = load ptr, ptr %list
  %s = call i64 @sum(ptr %l2)
  %t0 = load i64, ptr %total
  %t1 = add i64 %t0, %s
  store i64 %t1, ptr %total
  %r1 = add i64 %r0, 1
  store i64 %r1, ptr %round
  br label %test

done:
  ; The list kept since entry must still read 1..n after every collection.
  %k1 = load ptr, ptr %kept
  %kept_sum = call i64 @sum(ptr %k1)
  %t2 = load i64, ptr %total
  %t3 = add i64 %t2, %kept_sum
  %result = inttoptr i64 %t3 to ptr
  ret ptr %result
}
