; llvm.gcroot in a function that is not gc "shadow-stack".
declare void @llvm.gcroot(ptr, ptr)

define void @wrong_strategy() gc "coreclr" {
  %root = alloca ptr
  call void @llvm.gcroot(ptr %root, ptr null)
  ret void
}
