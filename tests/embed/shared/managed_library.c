/* managed_library.c — managed C built by corralc -shared into a library
 * that host.c loads. Its frames are on the stack across every collection,
 * so they are walked through the stackmaps the library registered. */
#include <corral.h>

#include "trees.h"

/* Returns the number of trees that came back wrong after a collection. */
void *managed_library_run(void *rounds)
{
    noderef keep = make_tree(8);
    long wrong = 0;
    for (long i = 0; i < (long)rounds; i++) {
        noderef young = make_tree(4);
        corral_collect();
        if (checksum(young) != expected_checksum(4) || checksum(keep) != expected_checksum(8))
            wrong++;
    }
    return (void *)wrong;
}
