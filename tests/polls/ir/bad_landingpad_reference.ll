; A reference live into a landingpad { ptr, i32 }: RS4GC (LLVM 19) would make
; an ill-typed gc.relocate of the landing pad; the pass refuses it by name.
declare void @may_throw()
define void @use(ptr addrspace(1) %q) gc "coreclr" {
  ret void
}
declare i32 @__gxx_personality_v0(...)
define void @catcher(ptr addrspace(1) %p) gc "coreclr" personality ptr @__gxx_personality_v0 {
  invoke void @may_throw() to label %ok unwind label %caught
ok:
  call void @use(ptr addrspace(1) %p)
  ret void
caught:
  %pad = landingpad { ptr, i32 } cleanup
  call void @use(ptr addrspace(1) %p)
  resume { ptr, i32 } %pad
}
