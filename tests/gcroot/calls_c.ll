; gcroot code (gc "shadow-stack", LLVM's documented style) calling unmanaged C:
; plain_mix, plain_add and plain_expected are in plain_c.c, compiled as plain C,
; so each call goes through a GC-transition wrapper and, under
; CORRAL_GC_STRESS=transitions, a collection runs on both sides of it while
; this code holds its roots in gcroot slots (reloaded after every call).
;
;   mixed_list(n):  nodes n..1 through left, node i's value plain_mix(i),
;                   computed while the new node and the list are roots
;   mixed_sum(l):   plain_add(sum, value) over the list, one C call per node
;                   while the cursor is a root
;   ffi_worker(rounds, n): keeps the first list alive for all rounds, builds
;                   and sums one list per round against plain_expected(n);
;                   returns the number of wrong sums.

@gcroot_node_type = external global i8

declare void @llvm.gcroot(ptr, ptr)
declare ptr @corral_alloc_slow(ptr, i64)
declare i64 @plain_mix(i64)
declare i64 @plain_add(i64, i64)
declare i64 @plain_expected(i64)

define ptr @mixed_list(i64 %n) gc "shadow-stack" {
entry:
  %list = alloca ptr
  %node = alloca ptr
  %i = alloca i64
  call void @llvm.gcroot(ptr %list, ptr null)
  call void @llvm.gcroot(ptr %node, ptr null)
  store i64 1, ptr %i
  br label %test

test:
  %i0 = load i64, ptr %i
  %more = icmp sle i64 %i0, %n
  br i1 %more, label %body, label %done

body:
  %new = call ptr @corral_alloc_slow(ptr @gcroot_node_type, i64 0)
  store ptr %new, ptr %node
  %i1 = load i64, ptr %i
  %v = call i64 @plain_mix(i64 %i1)
  %n0 = load ptr, ptr %node
  %vp = getelementptr inbounds i8, ptr %n0, i64 24
  store i64 %v, ptr %vp
  %l0 = load ptr, ptr %list
  %next = getelementptr inbounds i8, ptr %n0, i64 8
  store ptr %l0, ptr %next
  store ptr %n0, ptr %list
  %i2 = add i64 %i1, 1
  store i64 %i2, ptr %i
  br label %test

done:
  %result = load ptr, ptr %list
  ret ptr %result
}

define i64 @mixed_sum(ptr %l) gc "shadow-stack" {
entry:
  %cursor = alloca ptr
  %sum = alloca i64
  call void @llvm.gcroot(ptr %cursor, ptr null)
  store ptr %l, ptr %cursor
  store i64 0, ptr %sum
  br label %test

test:
  %c0 = load ptr, ptr %cursor
  %more = icmp ne ptr %c0, null
  br i1 %more, label %body, label %done

body:
  %c1 = load ptr, ptr %cursor
  %vp = getelementptr inbounds i8, ptr %c1, i64 24
  %v = load i64, ptr %vp
  %s0 = load i64, ptr %sum
  %s1 = call i64 @plain_add(i64 %s0, i64 %v)
  store i64 %s1, ptr %sum
  %c2 = load ptr, ptr %cursor
  %np = getelementptr inbounds i8, ptr %c2, i64 8
  %next = load ptr, ptr %np
  store ptr %next, ptr %cursor
  br label %test

done:
  %result = load i64, ptr %sum
  ret i64 %result
}

define i64 @ffi_worker(i64 %rounds, i64 %n) gc "shadow-stack" {
entry:
  %keep = alloca ptr
  %list = alloca ptr
  %round = alloca i64
  %failures = alloca i64
  call void @llvm.gcroot(ptr %keep, ptr null)
  call void @llvm.gcroot(ptr %list, ptr null)
  store i64 0, ptr %round
  store i64 0, ptr %failures
  %expected = call i64 @plain_expected(i64 %n)
  %k = call ptr @mixed_list(i64 %n)
  store ptr %k, ptr %keep
  br label %test

test:
  %r0 = load i64, ptr %round
  %more = icmp slt i64 %r0, %rounds
  br i1 %more, label %body, label %done

body:
  %l = call ptr @mixed_list(i64 %n)
  store ptr %l, ptr %list
  %l1 = load ptr, ptr %list
  %s = call i64 @mixed_sum(ptr %l1)
  %bad = icmp ne i64 %s, %expected
  %bad64 = zext i1 %bad to i64
  %f0 = load i64, ptr %failures
  %f1 = add i64 %f0, %bad64
  store i64 %f1, ptr %failures
  %r1 = load i64, ptr %round
  %r2 = add i64 %r1, 1
  store i64 %r2, ptr %round
  br label %test

done:
  %k1 = load ptr, ptr %keep
  %ks = call i64 @mixed_sum(ptr %k1)
  %keep_bad = icmp ne i64 %ks, %expected
  %kb = zext i1 %keep_bad to i64
  %f2 = load i64, ptr %failures
  %f3 = add i64 %f2, %kb
  ret i64 %f3
}
