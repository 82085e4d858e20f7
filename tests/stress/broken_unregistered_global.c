/* broken_unregistered_global — a deliberately broken managed program: a
 * reference kept in a global that was never corral_global_root_add'ed.
 *
 * The object stays alive through a local, so a moving collection moves it
 * and updates the local, but not the global. Without stress the object may
 * not move and the program prints 91; under move-all it reads whatever the
 * old address holds next (silently, without poison). Under
 * CORRAL_GC_STRESS=quarantine,move-all the old address is inaccessible and
 * the report says where the object went. Used by stress_modes.t.
 */
#include <stdint.h>
#include <stdio.h>

#include "../managed/trees.h"

/* The bug: never registered as a root. External, so corral-opt only warns
 * (C elsewhere could register it); a static one it rejects outright. */
noderef cache;

/* Exported (built with -rdynamic) so reports can name it. */
__attribute__((noinline)) long broken_unregistered_global(void)
{
    for (int i = 0; i < 100; i++)
        new_node(-1); /* garbage below the object, so it slides */
    noderef child = new_node(7);
    noderef kept = new_node(42);
    kept->left = child;
    cache = kept;
    corral_collect();
    long through_root = kept->value; /* kept is a root: it was relocated */
    return through_root + cache->value + cache->left->value;
}

int main(void)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    long result = broken_unregistered_global();
    printf("%ld\n", result);
    return result == 91 ? 0 : 1;
}
