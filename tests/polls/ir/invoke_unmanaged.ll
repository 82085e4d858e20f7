; An invoke of unmanaged C: its wrapper invokes the callee too, and makes the
; thread MANAGED again on the unwind path before resuming the exception.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @may_throw(i32)
declare i32 @__gxx_personality_v0(...)

define i32 @catcher(i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  %r = invoke i32 @may_throw(i32 %x) to label %ok unwind label %caught
ok:
  %s = call i32 @may_throw(i32 %r)
  ret i32 %s
caught:
  %lp = landingpad { ptr, i32 } catch ptr null
  ret i32 -1
}
