; A gcroot function returning a reference to managed code that keeps it
; across a call (docs/gcroot.md, "Mixed programs"). At -O2 make is inlined
; into caller; unless the pass keeps the cast where it is written,
; optimisation sinks it into %use and the plain pointer, which no one
; updates, crosses the call to @work instead of the reference.
@node_type = external global i8

declare void @llvm.gcroot(ptr, ptr)
declare ptr @corral_alloc_slow(ptr, i64)

@counter = global i64 0

define void @work() noinline {
  store volatile i64 1, ptr @counter
  ret void
}

define void @take(ptr addrspace(1) %r) noinline {
  %vp = getelementptr inbounds i8, ptr addrspace(1) %r, i64 24
  %v = load volatile i64, ptr addrspace(1) %vp
  store volatile i64 %v, ptr @counter
  ret void
}

define ptr addrspace(1) @make() gc "shadow-stack" {
entry:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  %new = call ptr @corral_alloc_slow(ptr @node_type, i64 0)
  store ptr %new, ptr %slot
  %p = load ptr, ptr %slot
  %r = addrspacecast ptr %p to ptr addrspace(1)
  ret ptr addrspace(1) %r
}

define void @caller(i1 %c) {
entry:
  %r = call ptr addrspace(1) @make()
  call void @work()
  br i1 %c, label %use, label %done

use:
  call void @take(ptr addrspace(1) %r)
  br label %done

done:
  ret void
}
