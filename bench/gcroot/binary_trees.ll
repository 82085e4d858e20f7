; binary-trees (bench/managed/binary_trees.c's algorithm) as a frontend that
; follows LLVM's "Accurate Garbage Collection with LLVM" emits it: gc
; "shadow-stack", every reference in an alloca marked with @llvm.gcroot and
; loaded again after each call. Built twice, --gcroot=shadow-stack and
; --gcroot=promoted, with binary_trees.c (-DBENCH_GCROOT) as the driver.
; Nodes are { header, left, right }; @bt_new_node (the driver's, managed C)
; allocates one and returns it as a plain pointer.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @llvm.gcroot(ptr, ptr)
declare ptr @bt_new_node()
declare void @bt_run_tasks()

define ptr @bt_bottom_up_tree(i64 %depth) gc "shadow-stack" {
entry:
  %left = alloca ptr
  %right = alloca ptr
  call void @llvm.gcroot(ptr %left, ptr null)
  call void @llvm.gcroot(ptr %right, ptr null)
  %leaf = icmp sle i64 %depth, 0
  br i1 %leaf, label %make, label %children

children:
  %d1 = sub i64 %depth, 1
  %l = call ptr @bt_bottom_up_tree(i64 %d1)
  store ptr %l, ptr %left
  %r = call ptr @bt_bottom_up_tree(i64 %d1)
  store ptr %r, ptr %right
  br label %make

make:
  %node = call ptr @bt_new_node()
  %l1 = load ptr, ptr %left
  %lp = getelementptr inbounds i8, ptr %node, i64 8
  store ptr %l1, ptr %lp
  %r1 = load ptr, ptr %right
  %rp = getelementptr inbounds i8, ptr %node, i64 16
  store ptr %r1, ptr %rp
  ret ptr %node
}

define i64 @bt_item_check(ptr %t) gc "shadow-stack" {
entry:
  %tree = alloca ptr
  call void @llvm.gcroot(ptr %tree, ptr null)
  store ptr %t, ptr %tree
  %lp = getelementptr inbounds i8, ptr %t, i64 8
  %l = load ptr, ptr %lp
  %is_leaf = icmp eq ptr %l, null
  br i1 %is_leaf, label %leaf, label %inner

leaf:
  ret i64 1

inner:
  %lc = call i64 @bt_item_check(ptr %l)
  %t1 = load ptr, ptr %tree
  %rp = getelementptr inbounds i8, ptr %t1, i64 16
  %r = load ptr, ptr %rp
  %rc = call i64 @bt_item_check(ptr %r)
  %s = add i64 %lc, %rc
  %check = add i64 %s, 1
  ret i64 %check
}

define i64 @bt_fresh_tree_check(i64 %depth) gc "shadow-stack" {
entry:
  %tree = alloca ptr
  call void @llvm.gcroot(ptr %tree, ptr null)
  %t = call ptr @bt_bottom_up_tree(i64 %depth)
  store ptr %t, ptr %tree
  %t1 = load ptr, ptr %tree
  %check = call i64 @bt_item_check(ptr %t1)
  ret i64 %check
}

define i64 @bt_trees_check(i64 %depth, i64 %iterations) gc "shadow-stack" {
entry:
  %tree = alloca ptr
  %i = alloca i64
  %sum = alloca i64
  call void @llvm.gcroot(ptr %tree, ptr null)
  store i64 0, ptr %i
  store i64 0, ptr %sum
  br label %test

test:
  %i0 = load i64, ptr %i
  %more = icmp slt i64 %i0, %iterations
  br i1 %more, label %body, label %done

body:
  %t = call ptr @bt_bottom_up_tree(i64 %depth)
  store ptr %t, ptr %tree
  %t1 = load ptr, ptr %tree
  %check = call i64 @bt_item_check(ptr %t1)
  %s0 = load i64, ptr %sum
  %s1 = add i64 %s0, %check
  store i64 %s1, ptr %sum
  %i1 = add i64 %i0, 1
  store i64 %i1, ptr %i
  br label %test

done:
  %result = load i64, ptr %sum
  ret i64 %result
}

; The long-lived tree stays in a gcroot slot while the driver runs the tasks.
define i64 @bt_long_lived_check(i64 %depth) gc "shadow-stack" {
entry:
  %long_lived = alloca ptr
  call void @llvm.gcroot(ptr %long_lived, ptr null)
  %t = call ptr @bt_bottom_up_tree(i64 %depth)
  store ptr %t, ptr %long_lived
  call void @bt_run_tasks()
  %t1 = load ptr, ptr %long_lived
  %check = call i64 @bt_item_check(ptr %t1)
  ret i64 %check
}
