; A gcroot slot whose address is passed on: fine on the shadow stack, but
; --gcroot=promoted cannot keep such a root in a register.
declare void @llvm.gcroot(ptr, ptr)
declare void @fill(ptr)

define ptr @filled() gc "shadow-stack" {
entry:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  call void @fill(ptr %slot)
  %r = load ptr, ptr %slot
  ret ptr %r
}
