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

/* A second chain with the same entries: the frames of managed functions
 * that keep references in their own stack memory, where no stackmap can
 * describe them (polls/setjmp.c: references live across a setjmp call;
 * polls/stack_roots.c: address-taken reference locals, stack arrays and
 * structs of references, byval struct arguments, and, each an entry of its
 * own, stack memory of references allocated at run time; docs/managed-c.md
 * rules 1 and 6). Kept apart from the gcroot chain because their code has
 * write barriers: a minor collection may run with them. Its entries' maps
 * are corral_frame_roots_map, not LLVM's: constant, or (run-time memory)
 * inline in the entry, written before its push. Writer and reader as above;
 * corral_setjmp_returned also resets it after a longjmp, and the pass's code
 * before each llvm.stackrestore that frees run-time entries.
 *
 *   entry { next, map, roots[map->root_count], ... memory at run offsets }
 *   map   { root_count, run_count, runs[run_count] { offset, words } }
 *   run-time memory: { next, map = &inline, inline { 0, 1, { 32, words } }, words... }
 */
extern __thread corral_shadow_stack_entry *corral_frame_roots_head;

/* One run of reference words in a frame-root chain entry: words words of
 * pointer size from offset bytes after the entry's start. */
typedef struct corral_frame_roots_run {
    uint32_t offset;
    uint32_t words;
} corral_frame_roots_run;

/* A frame-root chain entry's map, constant: root_count whole-word roots
 * right after next and map (as in a gcroot frame, whose meta_count is zero
 * here), then run_count runs anywhere in the entry. Every word either holds
 * an object reference or is null. */
typedef struct corral_frame_roots_map {
    int32_t root_count;
    int32_t run_count;
    corral_frame_roots_run runs[];
} corral_frame_roots_map;

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* CORRAL_SHADOW_STACK_H */
