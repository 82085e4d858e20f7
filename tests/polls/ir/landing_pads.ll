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

; The landing pad's phi takes a different reference from each call that
; unwinds to it: a slot stored before each call.
define void @pad_phi(ptr addrspace(1) %a, ptr addrspace(1) %b) gc "coreclr" personality ptr @__gcc_personality_v0 {
entry:
  invoke void @may_throw() to label %second unwind label %cleanup
second:
  invoke void @may_throw() to label %done unwind label %cleanup
done:
  ret void
cleanup:
  %who = phi ptr addrspace(1) [ %a, %entry ], [ %b, %second ]
  %pad = landingpad { ptr, i32 } cleanup
  call void @use(ptr addrspace(1) %who)
  resume { ptr, i32 } %pad
}

; A pointer stepping through an array, with a call that may unwind in the
; loop: kept as its offset from the array.
define i64 @stepping(ptr addrspace(1) %array, i64 %count) gc "coreclr" personality ptr @__gcc_personality_v0 {
entry:
  %first = getelementptr i8, ptr addrspace(1) %array, i64 16
  br label %loop
loop:
  %at = phi ptr addrspace(1) [ %first, %entry ], [ %next, %latch ]
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %sum = phi i64 [ 0, %entry ], [ %sum.next, %latch ]
  invoke void @may_throw() to label %latch unwind label %cleanup
latch:
  %word = load i64, ptr addrspace(1) %at
  %sum.next = add i64 %sum, %word
  %next = getelementptr i8, ptr addrspace(1) %at, i64 8
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, %count
  br i1 %more, label %loop, label %exit
exit:
  ret i64 %sum.next
cleanup:
  %pad = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %pad
}
