; C cleanups under -fexceptions: calls that may unwind into a
; landingpad { ptr, i32 }, with references live across them. RS4GC (LLVM 19)
; cannot relocate those on the unwind edge, so each moves into a frame slot
; (stored where made, loaded where used), a pointer into an object is made
; again from its base after the call, and a phi taking a reference over the
; call's edge is a slot stored before the call.
declare void @may_throw()
define ptr addrspace(1) @make() gc "coreclr" {
  %object = call ptr addrspace(1) @corral_alloc_slow(ptr null, i64 0)
  ret ptr addrspace(1) %object
}
declare ptr addrspace(1) @corral_alloc_slow(ptr, i64)
define void @use(ptr addrspace(1) %q) gc "coreclr" {
  ret void
}
declare i32 @__gcc_personality_v0(...)

; An argument used on both edges.
define void @argument(ptr addrspace(1) %p) gc "coreclr" personality ptr @__gcc_personality_v0 {
  invoke void @may_throw() to label %ok unwind label %cleanup
ok:
  call void @use(ptr addrspace(1) %p)
  ret void
cleanup:
  %pad = landingpad { ptr, i32 } cleanup
  call void @use(ptr addrspace(1) %p)
  resume { ptr, i32 } %pad
}

; An invoke's result, and a field of it, live across the next invoke.
define void @result(i1 %again) gc "coreclr" personality ptr @__gcc_personality_v0 {
entry:
  %made = invoke ptr addrspace(1) @make() to label %made_ok unwind label %cleanup
made_ok:
  %field = getelementptr i8, ptr addrspace(1) %made, i64 16
  invoke void @may_throw() to label %join unwind label %cleanup
join:
  %either = phi ptr addrspace(1) [ %made, %made_ok ], [ null, %other ]
  store i64 1, ptr addrspace(1) %field
  call void @use(ptr addrspace(1) %either)
  br i1 %again, label %other, label %done
other:
  br label %join
done:
  ret void
cleanup:
  %pad = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %pad
}
