; A root that is not one object pointer.
declare void @llvm.gcroot(ptr, ptr)

define void @integer_root() gc "shadow-stack" {
  %word = alloca i64
  call void @llvm.gcroot(ptr %word, ptr null)
  ret void
}
