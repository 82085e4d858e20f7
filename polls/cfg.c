/* cfg.c — block numbering, edges, DFS retreating edges and dominators. */
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

size_t cfg_block_index(const cfg *graph, LLVMBasicBlockRef block)
{
    uintptr_t index = 0;
    if (!ptr_table_get(&graph->index, block, &index))
        polls_fatal("cfg: block %p is not in this function", (void *)block);
    return (size_t)index;
}

static void cfg_number_blocks(cfg *graph, LLVMValueRef function)
{
    graph->block_count = LLVMCountBasicBlocks(function);
    graph->blocks = xcalloc(graph->block_count, sizeof *graph->blocks);
    LLVMGetBasicBlocks(function, graph->blocks);
    ptr_table_init(&graph->index);
    for (size_t i = 0; i < graph->block_count; i++)
        ptr_table_put(&graph->index, graph->blocks[i], i);
}

static int index_list_contains(const index_list *list, size_t value)
{
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i] == value)
            return 1;
    return 0;
}

static void cfg_link_edges(cfg *graph)
{
    graph->successors = xcalloc(graph->block_count, sizeof *graph->successors);
    graph->predecessors = xcalloc(graph->block_count, sizeof *graph->predecessors);
    for (size_t i = 0; i < graph->block_count; i++) {
        LLVMValueRef terminator = LLVMGetBasicBlockTerminator(graph->blocks[i]);
        if (!terminator)
            continue;
        unsigned count = LLVMGetNumSuccessors(terminator);
        for (unsigned s = 0; s < count; s++) {
            size_t to = cfg_block_index(graph, LLVMGetSuccessor(terminator, s));
            VEC_PUSH(graph->successors[i], to);
            if (!index_list_contains(&graph->predecessors[to], i))
                VEC_PUSH(graph->predecessors[to], i);
        }
    }
}

/* Iterative DFS: an edge to a block still on the stack is retreating. */
static void cfg_find_retreating_edges(cfg *graph)
{
    enum { WHITE, GREY, BLACK };
    unsigned char *colour = xcalloc(graph->block_count, 1);
    size_t *stack = xcalloc(graph->block_count, sizeof *stack);
    size_t *next_successor = xcalloc(graph->block_count, sizeof *next_successor);
    graph->reachable = xcalloc(graph->block_count, 1);
    size_t depth = 0;
    if (graph->block_count > 0) {
        stack[depth++] = 0;
        colour[0] = GREY;
        graph->reachable[0] = 1;
    }
    while (depth > 0) {
        size_t block = stack[depth - 1];
        if (next_successor[block] == graph->successors[block].count) {
            colour[block] = BLACK;
            VEC_PUSH(graph->postorder, block);
            depth--;
            continue;
        }
        size_t to = graph->successors[block].items[next_successor[block]++];
        if (colour[to] == GREY) {
            cfg_edge edge = {block, to};
            VEC_PUSH(graph->retreating, edge);
        } else if (colour[to] == WHITE) {
            colour[to] = GREY;
            graph->reachable[to] = 1;
            stack[depth++] = to;
        }
    }
    free(colour);
    free(stack);
    free(next_successor);
}

void cfg_build(cfg *graph, LLVMValueRef function)
{
    memset(graph, 0, sizeof *graph);
    cfg_number_blocks(graph, function);
    cfg_link_edges(graph);
    cfg_find_retreating_edges(graph);
}

void cfg_free(cfg *graph)
{
    for (size_t i = 0; i < graph->block_count; i++) {
        free(graph->successors[i].items);
        free(graph->predecessors[i].items);
    }
    free(graph->successors);
    free(graph->predecessors);
    free(graph->blocks);
    free(graph->reachable);
    free(graph->retreating.items);
    free(graph->postorder.items);
    ptr_table_free(&graph->index);
    memset(graph, 0, sizeof *graph);
}

void cfg_loop_body(const cfg *graph, size_t latch, size_t header, unsigned char *in_loop)
{
    memset(in_loop, 0, graph->block_count);
    size_t *worklist = xcalloc(graph->block_count + 1, sizeof *worklist);
    size_t pending = 0;
    in_loop[header] = 1;
    if (!in_loop[latch]) {
        in_loop[latch] = 1;
        worklist[pending++] = latch;
    }
    while (pending > 0) {
        size_t block = worklist[--pending];
        const index_list *preds = &graph->predecessors[block];
        for (size_t i = 0; i < preds->count; i++) {
            size_t pred = preds->items[i];
            if (!in_loop[pred] && graph->reachable[pred]) {
                in_loop[pred] = 1;
                worklist[pending++] = pred;
            }
        }
    }
    free(worklist);
}

/* The nearest common dominator of a and b (postorder numbers rank them). */
static size_t common_dominator(const size_t *idom, const size_t *rank, size_t a, size_t b)
{
    while (a != b) {
        while (rank[a] < rank[b])
            a = idom[a];
        while (rank[b] < rank[a])
            b = idom[b];
    }
    return a;
}

/* Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (2001):
 * iterate over the blocks in reverse postorder until nothing changes. */
size_t *cfg_immediate_dominators(const cfg *graph)
{
    size_t count = graph->block_count;
    size_t *idom = xcalloc(count ? count : 1, sizeof *idom);
    size_t *rank = xcalloc(count ? count : 1, sizeof *rank);
    for (size_t i = 0; i < count; i++)
        idom[i] = SIZE_MAX;
    for (size_t i = 0; i < graph->postorder.count; i++)
        rank[graph->postorder.items[i]] = i;
    if (count)
        idom[0] = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = graph->postorder.count; i-- > 0;) {
            size_t block = graph->postorder.items[i];
            if (block == 0)
                continue;
            size_t chosen = SIZE_MAX;
            const index_list *preds = &graph->predecessors[block];
            for (size_t p = 0; p < preds->count; p++) {
                size_t pred = preds->items[p];
                if (idom[pred] == SIZE_MAX)
                    continue; /* unreachable, or not processed yet */
                chosen = chosen == SIZE_MAX ? pred : common_dominator(idom, rank, pred, chosen);
            }
            if (chosen != SIZE_MAX && idom[block] != chosen) {
                idom[block] = chosen;
                changed = 1;
            }
        }
    }
    free(rank);
    return idom;
}

int cfg_dominates(const size_t *idom, size_t a, size_t b)
{
    for (;;) {
        if (b == a)
            return 1;
        if (b == 0 || idom[b] == SIZE_MAX)
            return 0;
        b = idom[b];
    }
}
