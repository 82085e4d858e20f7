/* liveness.c — per-value liveness across safepoints, by walking backwards
 * from each use to the definition (SSA: the definition dominates every use). */
#include "liveness.h"

#include <stdlib.h>

static int counts(const polls_pass *pass, LLVMValueRef inst, safepoint_kinds kinds)
{
    if (!is_call_site(inst))
        return 0;
    if (is_setjmp_call(inst))
        return 1;
    return kinds == SAFEPOINTS_AND_SETJMP &&
           (classify_call(pass, inst) == CALL_POLL || call_is_statepoint(pass, inst));
}

void safepoint_map_build(safepoint_map *map, const polls_pass *pass, LLVMValueRef function)
{
    safepoint_map_build_at(map, pass, function, SAFEPOINTS_AND_SETJMP);
}

void safepoint_map_build_at(safepoint_map *map, const polls_pass *pass, LLVMValueRef function,
                            safepoint_kinds kinds)
{
    cfg_build(&map->graph, function);
    ptr_table_init(&map->position);
    map->safepoints = xcalloc(map->graph.block_count, sizeof *map->safepoints);
    map->calls = xcalloc(map->graph.block_count, sizeof *map->calls);
    for (size_t b = 0; b < map->graph.block_count; b++) {
        size_t index = 0;
        for (LLVMValueRef inst = LLVMGetFirstInstruction(map->graph.blocks[b]); inst;
             inst = LLVMGetNextInstruction(inst), index++) {
            ptr_table_put(&map->position, inst, index);
            if (counts(pass, inst, kinds)) {
                VEC_PUSH(map->safepoints[b], index);
                VEC_PUSH(map->calls[b], inst);
            }
        }
    }
}

void safepoint_map_free(safepoint_map *map)
{
    for (size_t b = 0; b < map->graph.block_count; b++) {
        free(map->safepoints[b].items);
        free(map->calls[b].items);
    }
    free(map->safepoints);
    free(map->calls);
    ptr_table_free(&map->position);
    cfg_free(&map->graph);
}

typedef struct live_walk {
    const safepoint_map *map;
    safepoint_filter counts;    /* NULL: every safepoint counts */
    void *counts_context;
    int through_safepoints;     /* only where it is live: no safepoint stops the walk */
    size_t def_block;
    long def_position;          /* -1 for arguments: before the first instruction */
    unsigned char *live_in;     /* blocks where the value is live on entry */
    size_t *worklist;
    size_t pending;
} live_walk;

/* The first safepoint that counts in block with after < position < before,
 * or NULL. */
static LLVMValueRef safepoint_between(const live_walk *walk, size_t block, long after,
                                      long before)
{
    const safepoint_map *map = walk->map;
    for (size_t i = 0; i < map->safepoints[block].count; i++) {
        long position = (long)map->safepoints[block].items[i];
        LLVMValueRef call = map->calls[block].items[i];
        if (position > after && position < before &&
            (!walk->counts || walk->counts(call, walk->counts_context)))
            return call;
    }
    return NULL;
}

/* The value is live from the start of block up to position (exclusive);
 * returns a safepoint crossed, and queues predecessors. */
static LLVMValueRef live_up_to(live_walk *walk, size_t block, long position)
{
    if (walk->through_safepoints)
        position = -1; /* no safepoint lies before it */
    if (block == walk->def_block)
        return safepoint_between(walk, block, walk->def_position, position);
    LLVMValueRef crossed = safepoint_between(walk, block, -1, position);
    if (crossed)
        return crossed;
    if (!walk->live_in[block]) {
        walk->live_in[block] = 1;
        walk->worklist[walk->pending++] = block;
    }
    return NULL;
}

/* A use by a phi happens at the end of the incoming block. */
static LLVMValueRef live_for_use(live_walk *walk, LLVMValueRef value, LLVMValueRef user)
{
    const safepoint_map *map = walk->map;
    if (LLVMIsAPHINode(user)) {
        unsigned count = LLVMCountIncoming(user);
        for (unsigned i = 0; i < count; i++) {
            if (LLVMGetIncomingValue(user, i) != value)
                continue;
            size_t from = cfg_block_index(&map->graph, LLVMGetIncomingBlock(user, i));
            LLVMValueRef crossed = live_up_to(walk, from, (long)1 << 40);
            if (crossed)
                return crossed;
        }
        return NULL;
    }
    uintptr_t position = 0;
    ptr_table_get(&map->position, user, &position);
    size_t block = cfg_block_index(&map->graph, LLVMGetInstructionParent(user));
    return live_up_to(walk, block, (long)position);
}

static LLVMValueRef walk_liveness(const safepoint_map *map, LLVMValueRef value,
                                  int through_safepoints, unsigned char *live_in,
                                  safepoint_filter counts, void *counts_context)
{
    live_walk walk = {.map = map, .counts = counts, .counts_context = counts_context,
                      .through_safepoints = through_safepoints, .def_block = 0,
                      .def_position = -1, .live_in = live_in};
    if (LLVMIsAInstruction(value)) {
        uintptr_t position = 0;
        ptr_table_get(&map->position, value, &position);
        walk.def_block = cfg_block_index(&map->graph, LLVMGetInstructionParent(value));
        walk.def_position = (long)position;
    }
    walk.worklist = xcalloc(map->graph.block_count + 1, sizeof *walk.worklist);
    LLVMValueRef crossed = NULL;
    for (LLVMUseRef use = LLVMGetFirstUse(value); use && !crossed; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsAInstruction(user))
            crossed = live_for_use(&walk, value, user);
    }
    /* Live on entry to a block: live at the end of each predecessor. */
    while (!crossed && walk.pending > 0) {
        size_t block = walk.worklist[--walk.pending];
        const index_list *preds = &map->graph.predecessors[block];
        for (size_t i = 0; i < preds->count && !crossed; i++)
            crossed = live_up_to(&walk, preds->items[i], (long)1 << 40);
    }
    free(walk.worklist);
    return crossed;
}

LLVMValueRef live_across_safepoint_where(const safepoint_map *map, LLVMValueRef value,
                                         safepoint_filter counts, void *context)
{
    unsigned char *live_in = xcalloc(map->graph.block_count, 1);
    LLVMValueRef crossed = walk_liveness(map, value, 0, live_in, counts, context);
    free(live_in);
    return crossed;
}

LLVMValueRef live_across_safepoint(const safepoint_map *map, LLVMValueRef value)
{
    return live_across_safepoint_where(map, value, NULL, NULL);
}

int live_into_block(const safepoint_map *map, LLVMValueRef value, LLVMBasicBlockRef block)
{
    unsigned char *live_in = xcalloc(map->graph.block_count, 1);
    walk_liveness(map, value, 1, live_in, NULL, NULL);
    int live = live_in[cfg_block_index(&map->graph, block)];
    free(live_in);
    return live;
}
