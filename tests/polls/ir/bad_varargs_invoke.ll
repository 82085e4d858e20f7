; References through "..." are pinned for the call: an invoke has two continuations.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @__gxx_personality_v0(...)

define void @sum(i32 %n, ...) {
  ret void
}

define void @pass_refs(ptr addrspace(1) %a) personality ptr @__gxx_personality_v0 {
  invoke void (i32, ...) @sum(i32 1, ptr addrspace(1) %a) to label %ok unwind label %bad
ok:
  ret void
bad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}
