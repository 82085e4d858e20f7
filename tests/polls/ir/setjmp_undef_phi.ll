; A reference phi whose incoming value is undef on the paths that never set
; the variable, in a function that calls setjmp: the pass keeps references
; (and the bases of derived ones) in root slots the collector reads, and an
; undef stored there is whatever a register held. It must be null (gen.py
; seed 85130: clang gives all computed gotos of a function one dispatch
; block, whose phis are undef for the variables of the other interpreters;
; tests/diff/findings/computed_goto_setjmp_base.c).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @_setjmp(ptr)

define void @g() noinline {
  ret void
}

define i64 @set_in_loop(ptr %buf, ptr addrspace(1) %seed, i1 %c) {
entry:
  %r = call i32 @_setjmp(ptr %buf)
  br label %loop
loop:
  %cur = phi ptr addrspace(1) [ undef, %entry ], [ %next, %loop ]
  %derived = phi ptr addrspace(1) [ poison, %entry ], [ %field, %loop ]
  call void @g()
  %next = getelementptr i8, ptr addrspace(1) %seed, i64 0
  %field = getelementptr i8, ptr addrspace(1) %seed, i64 8
  %a = load i64, ptr addrspace(1) %cur
  %b = load i64, ptr addrspace(1) %derived
  %sum = add i64 %a, %b
  br i1 %c, label %loop, label %done
done:
  ret i64 %sum
}
