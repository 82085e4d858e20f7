; Invokes in gcroot code. In promoted mode a root live across an invoke
; would be relocated in the landing pad, which RS4GC (LLVM 19) cannot do for
; a landingpad { ptr, i32 }: such a function keeps its roots in a
; shadow-stack frame (catcher); one whose roots are dead across its invokes
; is promoted as usual (rethrower).
declare void @llvm.gcroot(ptr, ptr)
declare void @may_throw()
declare void @work(ptr)
declare i32 @__gxx_personality_v0(...)

define void @catcher(ptr %object) gc "shadow-stack" personality ptr @__gxx_personality_v0 {
entry:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  store ptr %object, ptr %slot
  invoke void @may_throw() to label %ok unwind label %caught

ok:
  %a = load ptr, ptr %slot
  call void @work(ptr %a)
  ret void

caught:
  %pad = landingpad { ptr, i32 } catch ptr null
  %b = load ptr, ptr %slot
  call void @work(ptr %b)
  ret void
}

define void @rethrower(ptr %object) gc "shadow-stack" personality ptr @__gxx_personality_v0 {
entry:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  store ptr %object, ptr %slot
  %a = load ptr, ptr %slot
  call void @work(ptr %a)
  %b = load ptr, ptr %slot
  call void @work(ptr %b)
  invoke void @may_throw() to label %ok unwind label %cleanup

ok:
  ret void

cleanup:
  %pad = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %pad
}
