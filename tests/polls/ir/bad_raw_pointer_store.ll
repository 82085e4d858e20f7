; A raw pointer made from a reference stored to memory the pass cannot
; follow: here a cursor slot the caller passes in (parse_text(&r->cursor, s));
; the pointer outlives the frame, so a frame pin cannot cover it, and a
; moving collection left it stale. (A local of the function's own, as in
; parse(&cursor), is covered by a frame pin: frame_pins.ll.) The second
; function pins the object first, which docs/managed-c.md allows; the third
; says that its caller holds the pin (corral_require_pinned, checked at run
; time).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i64 @parse(ptr)
declare void @corral_pin(ptr addrspace(1))
declare void @corral_require_pinned(ptr addrspace(1))

define i64 @parse_text(ptr %cursor, ptr addrspace(1) %text) {
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  store ptr %raw, ptr %cursor
  %n = call i64 @parse(ptr %cursor)
  ret i64 %n
}

define i64 @parse_pinned(ptr %cursor, ptr addrspace(1) %text) {
  call void @corral_pin(ptr addrspace(1) %text)
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  store ptr %raw, ptr %cursor
  %n = call i64 @parse(ptr %cursor)
  ret i64 %n
}

define i64 @parse_caller_pinned(ptr %cursor, ptr addrspace(1) %text) {
  call void @corral_require_pinned(ptr addrspace(1) %text)
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  store ptr %raw, ptr %cursor
  %n = call i64 @parse(ptr %cursor)
  ret i64 %n
}
