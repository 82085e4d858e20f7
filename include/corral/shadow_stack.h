/* corral/shadow_stack.h — the shadow stack of functions compiled from
 * @llvm.gcroot (gc "shadow-stack"; docs/gcroot.md), one chain per thread.
 *
 * The layout is LLVM's (ShadowStackGCLowering, "Accurate Garbage Collection
 * with LLVM"): each function with roots pushes an entry on entry and pops it
 * at every return. What differs is the chain head: LLVM's is one global,
 * llvm_gc_root_chain, so only one mutator thread can run; corral's is
 * thread-local, and the collector walks every stopped thread's chain,
 * visiting and updating each root (objects move).
 *
 *   corral_shadow_stack_head ──> entry (innermost frame) ──next──> entry ──> NULL
 *                                 { next, map, roots[map->root_count] }
 *                                          └──> map { root_count, meta_count, meta[] }
 */
#ifndef CORRAL_SHADOW_STACK_H
#define CORRAL_SHADOW_STACK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* One per function, constant: LLVM's FrameMap. Roots with metadata come
 * first, so meta_count <= root_count. */
typedef struct corral_shadow_stack_map {
    int32_t root_count;
    int32_t meta_count;
    const void *meta[];
} corral_shadow_stack_map;

/* One per active call of such a function, in its stack frame: LLVM's
 * StackEntry. Each root holds an object reference or null. */
typedef struct corral_shadow_stack_entry {
    struct corral_shadow_stack_entry *next; /* the caller's entry (or older) */
    const corral_shadow_stack_map *map;
    void *roots[];
} corral_shadow_stack_entry;

/* The calling thread's innermost entry. Writer: the owning thread (pushes and
 * pops emitted by corral-opt, plain stores). Reader: the collector, while the
 * thread is stopped (its release store of PARKED or UNMANAGED ordered every
 * push and pop before). */
extern __thread corral_shadow_stack_entry *corral_shadow_stack_head;

/* A second chain with the same layout: the frames of managed functions that
 * keep references live across a setjmp call in memory (polls/setjmp.c,
 * docs/managed-c.md rule 6). Kept apart from the gcroot chain because their
 * code has write barriers: a minor collection may run with them. Writer and
 * reader as above; corral_setjmp_returned also resets it after a longjmp. */
extern __thread corral_shadow_stack_entry *corral_setjmp_roots_head;

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* CORRAL_SHADOW_STACK_H */
