/* broken_plain_c — deliberately broken plain-C embedder code (no corralc):
 *   broken_plain_c global    a reference kept in an unregistered C global
 *                            while a handle keeps the object alive: a
 *                            collection moves it, the global is stale
 *   broken_plain_c integer   the only copy of a reference is an integer
 *                            across an allocation that collects: the
 *                            object dies, the integer is stale
 * Each prints its result (91 and 42 when nothing moved or was reused) and
 * exits 0 on the right answer. Under CORRAL_GC_STRESS=quarantine,move-all
 * (with alloc:1 for the second) the stale use is reported. Used by
 * stress_modes.t.
 */
#include <corral.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct node {
    corral_header header;
    struct node *next;
    long value;
} node;

static const uint32_t node_refs[] = {offsetof(node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", node, node_refs);
static const corral_type big_type = CORRAL_DATA_ARRAY_TYPE("long[] big", long);

static node *cache;               /* the bug: never corral_global_root_add'ed */
static volatile uintptr_t hidden; /* the bug: a reference as an integer */

static node *new_node(long value)
{
    node *n = corral_alloc(&node_type);
    n->value = value;
    return n;
}

/* Exported (linked with -rdynamic) so reports can name them. */
__attribute__((noinline)) long broken_plain_global(void)
{
    corral_handle_scope scope = corral_handle_scope_open();
    for (int i = 0; i < 100; i++)
        new_node(-1); /* garbage below the object, so it slides */
    corral_handle keep = corral_handle_new(new_node(42));
    corral_handle next = corral_handle_new(new_node(7));
    ((node *)*keep)->next = *next;
    cache = *keep;
    corral_collect();
    long result = ((node *)*keep)->value + cache->value + cache->next->value;
    corral_handle_scope_close(scope);
    return result;
}

__attribute__((noinline)) long broken_plain_integer(void)
{
    for (int i = 0; i < 100; i++)
        new_node(-1);
    hidden = (uintptr_t)new_node(42);
    corral_alloc_array(&big_type, 2000); /* may collect: the node is unreachable */
    return ((node *)hidden)->value;
}

int main(int argc, char **argv)
{
    if (argc != 2 || corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    bool global = strcmp(argv[1], "global") == 0;
    long result = global ? broken_plain_global() : broken_plain_integer();
    printf("%ld\n", result);
    return result == (global ? 91 : 42) ? 0 : 1;
}
