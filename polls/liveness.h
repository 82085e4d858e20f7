/* liveness.h — is an SSA value live across a safepoint?
 *
 * A safepoint here is a poll (a call of gc.safepoint_poll, before inlining),
 * a call that RS4GC will make a statepoint, or a setjmp call (setjmp.c). A value is live across one
 * when the safepoint lies strictly between the value's definition and a use
 * on some path. RS4GC relocates live references; everything this module is
 * asked about is what it cannot relocate (integers made from references,
 * aggregates holding references).
 */
#ifndef CORRAL_POLLS_LIVENESS_H
#define CORRAL_POLLS_LIVENESS_H

#include "cfg.h"
#include "pass.h"

typedef struct safepoint_map {
    cfg graph;
    ptr_table position;          /* instruction -> index within its block */
    VEC(size_t) *safepoints;     /* per block: positions of safepoints, ascending */
    VEC(LLVMValueRef) *calls;    /* per block: the safepoint instructions, same order */
} safepoint_map;

/* Which calls count: safepoints (polls, statepoints) and setjmp calls, which
 * return again after whatever collections ran before the longjmp; or the
 * setjmp calls alone. */
typedef enum safepoint_kinds { SAFEPOINTS_AND_SETJMP, SAFEPOINTS_SETJMP_ONLY } safepoint_kinds;

void safepoint_map_build(safepoint_map *map, const polls_pass *pass, LLVMValueRef function);
void safepoint_map_build_at(safepoint_map *map, const polls_pass *pass, LLVMValueRef function,
                            safepoint_kinds kinds);
void safepoint_map_free(safepoint_map *map);
/* Returns the first safepoint value is live across, or NULL. */
LLVMValueRef live_across_safepoint(const safepoint_map *map, LLVMValueRef value);
/* The same, counting only the safepoints for which counts(safepoint,
 * context) is true. */
typedef int (*safepoint_filter)(LLVMValueRef safepoint, void *context);
LLVMValueRef live_across_safepoint_where(const safepoint_map *map, LLVMValueRef value,
                                         safepoint_filter counts, void *context);
/* Whether value is live on entry to block (safepoints do not matter). */
int live_into_block(const safepoint_map *map, LLVMValueRef value, LLVMBasicBlockRef block);

#endif /* CORRAL_POLLS_LIVENESS_H */
