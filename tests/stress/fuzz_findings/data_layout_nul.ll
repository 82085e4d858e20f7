; A data layout holding a NUL byte (found by fuzz_corral_opt): LLVM accepts
; the junk after "e"; the C API reads the layout only up to the NUL, and the
; pass made it "ex:-ni:1", on which LLVM 19 calls report_fatal_error.
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128-ex:\00y"
target triple = "x86_64-pc-linux-gnu"

define ptr addrspace(1) @id(ptr addrspace(1) %r) gc "coreclr" {
  ret ptr addrspace(1) %r
}
