; ModuleID = 'fuzz-input'
source_filename = "fuzz-input"

; Function Attrs: noinline
define void @fill(ptr %out) #0 {
  call void @fill(ptr undef)
  call void @vla(ptr addrspace(1) null, i64 0)
  ret void
}

define void @vla(ptr addrspace(1) %r, i64 %n) {
  %array = alloca ptr addrspace(1), i64 0, align 8
  store ptr addrspace(1) %r, ptr %array, align 8
  call void @fill(ptr %array)
  ret void
}

attributes #0 = { noinline }
