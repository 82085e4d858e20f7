; gcroot functions whose slots --gcroot=promoted cannot keep in registers:
; each keeps its roots in a shadow-stack frame instead, as in shadow-stack
; mode (test_opt.c checks the push in both modes).
;   filled:    a slot's address is passed on (fill stores a root through it);
;   late_slot: a slot allocated outside the entry block;
;   sunk:      a load from a phi of two slots, as a frontend's own -O1 leaves
;              it when it sinks two loads into one.
declare void @llvm.gcroot(ptr, ptr)
declare void @fill(ptr)
declare void @g()
declare void @work(ptr)

define ptr @filled() gc "shadow-stack" {
entry:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  call void @fill(ptr %slot)
  %r = load ptr, ptr %slot
  ret ptr %r
}

define void @late_slot(i1 %flag, ptr %object) gc "shadow-stack" {
entry:
  br i1 %flag, label %rooted, label %done

rooted:
  %slot = alloca ptr
  call void @llvm.gcroot(ptr %slot, ptr null)
  store ptr %object, ptr %slot
  call void @g()
  %o = load ptr, ptr %slot
  call void @work(ptr %o)
  br label %done

done:
  ret void
}

define void @sunk(i1 %which, ptr %a, ptr %b) gc "shadow-stack" {
entry:
  %x = alloca ptr
  %y = alloca ptr
  call void @llvm.gcroot(ptr %x, ptr null)
  call void @llvm.gcroot(ptr %y, ptr null)
  store ptr %a, ptr %x
  store ptr %b, ptr %y
  call void @g()
  br i1 %which, label %left, label %right

left:
  br label %join

right:
  br label %join

join:
  %slot = phi ptr [ %x, %left ], [ %y, %right ]
  %v = load ptr, ptr %slot
  call void @work(ptr %v)
  ret void
}
