; A root loaded before a call and used after it, not reloaded from its slot:
; stale once the object moves. --gcroot=promoted rejects it.
@node_type = external global i8

declare void @llvm.gcroot(ptr, ptr)
declare ptr @corral_alloc_slow(ptr, i64)
declare void @g()

define i64 @held() gc "shadow-stack" {
entry:
  %node = alloca ptr
  call void @llvm.gcroot(ptr %node, ptr null)
  %new = call ptr @corral_alloc_slow(ptr @node_type, i64 0)
  store ptr %new, ptr %node
  call void @g()
  %kept = load ptr, ptr %node
  call void @g()
  %vp = getelementptr inbounds i8, ptr %kept, i64 24
  %v = load i64, ptr %vp
  ret i64 %v
}
