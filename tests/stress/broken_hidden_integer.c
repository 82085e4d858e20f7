/* broken_hidden_integer — a deliberately broken managed program: the only
 * copy of a reference is an integer while a collection may run.
 *
 * The pass rejects an integer made from a reference when the SSA value
 * itself is live across a safepoint; this program hides it in memory (a
 * volatile global, as a hash table keyed by address would), which no
 * compile-time check can follow. Without stress nothing collects there and
 * it prints 49. Under CORRAL_GC_STRESS=alloc:1,poison the allocation in the
 * middle collects, the node dies and its memory is poisoned; the stale
 * reference reads 0xbadc0ffee0ddf00d and the crash report names the seed,
 * the collection, the thread and the site. Used by stress_modes.t.
 */
#include <stdint.h>
#include <stdio.h>

#include "../managed/trees.h"

static const corral_type big_type = CORRAL_DATA_ARRAY_TYPE("long[] big", long);

static volatile uintptr_t hidden;

/* Exported (built with -rdynamic) so reports can name it. */
__attribute__((noinline)) long broken_hidden_integer(void)
{
    for (int i = 0; i < 100; i++)
        new_node(-1); /* garbage below the victim */
    noderef child = new_node(7);
    noderef victim = new_node(42);
    victim->left = child;
    hidden = (uintptr_t)victim; /* the bug: the only copy is an integer */
    corral_alloc_array(&big_type, 2000); /* a large object: always the slow path */
    noderef stale = (noderef)hidden;
    return stale->value + stale->left->value;
}

int main(void)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    long result = broken_hidden_integer();
    printf("%ld\n", result);
    return result == 49 ? 0 : 1;
}
