; A stack array of references handed to plain C.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @use_array(ptr)

define void @stack_array(ptr addrspace(1) %r) {
  %array = alloca [4 x ptr addrspace(1)]
  store ptr addrspace(1) %r, ptr %array
  call void @use_array(ptr %array)
  ret void
}
