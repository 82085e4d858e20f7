/* cfg.h — a function's control-flow graph with numbered blocks.
 *
 * The LLVM-C API has no loop or dominator analysis. Poll placement needs
 * only the retreating edges of a depth-first search from the entry: every
 * cycle of the CFG, reducible or not, contains at least one, so a poll on
 * each of them leaves no cycle without a poll.
 */
#ifndef CORRAL_POLLS_CFG_H
#define CORRAL_POLLS_CFG_H

#include "ptr_table.h"
#include "util.h"

#include <llvm-c/Core.h>

typedef VEC(size_t) index_list;

typedef struct cfg_edge {
    size_t from, to;
} cfg_edge;

typedef struct cfg {
    size_t block_count;
    LLVMBasicBlockRef *blocks;  /* function order; blocks[0] is the entry */
    ptr_table index;            /* block -> position in blocks */
    index_list *successors;     /* per block, with repeats for switch cases */
    index_list *predecessors;   /* per block, unique */
    unsigned char *reachable;   /* from the entry */
    VEC(cfg_edge) retreating;   /* DFS retreating edges (latch -> header) */
    index_list postorder;       /* the reachable blocks, DFS postorder */
} cfg;

void cfg_build(cfg *graph, LLVMValueRef function);
void cfg_free(cfg *graph);
size_t cfg_block_index(const cfg *graph, LLVMBasicBlockRef block);
/* The blocks of the natural loop of backedge latch -> header: those that
 * reach latch without passing through header. in_loop[i] is set for each. */
void cfg_loop_body(const cfg *graph, size_t latch, size_t header, unsigned char *in_loop);
/* Each block's immediate dominator (the entry's is itself; SIZE_MAX for an
 * unreachable block); free it. */
size_t *cfg_immediate_dominators(const cfg *graph);
/* Whether block a dominates block b (every path from the entry to b passes
 * through a), under idom from cfg_immediate_dominators. */
int cfg_dominates(const size_t *idom, size_t a, size_t b);

#endif /* CORRAL_POLLS_CFG_H */
