; gcroot code as a frontend's own optimisation leaves it (test_opt.c):
;   inlined_root: an inlined callee's root, its lifetime.start first after the
;     allocas, then its gcroot call; the shadow stack keeps the slot for the
;     whole frame, so the marker must go (after it the optimiser took the null
;     the push stored for undef, and deleted the paths that read the root);
;   returns_root: internal, with an argument nobody uses, so -O2 replaces it
;     by a copy without it (dead-argument elimination); the copy is still a
;     gcroot function: its return poll, across which it holds the returned
;     root in a register, is dropped as in any other.
@node_type = external global i8

declare void @llvm.gcroot(ptr, ptr)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
declare ptr @corral_alloc_slow(ptr, i64)
declare void @work(ptr)

define void @inlined_root(ptr %object) gc "shadow-stack" {
entry:
  %slot = alloca ptr
  call void @llvm.lifetime.start.p0(i64 8, ptr %slot)
  call void @llvm.gcroot(ptr %slot, ptr null)
  %v = load ptr, ptr %slot
  %fresh = icmp eq ptr %v, null
  br i1 %fresh, label %store, label %done

store:
  store ptr %object, ptr %slot
  %new = call ptr @corral_alloc_slow(ptr @node_type, i64 0)
  %o = load ptr, ptr %slot
  call void @work(ptr %o)
  br label %done

done:
  call void @llvm.lifetime.end.p0(i64 8, ptr %slot)
  ret void
}

define internal ptr @returns_root(i64 %unused, ptr %object) noinline gc "shadow-stack" {
entry:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  store ptr %object, ptr %slot
  %new = call ptr @corral_alloc_slow(ptr @node_type, i64 0)
  %o = load ptr, ptr %slot
  ret ptr %o
}

define ptr @caller(ptr %object) gc "shadow-stack" {
entry:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  store ptr %object, ptr %slot
  %o = load ptr, ptr %slot
  %r = call ptr @returns_root(i64 7, ptr %o)
  ret ptr %r
}
