; An interior reference chosen by a phi (the slot a loop found) returned by
; an external function: its caller would take it for an object start. The
; check once looked only at a getelementptr returned directly, and such a
; program crashed the collector (tests/diff/findings/interior_phi_return.c).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define ptr addrspace(1) @last_slot(ptr addrspace(1) %array, i64 %n) {
entry:
  %first = getelementptr i8, ptr addrspace(1) %array, i64 16
  br label %loop
loop:
  %slot = phi ptr addrspace(1) [ %first, %entry ], [ %next, %loop ]
  %i = phi i64 [ 1, %entry ], [ %i.next, %loop ]
  %next = getelementptr i8, ptr addrspace(1) %slot, i64 8
  %i.next = add i64 %i, 1
  %done = icmp uge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret ptr addrspace(1) %slot
}
