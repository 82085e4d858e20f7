; A pointer chosen between fields of two objects, live across a call that
; may unwind into a landingpad { ptr, i32 }: RS4GC (LLVM 19) would make an
; ill-typed gc.relocate of the landing pad, and a frame slot holds only
; references to objects' starts, so the pass refuses it by name.
declare void @may_throw()
define void @use(i64 %value) gc "coreclr" {
  ret void
}
declare i32 @__gxx_personality_v0(...)
define void @catcher(ptr addrspace(1) %p, ptr addrspace(1) %q, i1 %first) gc "coreclr" personality ptr @__gxx_personality_v0 {
entry:
  br i1 %first, label %in_p, label %in_q
in_p:
  %field_p = getelementptr i8, ptr addrspace(1) %p, i64 8
  br label %chosen
in_q:
  %field_q = getelementptr i8, ptr addrspace(1) %q, i64 16
  br label %chosen
chosen:
  %field = phi ptr addrspace(1) [ %field_p, %in_p ], [ %field_q, %in_q ]
  invoke void @may_throw() to label %ok unwind label %caught
ok:
  %value = load i64, ptr addrspace(1) %field
  call void @use(i64 %value)
  ret void
caught:
  %pad = landingpad { ptr, i32 } cleanup
  %seen = load i64, ptr addrspace(1) %field
  call void @use(i64 %seen)
  resume { ptr, i32 } %pad
}
