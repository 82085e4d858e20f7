/* distance.c — the poll-distance report and the cycle verifier.
 *
 * A run is the sequence of IR instructions a thread executes between two
 * safepoint opportunities: function entry (the caller's call is a
 * statepoint), a poll, a statepoint call, and a return. A run's length
 * counts its instructions, the closing poll, call or ret included. The poll
 * distance of a function is its longest run; a strip-mined loop adds the
 * candidate interval x (instructions in the loop).
 *
 * Per block: in = longest run reaching its start; a block with no cut adds
 * all its instructions; a block with cuts ends the incoming run at the first
 * cut and starts a new one after the last. Blocks without cuts that form a
 * cycle are a loop without a poll: the verifier reports its header.
 */
#include "cfg.h"
#include "pass.h"

#include <stdint.h>
#include <stdlib.h>

#define DISTANCE_UNBOUNDED UINT64_MAX

typedef struct block_runs {
    int has_cut;
    uint64_t total;     /* no cut: every counted instruction */
    uint64_t head;      /* with cuts: up to and including the first cut */
    uint64_t tail;      /* with cuts: after the last cut, terminator included */
    uint64_t inner;     /* with cuts: the longest run between two cuts */
} block_runs;

typedef struct distance_walk {
    const polls_pass *pass;
    cfg graph;
    block_runs *runs;
    unsigned char *state;   /* 0 unvisited, 1 on the stack, 2 done */
    uint64_t *in;           /* longest run reaching the block's start */
    unsigned char *strip_mined_edge_from;  /* latch -> header edge is cut */
    size_t cycle_block;     /* a block on a poll-free cycle, or SIZE_MAX */
} distance_walk;

static int is_cut(const polls_pass *pass, LLVMValueRef inst)
{
    if (!is_call_site(inst))
        return 0;
    return classify_call(pass, inst) == CALL_POLL || call_is_statepoint(pass, inst);
}

static block_runs measure_block(const polls_pass *pass, LLVMBasicBlockRef block)
{
    block_runs runs = {0};
    uint64_t current = 0;
    for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst;
         inst = LLVMGetNextInstruction(inst)) {
        if (!is_counted_instruction(inst))
            continue;
        current++;
        if (!is_cut(pass, inst))
            continue;
        if (!runs.has_cut)
            runs.head = current;
        else if (current > runs.inner)
            runs.inner = current;
        runs.has_cut = 1;
        current = 0;
    }
    runs.total = current;
    runs.tail = current;
    return runs;
}

static uint64_t saturating_add(uint64_t a, uint64_t b)
{
    return a > DISTANCE_UNBOUNDED - b ? DISTANCE_UNBOUNDED : a + b;
}

static uint64_t run_out_of(distance_walk *walk, size_t block);

static int is_retreating(const distance_walk *walk, size_t from, size_t to)
{
    for (size_t i = 0; i < walk->graph.retreating.count; i++)
        if (walk->graph.retreating.items[i].from == from && walk->graph.retreating.items[i].to == to)
            return 1;
    return 0;
}

/* Longest run reaching block's start: the longest leaving any predecessor. */
static uint64_t run_into(distance_walk *walk, size_t block)
{
    if (walk->state[block] == 2)
        return walk->in[block];
    if (walk->state[block] == 1) {
        if (walk->cycle_block == SIZE_MAX)
            walk->cycle_block = block;
        return DISTANCE_UNBOUNDED;
    }
    walk->state[block] = 1;
    uint64_t longest = 0;
    const index_list *preds = &walk->graph.predecessors[block];
    for (size_t i = 0; i < preds->count; i++) {
        size_t pred = preds->items[i];
        if (!walk->graph.reachable[pred])
            continue;
        /* The backedge of a strip-mined loop: its poll is once per chunk. */
        if (walk->strip_mined_edge_from[pred] && is_retreating(walk, pred, block))
            continue;
        uint64_t out = run_out_of(walk, pred);
        if (out > longest)
            longest = out;
    }
    walk->state[block] = 2;
    walk->in[block] = longest;
    return longest;
}

static uint64_t run_out_of(distance_walk *walk, size_t block)
{
    const block_runs *runs = &walk->runs[block];
    if (runs->has_cut)
        return runs->tail;
    return saturating_add(run_into(walk, block), runs->total);
}

/* The interval recorded on a strip-mined latch branch, or 0. */
static unsigned strip_mined_interval(const polls_pass *pass, LLVMBasicBlockRef block)
{
    LLVMValueRef terminator = LLVMGetBasicBlockTerminator(block);
    if (!terminator || !LLVMHasMetadata(terminator))
        return 0;
    LLVMValueRef note = LLVMGetMetadata(terminator, pass->strip_mined_kind);
    if (!note)
        return 0;
    LLVMValueRef text_node = NULL;
    LLVMGetMDNodeOperands(note, &text_node);
    unsigned length = 0;
    const char *text = text_node ? LLVMGetMDString(text_node, &length) : NULL;
    return text ? (unsigned)strtoul(text, NULL, 10) : 0;
}

/* interval x the instructions of the strip-mined loop closed at latch. */
static uint64_t strip_mined_run(distance_walk *walk, size_t latch, unsigned interval)
{
    size_t header = SIZE_MAX;
    for (size_t i = 0; i < walk->graph.retreating.count; i++)
        if (walk->graph.retreating.items[i].from == latch)
            header = walk->graph.retreating.items[i].to;
    if (header == SIZE_MAX)
        return 0;
    unsigned char *in_loop = xcalloc(walk->graph.block_count, 1);
    cfg_loop_body(&walk->graph, latch, header, in_loop);
    uint64_t body = 0;
    for (size_t b = 0; b < walk->graph.block_count; b++)
        if (in_loop[b])
            body += walk->runs[b].has_cut ? walk->runs[b].head : walk->runs[b].total;
    free(in_loop);
    return body * interval;
}

static void report_cycle(polls_pass *pass, LLVMValueRef function, distance_walk *walk)
{
    LLVMBasicBlockRef header = walk->graph.blocks[walk->cycle_block];
    /* Prefer naming the target of a retreating edge into this cycle. */
    for (size_t i = 0; i < walk->graph.retreating.count; i++) {
        cfg_edge edge = walk->graph.retreating.items[i];
        if (!walk->runs[edge.to].has_cut && !walk->runs[edge.from].has_cut &&
            walk->state[edge.to] != 0 && !walk->strip_mined_edge_from[edge.from]) {
            header = walk->graph.blocks[edge.to];
            break;
        }
    }
    char *label = block_label(header);
    LLVMValueRef first = LLVMGetFirstInstruction(header);
    void (*report)(polls_pass *, LLVMValueRef, LLVMValueRef, const char *, ...) =
        pass->options.allow_unpolled_loops ? pass_warning : pass_error;
    report(pass, function, first,
           "loop with header %s has a path around it with no poll and no statepoint: "
           "enable loop polls (--polls=loop,...), or mark the function %s if it is "
           "hand-verified to be short",
           label, CORRAL_POLLS_ATTRIBUTE_NOPOLL);
    free(label);
}

void analyse_poll_distance(polls_pass *pass, LLVMValueRef function,
                           corral_polls_function_report *report)
{
    distance_walk walk = {.pass = pass, .cycle_block = SIZE_MAX};
    cfg_build(&walk.graph, function);
    size_t count = walk.graph.block_count;
    walk.runs = xcalloc(count, sizeof *walk.runs);
    walk.state = xcalloc(count, 1);
    walk.in = xcalloc(count, sizeof *walk.in);
    walk.strip_mined_edge_from = xcalloc(count, 1);
    uint64_t longest = 0;
    for (size_t b = 0; b < count; b++) {
        walk.runs[b] = measure_block(pass, walk.graph.blocks[b]);
        unsigned interval = strip_mined_interval(pass, walk.graph.blocks[b]);
        walk.strip_mined_edge_from[b] = interval > 0;
    }
    for (size_t b = 0; b < count; b++) {
        if (!walk.graph.reachable[b])
            continue;
        const block_runs *runs = &walk.runs[b];
        uint64_t in = run_into(&walk, b);
        uint64_t candidate = runs->has_cut ? saturating_add(in, runs->head) : saturating_add(in, runs->total);
        if (runs->has_cut && runs->inner > candidate)
            candidate = runs->inner;
        if (runs->has_cut && runs->tail > candidate)
            candidate = runs->tail;
        if (walk.strip_mined_edge_from[b]) {
            uint64_t chunk = strip_mined_run(&walk, b, strip_mined_interval(pass, walk.graph.blocks[b]));
            if (chunk > candidate)
                candidate = chunk;
        }
        if (candidate > longest)
            longest = candidate;
    }
    report->poll_distance = longest;
    if (walk.cycle_block != SIZE_MAX && !report->nopoll)
        report_cycle(pass, function, &walk);
    free(walk.runs);
    free(walk.state);
    free(walk.in);
    free(walk.strip_mined_edge_from);
    cfg_free(&walk.graph);
}
