; One gcroot function (gc "shadow-stack") compiled in both modes: a root
; kept across an allocation, a call and a loop poll (test_opt.c checks the
; shadow-stack push in one mode and stackmap roots in the other).
@node_type = external global i8

declare void @llvm.gcroot(ptr, ptr)
declare ptr @corral_alloc_slow(ptr, i64)
declare void @work(i64)

define ptr @keep_across(i64 %n) gc "shadow-stack" {
entry:
  %root = alloca ptr
  %i = alloca i64
  call void @llvm.gcroot(ptr %root, ptr null)
  %new = call ptr @corral_alloc_slow(ptr @node_type, i64 0)
  store ptr %new, ptr %root
  store i64 0, ptr %i
  br label %test

test:
  %i0 = load i64, ptr %i
  %more = icmp slt i64 %i0, %n
  br i1 %more, label %body, label %done

body:
  call void @work(i64 %i0)
  %r = load ptr, ptr %root
  %vp = getelementptr inbounds i8, ptr %r, i64 24
  store i64 %i0, ptr %vp
  %i1 = add i64 %i0, 1
  store i64 %i1, ptr %i
  br label %test

done:
  %result = load ptr, ptr %root
  ret ptr %result
}

; A root dead after its last load: the loop's calls must not keep it alive
; in promoted mode (nothing reads the slot after them).
define void @dead_in_loop(i64 %n) gc "shadow-stack" {
entry:
  %root = alloca ptr
  %i = alloca i64
  call void @llvm.gcroot(ptr %root, ptr null)
  %new = call ptr @corral_alloc_slow(ptr @node_type, i64 0)
  store ptr %new, ptr %root
  %r = load ptr, ptr %root
  %vp = getelementptr inbounds i8, ptr %r, i64 24
  store i64 1, ptr %vp
  store i64 0, ptr %i
  br label %test

test:
  %i0 = load i64, ptr %i
  %more = icmp slt i64 %i0, %n
  br i1 %more, label %body, label %done

body:
  call void @work(i64 %i0)
  %i1 = add i64 %i0, 1
  store i64 %i1, ptr %i
  br label %test

done:
  ret void
}
