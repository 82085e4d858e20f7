; llvm.gcroot of something that is not an alloca (here a field of one).
declare void @llvm.gcroot(ptr, ptr)

define void @root_of_field() gc "shadow-stack" {
  %pair = alloca { ptr, ptr }
  %field = getelementptr { ptr, ptr }, ptr %pair, i32 0, i32 1
  call void @llvm.gcroot(ptr %field, ptr null)
  ret void
}
