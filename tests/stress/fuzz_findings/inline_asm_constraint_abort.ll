; Found by fuzz_corral_opt (2026-11-24): LLVM 19 parser crash, not corral code.
; llvm-as-19 aborts on it too: InlineAsm::ConstraintInfo::Parse throws
; std::length_error on the constraint "@x" (only "@cc..." is meant to follow @).
define i64 @f(i64 %w) {
  %b = call i64 asm "", "=r,@setjmp0"(i64 %w)
  ret i64 %b
}
