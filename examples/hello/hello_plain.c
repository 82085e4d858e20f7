/* hello_plain.c — plain C linked into hello_managed: compiled by the C
 * compiler, not by corralc, so it has no polls; managed code calls it
 * through a GC transition (it is unmanaged). */
#include <stdio.h>

/* The node count of a full binary tree of depth. */
long hello_expected_nodes(int depth)
{
    return (1L << (depth + 1)) - 1;
}
