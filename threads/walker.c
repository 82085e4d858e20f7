/* walker.c — stack walking through stackmaps. */
#include "walker.h"

#include <stdlib.h>
#include <urcu.h>

#include "corral/abi.h"
#include "corral/shadow_stack.h"
#include "arch.h"
#include "fatal.h"
#include "stack_switch.h"
#include "stackmap/registry.h"
#include "symbolize.h"
#include "vec.h"

static void add_base(thread_roots *roots, void **slot)
{
    ARRAY_RESERVE(roots->bases, roots->base_capacity, roots->base_count + 1);
    roots->bases[roots->base_count++] = slot;
}

static void add_derived(thread_roots *roots, void **base, void **derived)
{
    ARRAY_RESERVE(roots->derived, roots->derived_capacity, roots->derived_count + 1);
    roots->derived[roots->derived_count++] = (root_pair){base, derived};
}

static _Noreturn void walk_failed(const corral_thread *thread, uintptr_t return_address,
                                  uintptr_t stack_pointer, size_t frames, const char *what)
{
    char symbol[256];
    corral_describe_return_address(return_address, symbol, sizeof symbol);
    CORRAL_FATAL("stack walk of %s (tid %d): %s at return address %#lx (%s), frame sp %#lx, "
                 "%zu managed frames walked",
                 thread->name, (int)thread->tid, what, (unsigned long)return_address, symbol,
                 (unsigned long)stack_pointer, frames);
}

/* The address of a spill slot [SP + n] or [FP + n] in a frame; NULL for
 * any other location. */
static void **spill_slot_address(const stackmap_slot *slot, uintptr_t sp, uintptr_t fp)
{
    if (slot->kind == STACKMAP_SLOT_INDIRECT) {
        if (slot->dwarf_reg == ARCH_DWARF_SP)
            return (void **)(sp + slot->offset);
        if (slot->dwarf_reg == ARCH_DWARF_FP)
            return (void **)(fp + slot->offset);
    }
    return NULL;
}

/* The CFA of a managed frame from its record, its SP at the call and its
 * frame pointer; 0 when they disagree. A dynamic frame on an architecture
 * whose CFA is not FP + 16 reads the CFA its entry saved (corral/abi.h). */
static uintptr_t record_frame_cfa(const stackmap_record *record, uintptr_t sp, uintptr_t fp)
{
    if (record->stack_size != STACKMAP_DYNAMIC_FRAME || !record->has_frame_cfa)
        return frame_cfa(sp, fp, record->stack_size);
    void **saved = spill_slot_address(&record->frame_cfa, sp, fp);
    return saved ? frame_cfa_from_saved(sp, fp, (uintptr_t)*saved) : 0;
}

/* The address of a GC pointer slot in a frame. */
static void **slot_address(const corral_thread *thread, const stackmap_record *record,
                           const stackmap_slot *slot, uintptr_t sp, uintptr_t fp, size_t frames)
{
    void **address = spill_slot_address(slot, sp, fp);
    if (address)
        return address;
    walk_failed(thread, record->return_address, sp, frames,
                "a GC pointer location the walker cannot address (only spill slots relative to "
                "the stack or frame pointer are supported; do not pass "
                "-max-registers-for-gc-values)");
}

static void record_frame(corral_thread *thread, const stackmap_record *record, uintptr_t sp,
                         uintptr_t fp, size_t frames)
{
    thread_roots *roots = &thread->roots;
    for (uint32_t i = 0; i < record->base_count; i++)
        add_base(roots, slot_address(thread, record, &record->bases[i], sp, fp, frames));
    for (uint32_t i = 0; i < record->derived_count; i++)
        add_derived(roots,
                    slot_address(thread, record, &record->derived[i].base, sp, fp, frames),
                    slot_address(thread, record, &record->derived[i].derived, sp, fp, frames));
}

/* Walks one managed segment from its anchor to its outermost frame; the
 * caller holds the RCU read lock the stackmap registry needs. */
static void walk_segment(corral_thread *thread, frame_anchor anchor, uintptr_t outer_cfa)
{
    uintptr_t return_address = anchor.return_address;
    uintptr_t sp = anchor.stack_pointer;
    uintptr_t fp = anchor.frame_pointer;
    size_t frames = 0;
    for (;;) {
        const stackmap_record *record = stackmap_lookup_in_read_section(return_address);
        if (!record)
            walk_failed(thread, return_address, sp, frames,
                        "a managed return address without a stackmap record");
        if (record->stack_size == STACKMAP_DYNAMIC_FRAME && !FRAME_DYNAMIC_WALKABLE &&
            !record->has_frame_cfa)
            walk_failed(thread, return_address, sp, frames,
                        "a managed frame with dynamic stack allocation (alloca or a VLA) whose "
                        "stackmap does not say where its CFA is saved, which " ARCH_NAME
                        " needs (code not compiled by corral-opt?)");
        uintptr_t cfa = record_frame_cfa(record, sp, fp);
        if (!cfa && record->has_frame_cfa)
            walk_failed(thread, return_address, sp, frames,
                        "the CFA a dynamic frame saved disagrees with its stack and frame "
                        "pointers (a corrupt frame?)");
        if (!cfa)
            walk_failed(thread, return_address, sp, frames,
                        "the stackmap's frame size disagrees with the frame pointer "
                        "(code built without frame pointers?)");
        record_frame(thread, record, sp, fp, frames);
        /* Its stores have no write barrier (generation_check_roots_from_stw). */
        if (record->id == CORRAL_ABI_GCROOT_STATEPOINT_ID)
            thread->roots.gcroot_promoted_frames++;
        frames++;
        if (cfa == outer_cfa)
            break;
        if (cfa > outer_cfa)
            walk_failed(thread, return_address, sp, frames,
                        "walked past the segment's outermost managed frame");
        return_address = frame_return_address(fp, cfa);
        fp = frame_caller_fp(fp);
        sp = cfa;
    }
    thread->roots.frames += frames;
}

/* Where walker_for_each_frame is: the frames of one stack so far, and the
 * segments and stacks before the current one. */
typedef struct frame_walk {
    walker_frame_fn *fn;
    void *context;
    size_t frame, segment, stack;
} frame_walk;

static void for_each_frame_of_stack(frame_walk *walk, frame_anchor anchor,
                                    const managed_segment *innermost)
{
    for (const managed_segment *segment = innermost; segment;
         segment = segment->previous, walk->segment++) {
        uintptr_t return_address = anchor.return_address, fp = anchor.frame_pointer;
        uintptr_t sp = anchor.stack_pointer;
        const stackmap_record *record;
        while (return_address && (record = stackmap_lookup_in_read_section(return_address))) {
            walk->fn(return_address, walk->frame++, walk->segment, walk->stack, walk->context);
            uintptr_t cfa = record_frame_cfa(record, sp, fp);
            if (!cfa || cfa >= segment->outer_cfa)
                break;
            return_address = frame_return_address(fp, cfa);
            fp = frame_caller_fp(fp);
            sp = cfa;
        }
        anchor = segment->previous_anchor;
    }
}

void walker_for_each_frame(const corral_thread *thread, walker_frame_fn *fn, void *context)
{
    frame_walk walk = {fn, context, 0, 0, 0};
    rcu_read_lock();
    for_each_frame_of_stack(&walk, thread->anchor, thread->segment);
    const suspended_stack *stack;
    cds_list_for_each_entry(stack, &thread->suspended_stacks, link) {
        walk.stack++;
        walk.segment = 0;
        for_each_frame_of_stack(&walk, stack->anchor, stack->segment);
    }
    rcu_read_unlock();
}

uintptr_t walker_outermost_managed_cfa(frame_anchor from)
{
    uintptr_t return_address = from.return_address;
    uintptr_t fp = from.frame_pointer, sp = from.stack_pointer;
    uintptr_t outermost = 0;
    const stackmap_record *record;
    rcu_read_lock();
    while ((record = stackmap_lookup_in_read_section(return_address))) {
        uintptr_t cfa = record_frame_cfa(record, sp, fp);
        if (!cfa)
            break;
        outermost = cfa;
        return_address = frame_return_address(fp, cfa);
        fp = frame_caller_fp(fp);
        sp = cfa;
    }
    rcu_read_unlock();
    return outermost;
}

uintptr_t walker_frame_cfa(frame_anchor at)
{
    rcu_read_lock();
    const stackmap_record *record = stackmap_lookup_in_read_section(at.return_address);
    uintptr_t cfa = record ? record_frame_cfa(record, at.stack_pointer, at.frame_pointer) : 0;
    rcu_read_unlock();
    return cfa;
}

/* More roots than any function has: a corrupt chain, not a frame. */
enum { SHADOW_STACK_MAX_ROOTS = 1 << 20 };
/* Beyond any frame's size: a run at a larger offset is a corrupt map. */
enum { FRAME_ROOTS_MAX_OFFSET = 1 << 30 };

static _Noreturn void bad_chain_entry(const corral_thread *thread, const char *chain,
                                      size_t index, const corral_shadow_stack_entry *entry,
                                      const void *map, const char *what)
{
    CORRAL_FATAL("stack walk of %s (tid %d): %s entry %zu at %p has a bad frame map %p (%s; "
                 "a frame not popped before its function left: longjmp or an exception "
                 "through code that pushed it?)",
                 thread->name, (int)thread->tid, chain, index, (const void *)entry, map, what);
}

/* The gcroot frames (corral/shadow_stack.h): every root slot is a base,
 * visited by marking and rewritten by compaction like a stackmap slot. The
 * slots live in frames that are on the stack until popped. Returns the
 * number of entries. */
static size_t walk_shadow_chain(corral_thread *thread, corral_shadow_stack_entry *head)
{
    const char *chain = "shadow-stack";
    size_t entries = 0;
    for (corral_shadow_stack_entry *entry = head; entry; entry = entry->next, entries++) {
        const corral_shadow_stack_map *map = entry->map;
        if (!map || map->root_count < 0 || map->root_count > SHADOW_STACK_MAX_ROOTS ||
            map->meta_count < 0 || map->meta_count > map->root_count)
            bad_chain_entry(thread, chain, entries, entry, map, "counts out of range");
        for (int32_t i = 0; i < map->root_count; i++)
            add_base(&thread->roots, &entry->roots[i]);
    }
    return entries;
}

/* The frames of managed functions keeping references in stack memory: the
 * whole-word roots after the header, then each run of reference words. */
static size_t walk_frame_roots_chain(corral_thread *thread, corral_shadow_stack_entry *head)
{
    const char *chain = "frame-root chain";
    size_t entries = 0;
    for (corral_shadow_stack_entry *entry = head; entry; entry = entry->next, entries++) {
        const corral_frame_roots_map *map =
            (const corral_frame_roots_map *)(const void *)entry->map;
        if (!map || map->root_count < 0 || map->root_count > SHADOW_STACK_MAX_ROOTS ||
            map->run_count < 0 || map->run_count > SHADOW_STACK_MAX_ROOTS)
            bad_chain_entry(thread, chain, entries, entry, map, "counts out of range");
        for (int32_t i = 0; i < map->root_count; i++)
            add_base(&thread->roots, &entry->roots[i]);
        for (int32_t r = 0; r < map->run_count; r++) {
            const corral_frame_roots_run *run = &map->runs[r];
            if (run->offset % sizeof(void *) != 0 || run->offset > FRAME_ROOTS_MAX_OFFSET ||
                run->words > SHADOW_STACK_MAX_ROOTS)
                bad_chain_entry(thread, chain, entries, entry, map, "a run out of range");
            void **words = (void **)(void *)((char *)entry + run->offset);
            for (uint32_t w = 0; w < run->words; w++)
                add_base(&thread->roots, &words[w]);
        }
    }
    return entries;
}

/* One stack's roots: its two chains and its managed segments. */
static void walk_stack(corral_thread *thread, corral_shadow_stack_entry *shadow_stack_head,
                       corral_shadow_stack_entry *frame_roots_head, frame_anchor anchor,
                       const managed_segment *innermost)
{
    thread->roots.shadow_stack_entries += walk_shadow_chain(thread, shadow_stack_head);
    thread->roots.frame_root_entries += walk_frame_roots_chain(thread, frame_roots_head);
    for (const managed_segment *segment = innermost; segment; segment = segment->previous) {
        if (anchor.return_address)
            walk_segment(thread, anchor, segment->outer_cfa);
        anchor = segment->previous_anchor;
    }
}

void walker_collect_roots_from_stw(corral_thread *thread)
{
    thread->roots.base_count = 0;
    thread->roots.derived_count = 0;
    thread->roots.frames = 0;
    thread->roots.shadow_stack_entries = 0;
    thread->roots.frame_root_entries = 0;
    thread->roots.gcroot_promoted_frames = 0;
    rcu_read_lock();
    walk_stack(thread, thread->shadow_stack_head ? *thread->shadow_stack_head : NULL,
               thread->frame_roots_head ? *thread->frame_roots_head : NULL, thread->anchor,
               thread->segment);
    const suspended_stack *stack;
    cds_list_for_each_entry(stack, &thread->suspended_stacks, link) {
        stack_switch_check_from_stw(thread, stack);
        walk_stack(thread, stack->shadow_stack_head, stack->frame_roots_head, stack->anchor,
                   stack->segment);
    }
    rcu_read_unlock();
}

void walker_update_roots_from_stw(corral_thread *thread, void *(*forward)(void *))
{
    thread_roots *roots = &thread->roots;
    for (size_t i = 0; i < roots->derived_count; i++) {
        char *old_base = *roots->derived[i].base;
        if (!old_base)
            continue;
        char *derived = *roots->derived[i].derived;
        *roots->derived[i].derived = (char *)forward(old_base) + (derived - old_base);
    }
    for (size_t i = 0; i < roots->base_count; i++)
        *roots->bases[i] = forward(*roots->bases[i]);
}
