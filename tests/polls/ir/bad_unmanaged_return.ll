; Unmanaged C returning a reference.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr addrspace(1) @make()

define ptr addrspace(1) @take() {
  %r = call ptr addrspace(1) @make()
  ret ptr addrspace(1) %r
}
