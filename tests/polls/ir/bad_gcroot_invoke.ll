; An invoke in gcroot code: --gcroot=promoted handles calls only.
declare void @llvm.gcroot(ptr, ptr)
declare void @may_throw()
declare i32 @__gxx_personality_v0(...)

define void @catcher() gc "shadow-stack" personality ptr @__gxx_personality_v0 {
entry:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  invoke void @may_throw() to label %ok unwind label %caught

ok:
  ret void

caught:
  %pad = landingpad { ptr, i32 } cleanup
  ret void
}
