; A frontend's output in the style of LLVM's "Accurate Garbage Collection with
; LLVM": every reference lives in an alloca marked with @llvm.gcroot, is stored
; after each allocation and loaded again after each call; gc "shadow-stack".
; Objects are nodes { header, left, right, value } of type @gcroot_node_type
; (defined by the C driver, test_gcroot.c). Allocation: @corral_alloc_slow.
;
;   build_tree(d, v): node v, children build_tree(d-1, 2v), build_tree(d-1, 2v+1)
;   tree_sum(t):      sum of the values (recursive)
;   build_list(n):    nodes n..1 through left, values 1..n at the head first
;   list_sum(l):      sum of the values (a loop with no calls)
;   gcroot_worker(rounds, depth, tree_expected, list_length): keeps one tree
;     alive for all rounds, builds and checks a tree and a list per round, calls
;     managed C (c_churn) in between; returns the number of wrong sums.

@gcroot_node_type = external global i8
@tag_tree = private constant [5 x i8] c"tree\00"

declare void @llvm.gcroot(ptr, ptr)
declare ptr @corral_alloc_slow(ptr, i64)
declare i64 @c_churn(i64)

define ptr @build_tree(i64 %d, i64 %v) gc "shadow-stack" {
entry:
  %node = alloca ptr
  %child = alloca ptr
  call void @llvm.gcroot(ptr %node, ptr @tag_tree)
  call void @llvm.gcroot(ptr %child, ptr null)
  %new = call ptr @corral_alloc_slow(ptr @gcroot_node_type, i64 0)
  store ptr %new, ptr %node
  %n0 = load ptr, ptr %node
  %value = getelementptr inbounds i8, ptr %n0, i64 24
  store i64 %v, ptr %value
  %leaf = icmp sle i64 %d, 0
  br i1 %leaf, label %done, label %inner

inner:
  %d1 = sub i64 %d, 1
  %v2 = mul i64 %v, 2
  %l = call ptr @build_tree(i64 %d1, i64 %v2)
  store ptr %l, ptr %child
  %n1 = load ptr, ptr %node
  %c1 = load ptr, ptr %child
  %left = getelementptr inbounds i8, ptr %n1, i64 8
  store ptr %c1, ptr %left
  %v3 = add i64 %v2, 1
  %r = call ptr @build_tree(i64 %d1, i64 %v3)
  store ptr %r, ptr %child
  %n2 = load ptr, ptr %node
  %c2 = load ptr, ptr %child
  %right = getelementptr inbounds i8, ptr %n2, i64 16
  store ptr %c2, ptr %right
  br label %done

done:
  %result = load ptr, ptr %node
  ret ptr %result
}

define i64 @tree_sum(ptr %t) gc "shadow-stack" {
entry:
  %tree = alloca ptr
  %sum = alloca i64
  call void @llvm.gcroot(ptr %tree, ptr null)
  store ptr %t, ptr %tree
  %is_null = icmp eq ptr %t, null
  br i1 %is_null, label %empty, label %node

empty:
  ret i64 0

node:
  %t0 = load ptr, ptr %tree
  %vp = getelementptr inbounds i8, ptr %t0, i64 24
  %v = load i64, ptr %vp
  store i64 %v, ptr %sum
  %lp = getelementptr inbounds i8, ptr %t0, i64 8
  %l = load ptr, ptr %lp
  %ls = call i64 @tree_sum(ptr %l)
  %s1 = load i64, ptr %sum
  %s2 = add i64 %s1, %ls
  store i64 %s2, ptr %sum
  %t1 = load ptr, ptr %tree
  %rp = getelementptr inbounds i8, ptr %t1, i64 16
  %r = load ptr, ptr %rp
  %rs = call i64 @tree_sum(ptr %r)
  %s3 = load i64, ptr %sum
  %s4 = add i64 %s3, %rs
  ret i64 %s4
}

define ptr @build_list(i64 %n) gc "shadow-stack" {
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
  %n0 = load ptr, ptr %node
  %i1 = load i64, ptr %i
  %vp = getelementptr inbounds i8, ptr %n0, i64 24
  store i64 %i1, ptr %vp
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

; No calls in the loop: only the loop poll can stop this thread in it.
define i64 @list_sum(ptr %l) gc "shadow-stack" {
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
  %s1 = add i64 %s0, %v
  store i64 %s1, ptr %sum
  %np = getelementptr inbounds i8, ptr %c1, i64 8
  %next = load ptr, ptr %np
  store ptr %next, ptr %cursor
  br label %test

done:
  %result = load i64, ptr %sum
  ret i64 %result
}

define i64 @gcroot_worker(i64 %rounds, i64 %depth, i64 %tree_expected, i64 %length) gc "shadow-stack" {
entry:
  %keep = alloca ptr
  %tree = alloca ptr
  %list = alloca ptr
  %round = alloca i64
  %failures = alloca i64
  call void @llvm.gcroot(ptr %keep, ptr null)
  call void @llvm.gcroot(ptr %tree, ptr null)
  call void @llvm.gcroot(ptr %list, ptr null)
  store i64 0, ptr %round
  store i64 0, ptr %failures
  %k = call ptr @build_tree(i64 %depth, i64 1)
  store ptr %k, ptr %keep
  br label %test

test:
  %r0 = load i64, ptr %round
  %more = icmp slt i64 %r0, %rounds
  br i1 %more, label %body, label %done

body:
  %t = call ptr @build_tree(i64 %depth, i64 1)
  store ptr %t, ptr %tree
  %l = call ptr @build_list(i64 %length)
  store ptr %l, ptr %list
  %churn = call i64 @c_churn(i64 50)
  %t1 = load ptr, ptr %tree
  %ts = call i64 @tree_sum(ptr %t1)
  %tree_bad = icmp ne i64 %ts, %tree_expected
  %l1 = load ptr, ptr %list
  %ls = call i64 @list_sum(ptr %l1)
  %n1 = add i64 %length, 1
  %nn = mul i64 %length, %n1
  %list_expected = sdiv i64 %nn, 2
  %list_bad = icmp ne i64 %ls, %list_expected
  %churn_bad = icmp ne i64 %churn, 1275
  %b0 = or i1 %tree_bad, %list_bad
  %bad = or i1 %b0, %churn_bad
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
  %ks = call i64 @tree_sum(ptr %k1)
  %keep_bad = icmp ne i64 %ks, %tree_expected
  %kb = zext i1 %keep_bad to i64
  %f2 = load i64, ptr %failures
  %f3 = add i64 %f2, %kb
  ret i64 %f3
}
