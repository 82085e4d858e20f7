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
#include <corral.h>
#include <stdint.h>
#include <stdio.h>

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef next;
    long value;
};

static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);

static noderef cache; /* the bug: never registered as a root */

static noderef new_node(long value, noderef next)
{
    noderef n = corral_alloc(&node_type);
    n->value = value;
    n->next = next;
    return n;
}

/* Exported (built with -rdynamic) so reports can name it. */
__attribute__((noinline)) long broken_unregistered_global(void)
{
    for (int i = 0; i < 100; i++)
        new_node(-1, NULL); /* garbage below the object, so it slides */
    noderef kept = new_node(42, new_node(7, NULL));
    cache = kept;
    corral_collect();
    long through_root = kept->value; /* kept is a root: it was relocated */
    return through_root + cache->value + cache->next->value;
}

int main(void)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    long result = broken_unregistered_global();
    printf("%ld\n", result);
    return result == 91 ? 0 : 1;
}
