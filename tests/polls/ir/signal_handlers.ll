; Managed functions installed as signal handlers (polls/signal_handlers.c):
; signal()'s argument, a function stored into the struct sigaction() is
; given (on the stack, or a global's initializer), a handler a helper
; installs for its caller. Each gets no polls and
; calls C directly (no transition wrapper, no entry); one that calls a
; managed function that polls is warned about.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr @signal(i32, ptr)
declare i32 @sigaction(i32, ptr, ptr)
declare i64 @write(i32, ptr, i64)

@ticks = internal global i32 0
@byte = internal constant [1 x i8] c"t"
; A struct sigaction in a global: sa_handler first, then the mask and flags.
@global_action = internal global { ptr, [16 x i64], i32, ptr } { ptr @on_global, [16 x i64] zeroinitializer, i32 0, ptr null }

define internal void @on_signal(i32 %signal) {
  %t = load volatile i32, ptr @ticks
  %u = add i32 %t, 1
  store volatile i32 %u, ptr @ticks
  %w = call i64 @write(i32 1, ptr @byte, i64 1)
  ret void
}

define internal void @on_action(i32 %signal, ptr %info, ptr %context) {
  %w = call i64 @write(i32 2, ptr @byte, i64 1)
  ret void
}

define internal void @on_global(i32 %signal) {
  call void @helper()
  ret void
}

define internal void @helper() {
  %t = load volatile i32, ptr @ticks
  ret void
}

define internal void @on_helper(i32 %signal) {
  %w = call i64 @write(i32 3, ptr @byte, i64 1)
  ret void
}

; A helper installing the handler its caller passes.
define internal void @install_handler(i32 %signal, ptr %handler) {
  %action = alloca { ptr, [16 x i64], i32, ptr }
  store ptr %handler, ptr %action
  %r = call i32 @sigaction(i32 %signal, ptr %action, ptr null)
  ret void
}

; Not a handler: polls, and its C call has a wrapper.
define internal void @ordinary() {
  %w = call i64 @write(i32 1, ptr @byte, i64 1)
  ret void
}

define void @install() {
  %action = alloca { ptr, [16 x i64], i32, ptr }
  %old = call ptr @signal(i32 14, ptr @on_signal)
  store ptr @on_action, ptr %action
  %r = call i32 @sigaction(i32 10, ptr %action, ptr null)
  %g = call i32 @sigaction(i32 12, ptr @global_action, ptr null)
  call void @install_handler(i32 15, ptr @on_helper)
  call void @ordinary()
  ret void
}
