; A gcroot slot allocated outside the entry block: fine on the shadow stack
; (the slot becomes a frame field), but --gcroot=promoted needs a static slot.
declare void @llvm.gcroot(ptr, ptr)
declare void @g()

define void @late_slot(i1 %flag) gc "shadow-stack" {
entry:
  br i1 %flag, label %rooted, label %done

rooted:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  call void @g()
  br label %done

done:
  ret void
}
