; A gc name holding a newline (found by fuzz_corral_opt): the error must stay one line.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @two_lines() gc "first
second" {
  ret void
}
