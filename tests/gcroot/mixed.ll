; gcroot code and managed C passing references both ways (docs/gcroot.md,
; "Mixed programs"). The gcroot functions keep roots as plain ptr in gcroot
; slots, as LLVM's document says; at the boundary with managed C they take
; and return ptr addrspace(1) and cast with addrspacecast. The C side is
; test_gcroot_mixed.c. Nodes are { header, left, right, value } of type
; @gcroot_node_type.
;
;   gcroot_build(d, v, parent): node v; children c_build(d-1, 2v, node) and
;     c_build(d-1, 2v+1, node) (managed C, which calls gcroot_build for the
;     next level); checks parent->value == v/2 through its root slot and
;     through the argument itself, and marks the node -1 when wrong.
;   gcroot_check(t, d, v): wrong values in t (value v, children 2v, 2v+1,
;     checked by c_check, which calls gcroot_check below it).
;   gcroot_pair(left, right): a node over both (plain ptr in its signature).
;   gcroot_rounds(rounds, depth): keeps a tree from managed C in a root
;     across a loop that builds and checks trees through both sides.

@gcroot_node_type = external global i8

declare void @llvm.gcroot(ptr, ptr)
declare ptr @corral_alloc_slow(ptr, i64)
declare ptr addrspace(1) @c_build(i64, i64, ptr addrspace(1))
declare i64 @c_check(ptr addrspace(1), i64, i64)
declare ptr @c_left(ptr)

define ptr addrspace(1) @gcroot_build(i64 %d, i64 %v, ptr addrspace(1) %parent) gc "shadow-stack" {
entry:
  %node = alloca ptr
  %child = alloca ptr
  %par = alloca ptr
  call void @llvm.gcroot(ptr %node, ptr null)
  call void @llvm.gcroot(ptr %child, ptr null)
  call void @llvm.gcroot(ptr %par, ptr null)
  %p = addrspacecast ptr addrspace(1) %parent to ptr
  store ptr %p, ptr %par
  %new = call ptr @corral_alloc_slow(ptr @gcroot_node_type, i64 0)
  store ptr %new, ptr %node
  %n0 = load ptr, ptr %node
  %value = getelementptr inbounds i8, ptr %n0, i64 24
  store i64 %v, ptr %value
  %leaf = icmp sle i64 %d, 0
  br i1 %leaf, label %check, label %inner

inner:
  %d1 = sub i64 %d, 1
  %v2 = mul i64 %v, 2
  %n1 = load ptr, ptr %node
  %n1r = addrspacecast ptr %n1 to ptr addrspace(1)
  %l = call ptr addrspace(1) @c_build(i64 %d1, i64 %v2, ptr addrspace(1) %n1r)
  %lp = addrspacecast ptr addrspace(1) %l to ptr
  store ptr %lp, ptr %child
  %n2 = load ptr, ptr %node
  %c1 = load ptr, ptr %child
  %left = getelementptr inbounds i8, ptr %n2, i64 8
  store ptr %c1, ptr %left
  %v3 = add i64 %v2, 1
  %n3 = load ptr, ptr %node
  %n3r = addrspacecast ptr %n3 to ptr addrspace(1)
  %r = call ptr addrspace(1) @c_build(i64 %d1, i64 %v3, ptr addrspace(1) %n3r)
  %rp = addrspacecast ptr addrspace(1) %r to ptr
  store ptr %rp, ptr %child
  %n4 = load ptr, ptr %node
  %c2 = load ptr, ptr %child
  %right = getelementptr inbounds i8, ptr %n4, i64 16
  store ptr %c2, ptr %right
  br label %check

check:
  %p1 = load ptr, ptr %par
  %orphan = icmp eq ptr %p1, null
  br i1 %orphan, label %done, label %has_parent

has_parent:
  %want = sdiv i64 %v, 2
  %pvp = getelementptr inbounds i8, ptr %p1, i64 24
  %pv = load i64, ptr %pvp
  %ok_slot = icmp eq i64 %pv, %want
  ; %parent itself is live across every call above: a statepoint root.
  %pav = getelementptr inbounds i8, ptr addrspace(1) %parent, i64 24
  %pa = load i64, ptr addrspace(1) %pav
  %ok_arg = icmp eq i64 %pa, %want
  %ok = and i1 %ok_slot, %ok_arg
  br i1 %ok, label %done, label %bad

bad:
  %n5 = load ptr, ptr %node
  %bvp = getelementptr inbounds i8, ptr %n5, i64 24
  store i64 -1, ptr %bvp
  br label %done

done:
  %result = load ptr, ptr %node
  %ref = addrspacecast ptr %result to ptr addrspace(1)
  ret ptr addrspace(1) %ref
}

; Stores its argument into a root and loads it back as a reference, with no
; casts: the pass adds them (gcroot_boundary.c).
define i64 @gcroot_check(ptr addrspace(1) %t, i64 %d, i64 %v) gc "shadow-stack" {
entry:
  %tree = alloca ptr
  %scratch = alloca ptr
  %failures = alloca i64
  call void @llvm.gcroot(ptr %tree, ptr null)
  call void @llvm.gcroot(ptr %scratch, ptr null)
  store ptr addrspace(1) %t, ptr %tree
  store i64 0, ptr %failures
  %missing = icmp eq ptr addrspace(1) %t, null
  br i1 %missing, label %absent, label %present

absent:
  ret i64 1

present:
  ; an allocation here lets a collection move the tree while it is checked
  %s = call ptr @corral_alloc_slow(ptr @gcroot_node_type, i64 0)
  store ptr %s, ptr %scratch
  %s0 = load ptr, ptr %scratch
  %svp = getelementptr inbounds i8, ptr %s0, i64 24
  store i64 %v, ptr %svp
  %t0 = load ptr, ptr %tree
  %vp = getelementptr inbounds i8, ptr %t0, i64 24
  %tv = load i64, ptr %vp
  %wrong = icmp ne i64 %tv, %v
  %w = zext i1 %wrong to i64
  store i64 %w, ptr %failures
  %leaf = icmp sle i64 %d, 0
  br i1 %leaf, label %done, label %inner

inner:
  %d1 = sub i64 %d, 1
  %v2 = mul i64 %v, 2
  %t1 = load ptr addrspace(1), ptr %tree
  %lp = getelementptr inbounds i8, ptr addrspace(1) %t1, i64 8
  %l = load ptr addrspace(1), ptr addrspace(1) %lp
  %lf = call i64 @c_check(ptr addrspace(1) %l, i64 %d1, i64 %v2)
  %t2 = load ptr addrspace(1), ptr %tree
  %rpp = getelementptr inbounds i8, ptr addrspace(1) %t2, i64 16
  %r = load ptr addrspace(1), ptr addrspace(1) %rpp
  %v3 = add i64 %v2, 1
  %rf = call i64 @c_check(ptr addrspace(1) %r, i64 %d1, i64 %v3)
  %f0 = load i64, ptr %failures
  %f1 = add i64 %f0, %lf
  %f2 = add i64 %f1, %rf
  store i64 %f2, ptr %failures
  br label %done

done:
  ; the scratch node survived the collections below it, moved or not
  %s1 = load ptr, ptr %scratch
  %sv1p = getelementptr inbounds i8, ptr %s1, i64 24
  %sv1 = load i64, ptr %sv1p
  %scratch_wrong = icmp ne i64 %sv1, %v
  %sw = zext i1 %scratch_wrong to i64
  %f3 = load i64, ptr %failures
  %f4 = add i64 %f3, %sw
  ret i64 %f4
}

; Defined with plain ptr where test_gcroot_mixed.c declares references, and
; calling c_left, declared here with ptr where C defines it with references:
; each call is then the boundary itself (the pass needs no cast there, and
; nothing inlines across the mismatch). A new node over left and right,
; value left->left->value + right->value.
define ptr @gcroot_pair(ptr %left, ptr %right) gc "shadow-stack" {
entry:
  %l = alloca ptr
  %r = alloca ptr
  %pair = alloca ptr
  call void @llvm.gcroot(ptr %l, ptr null)
  call void @llvm.gcroot(ptr %r, ptr null)
  call void @llvm.gcroot(ptr %pair, ptr null)
  store ptr %left, ptr %l
  store ptr %right, ptr %r
  %new = call ptr @corral_alloc_slow(ptr @gcroot_node_type, i64 0)
  store ptr %new, ptr %pair
  %l0 = load ptr, ptr %l
  %ll = call ptr @c_left(ptr %l0)
  %llv = getelementptr inbounds i8, ptr %ll, i64 24
  %a = load i64, ptr %llv
  %r0 = load ptr, ptr %r
  %rv = getelementptr inbounds i8, ptr %r0, i64 24
  %b = load i64, ptr %rv
  %sum = add i64 %a, %b
  %p0 = load ptr, ptr %pair
  %pv = getelementptr inbounds i8, ptr %p0, i64 24
  store i64 %sum, ptr %pv
  %l1 = load ptr, ptr %l
  %pl = getelementptr inbounds i8, ptr %p0, i64 8
  store ptr %l1, ptr %pl
  %pr = getelementptr inbounds i8, ptr %p0, i64 16
  store ptr %r0, ptr %pr
  ret ptr %p0
}

define i64 @gcroot_rounds(i64 %rounds, i64 %depth) gc "shadow-stack" {
entry:
  %keep = alloca ptr
  %tree = alloca ptr
  %round = alloca i64
  %failures = alloca i64
  call void @llvm.gcroot(ptr %keep, ptr null)
  call void @llvm.gcroot(ptr %tree, ptr null)
  store i64 0, ptr %round
  store i64 0, ptr %failures
  %k = call ptr addrspace(1) @c_build(i64 %depth, i64 1, ptr addrspace(1) null)
  %kp = addrspacecast ptr addrspace(1) %k to ptr
  store ptr %kp, ptr %keep
  br label %test

test:
  %r0 = load i64, ptr %round
  %more = icmp slt i64 %r0, %rounds
  br i1 %more, label %body, label %done

body:
  %t = call ptr addrspace(1) @c_build(i64 %depth, i64 1, ptr addrspace(1) null)
  %tp = addrspacecast ptr addrspace(1) %t to ptr
  store ptr %tp, ptr %tree
  %u = call ptr addrspace(1) @gcroot_build(i64 %depth, i64 1, ptr addrspace(1) null)
  %uf = call i64 @c_check(ptr addrspace(1) %u, i64 %depth, i64 1)
  %t1 = load ptr, ptr %tree
  %t1r = addrspacecast ptr %t1 to ptr addrspace(1)
  %tf = call i64 @gcroot_check(ptr addrspace(1) %t1r, i64 %depth, i64 1)
  %f0 = load i64, ptr %failures
  %f1 = add i64 %f0, %uf
  %f2 = add i64 %f1, %tf
  store i64 %f2, ptr %failures
  %r1 = load i64, ptr %round
  %r2 = add i64 %r1, 1
  store i64 %r2, ptr %round
  br label %test

done:
  %k1 = load ptr, ptr %keep
  %k1r = addrspacecast ptr %k1 to ptr addrspace(1)
  %kf = call i64 @c_check(ptr addrspace(1) %k1r, i64 %depth, i64 1)
  %f3 = load i64, ptr %failures
  %f4 = add i64 %f3, %kf
  ret i64 %f4
}
