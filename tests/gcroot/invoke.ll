; gcroot code with exceptions, as clang++ would emit it for a frontend's try
; blocks (gc "shadow-stack", LLVM's documented style): calls that may throw
; are invokes, landing pads catch (catch-all) or clean up and resume. The
; thrower is C++ (throw.cpp), reached through a GC-transition wrapper, so
; under CORRAL_GC_STRESS=transitions a collection moves every object on the
; way in and on the way out, the unwind path included. The landing pads and
; normal destinations read their roots again from the slots: in promoted
; mode they must have been stored back, relocated, on both edges.
; Nodes are { header, left, right, value } of @gcroot_node_type.
;
;   new_node(v, left):      a node of value v whose left is left
;   pass_through(i, keep):  a node of value i whose left is keep, then
;                           gcroot_throw_if(i); its cleanup (when that
;                           throws) checks the node and adds 1 to keep's
;                           value (1000 if the node is wrong), then resumes;
;                           returns the thrower's result plus the node's value
;   gcroot_invoke_worker(rounds): per round i a node i on its list, then
;                           gcroot_throw_if(i) and pass_through(i, keep),
;                           both invoked with ONE catch-all landing pad (a phi
;                           says which threw), checking every value returned
;                           or thrown and the list head after each; at the
;                           end the whole list and keep's count of cleanups.
;                           Returns the number of wrong values.
;   gcroot_invoke_thread(failures): the test's thread body, 60 rounds.

@gcroot_node_type = external global i8

declare void @llvm.gcroot(ptr, ptr)
declare ptr @corral_alloc_slow(ptr, i64)
declare i64 @gcroot_throw_if(i64)
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()
declare i32 @__gxx_personality_v0(...)

define ptr @new_node(i64 %value, ptr %left) gc "shadow-stack" {
entry:
  %l = alloca ptr
  call void @llvm.gcroot(ptr %l, ptr null)
  store ptr %left, ptr %l
  %n = call ptr @corral_alloc_slow(ptr @gcroot_node_type, i64 0)
  %vp = getelementptr inbounds i8, ptr %n, i64 24
  store i64 %value, ptr %vp
  %l1 = load ptr, ptr %l
  %lp = getelementptr inbounds i8, ptr %n, i64 8
  store ptr %l1, ptr %lp
  ret ptr %n
}

define i64 @pass_through(i64 %i, ptr %keep) gc "shadow-stack" personality ptr @__gxx_personality_v0 {
entry:
  %kept = alloca ptr
  %node = alloca ptr
  call void @llvm.gcroot(ptr %kept, ptr null)
  call void @llvm.gcroot(ptr %node, ptr null)
  store ptr %keep, ptr %kept
  %k0 = load ptr, ptr %kept
  %n = call ptr @new_node(i64 %i, ptr %k0)
  store ptr %n, ptr %node
  %r = invoke i64 @gcroot_throw_if(i64 %i) to label %returned unwind label %cleanup

returned:
  %n1 = load ptr, ptr %node
  %vp1 = getelementptr inbounds i8, ptr %n1, i64 24
  %v1 = load i64, ptr %vp1
  %lp1 = getelementptr inbounds i8, ptr %n1, i64 8
  %left1 = load ptr, ptr %lp1
  %k1 = load ptr, ptr %kept
  %same1 = icmp eq ptr %left1, %k1
  %off1 = select i1 %same1, i64 0, i64 1000000
  %s1 = add i64 %r, %v1
  %s2 = add i64 %s1, %off1
  ret i64 %s2

cleanup:
  %pad = landingpad { ptr, i32 } cleanup
  %n2 = load ptr, ptr %node
  %vp2 = getelementptr inbounds i8, ptr %n2, i64 24
  %v2 = load i64, ptr %vp2
  %lp2 = getelementptr inbounds i8, ptr %n2, i64 8
  %left2 = load ptr, ptr %lp2
  %k2 = load ptr, ptr %kept
  %same2 = icmp eq ptr %left2, %k2
  %right_value = icmp eq i64 %v2, %i
  %good = and i1 %same2, %right_value
  %add = select i1 %good, i64 1, i64 1000
  %cp = getelementptr inbounds i8, ptr %k2, i64 24
  %count = load i64, ptr %cp
  %count1 = add i64 %count, %add
  store i64 %count1, ptr %cp
  resume { ptr, i32 } %pad
}

; Wrong values in the list from head: values n-1 down to 0.
define i64 @list_errors(ptr %head, i64 %n) gc "shadow-stack" {
entry:
  %cursor = alloca ptr
  %expect = alloca i64
  %bad = alloca i64
  call void @llvm.gcroot(ptr %cursor, ptr null)
  store ptr %head, ptr %cursor
  %top = sub i64 %n, 1
  store i64 %top, ptr %expect
  store i64 0, ptr %bad
  br label %test

test:
  %c = load ptr, ptr %cursor
  %more = icmp ne ptr %c, null
  br i1 %more, label %body, label %done

body:
  %c1 = load ptr, ptr %cursor
  %vp = getelementptr inbounds i8, ptr %c1, i64 24
  %v = load i64, ptr %vp
  %e = load i64, ptr %expect
  %wrong = icmp ne i64 %v, %e
  %w = zext i1 %wrong to i64
  %b0 = load i64, ptr %bad
  %b1 = add i64 %b0, %w
  store i64 %b1, ptr %bad
  %e1 = sub i64 %e, 1
  store i64 %e1, ptr %expect
  %np = getelementptr inbounds i8, ptr %c1, i64 8
  %next = load ptr, ptr %np
  store ptr %next, ptr %cursor
  br label %test

done:
  %e2 = load i64, ptr %expect
  %short = icmp ne i64 %e2, -1
  %s = zext i1 %short to i64
  %b2 = load i64, ptr %bad
  %b3 = add i64 %b2, %s
  ret i64 %b3
}

define i64 @gcroot_invoke_worker(i64 %rounds) gc "shadow-stack" personality ptr @__gxx_personality_v0 {
entry:
  %keep = alloca ptr
  %list = alloca ptr
  %bad = alloca i64
  %i = alloca i64
  %throws = alloca i64
  call void @llvm.gcroot(ptr %keep, ptr null)
  call void @llvm.gcroot(ptr %list, ptr null)
  store i64 0, ptr %bad
  store i64 0, ptr %i
  store i64 0, ptr %throws
  %k = call ptr @new_node(i64 0, ptr null)
  store ptr %k, ptr %keep
  br label %test

test:
  %i0 = load i64, ptr %i
  %more = icmp slt i64 %i0, %rounds
  br i1 %more, label %body, label %done

body:
  %l0 = load ptr, ptr %list
  %n = call ptr @new_node(i64 %i0, ptr %l0)
  store ptr %n, ptr %list
  %r = invoke i64 @gcroot_throw_if(i64 %i0) to label %direct.ok unwind label %caught

direct.ok:
  %twice = mul i64 %i0, 2
  %r_ok = icmp eq i64 %r, %twice
  %h1 = load ptr, ptr %list
  %hv1 = getelementptr inbounds i8, ptr %h1, i64 24
  %v1 = load i64, ptr %hv1
  %head_ok1 = icmp eq i64 %v1, %i0
  %ok1 = and i1 %r_ok, %head_ok1
  %w1 = select i1 %ok1, i64 0, i64 1
  %b1 = load i64, ptr %bad
  %b1n = add i64 %b1, %w1
  store i64 %b1n, ptr %bad
  br label %second

second:
  %k1 = load ptr, ptr %keep
  %s = invoke i64 @pass_through(i64 %i0, ptr %k1) to label %through.ok unwind label %caught

through.ok:
  %thrice = mul i64 %i0, 3
  %s_ok = icmp eq i64 %s, %thrice
  %w2 = select i1 %s_ok, i64 0, i64 1
  %b2 = load i64, ptr %bad
  %b2n = add i64 %b2, %w2
  store i64 %b2n, ptr %bad
  br label %next

; Both invokes unwind here: stage 1 the direct call, 2 through pass_through.
caught:
  %stage = phi i64 [ 1, %body ], [ 2, %second ]
  %pad = landingpad { ptr, i32 } catch ptr null
  %exn = extractvalue { ptr, i32 } %pad, 0
  %obj = call ptr @__cxa_begin_catch(ptr %exn)
  %thrown = load i64, ptr %obj
  call void @__cxa_end_catch()
  %t0 = load i64, ptr %throws
  %t1 = add i64 %t0, 1
  store i64 %t1, ptr %throws
  %thrown_ok = icmp eq i64 %thrown, %i0
  %h3 = load ptr, ptr %list
  %hv3 = getelementptr inbounds i8, ptr %h3, i64 24
  %v3 = load i64, ptr %hv3
  %head_ok3 = icmp eq i64 %v3, %i0
  %ok3 = and i1 %thrown_ok, %head_ok3
  %w3 = select i1 %ok3, i64 0, i64 1
  %b3 = load i64, ptr %bad
  %b3n = add i64 %b3, %w3
  store i64 %b3n, ptr %bad
  %first = icmp eq i64 %stage, 1
  br i1 %first, label %second, label %next

next:
  %i1 = add i64 %i0, 1
  store i64 %i1, ptr %i
  br label %test

done:
  ; Every multiple of 3 threw twice, once through pass_through's cleanup.
  %l9 = load ptr, ptr %list
  %le = call i64 @list_errors(ptr %l9, i64 %rounds)
  %k9 = load ptr, ptr %keep
  %cp = getelementptr inbounds i8, ptr %k9, i64 24
  %cleanups = load i64, ptr %cp
  %t9 = load i64, ptr %throws
  %half = udiv i64 %t9, 2
  %cleanups_ok = icmp eq i64 %cleanups, %half
  %thirds = add i64 %rounds, 2
  %multiples = udiv i64 %thirds, 3
  %throws_ok = icmp eq i64 %half, %multiples
  %counts_ok = and i1 %cleanups_ok, %throws_ok
  %w9 = select i1 %counts_ok, i64 0, i64 1
  %b9 = load i64, ptr %bad
  %b9a = add i64 %b9, %w9
  %b9b = add i64 %b9a, %le
  ret i64 %b9b
}

define ptr @gcroot_invoke_thread(ptr %failures) {
entry:
  %bad = call i64 @gcroot_invoke_worker(i64 60)
  store i64 %bad, ptr %failures
  ret ptr null
}
