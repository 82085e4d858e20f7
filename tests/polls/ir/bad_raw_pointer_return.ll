; A function that stays a call (external) returning a raw pointer made from
; a reference: the caller holds a C pointer the pass cannot follow, and a
; collection before its use left it stale (a `const char *text_of(str s)`
; accessor). Also through a select with C memory, and strchr's result on
; one, a pointer into the same object. Before 2026-11-29 the first was
; refused only when a return poll came between the cast and the return
; ("live across a poll"), and the others accepted. The pinned form, and
; results that point elsewhere (memcpy's destination, strdup's copy), are
; accepted: raw_pointer_return.ll. A select of two objects' bytes, of which
; only one is pinned, is refused.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@none = private constant [5 x i8] c"none\00"

define ptr @text_of(ptr addrspace(1) %text) {
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  ret ptr %raw
}

define ptr @text_or_none(ptr addrspace(1) %text, i1 %some) {
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  %chosen = select i1 %some, ptr %raw, ptr @none
  ret ptr %chosen
}

declare ptr @strchr(ptr, i32)

define ptr @after_comma(ptr addrspace(1) %text) {
  %data = getelementptr i8, ptr addrspace(1) %text, i64 16
  %raw = addrspacecast ptr addrspace(1) %data to ptr
  %comma = call ptr @strchr(ptr %raw, i32 44)
  ret ptr %comma
}

declare void @corral_require_pinned(ptr addrspace(1))

define ptr @either_text(ptr addrspace(1) %pinned, ptr addrspace(1) %other, i1 %which) {
  call void @corral_require_pinned(ptr addrspace(1) %pinned)
  %a = addrspacecast ptr addrspace(1) %pinned to ptr
  %b = addrspacecast ptr addrspace(1) %other to ptr
  %chosen = select i1 %which, ptr %a, ptr %b
  ret ptr %chosen
}
