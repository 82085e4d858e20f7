/* leaf_library.c — managed C with no call that can reach a safepoint: one
 * reference store. Built with --polls=loop (no entry or return polls), it
 * has no stackmap record but the module's barrier mark (polls/polls.c), the
 * only way the runtime can tell whether it was built with the barriers its
 * configuration needs. host.c passes a count, not a node: nothing is stored. */
#include <corral.h>
#include <stdint.h>

#include "trees.h"

void *managed_library_run(void *argument)
{
    noderef node = (noderef)argument;
    if ((uintptr_t)argument > 4096)
        node->left = node->right;
    return (void *)0;
}
