/* uses_api.c — plain C (or C++) that includes every public header and uses
 * the inline fast paths and type macros; test_headers.c compiles it with
 * each compiler at -Wall -Wextra -Werror. */
#include <corral.h>
#include <corral/jit.h>
#include <stddef.h>

typedef struct node {
    corral_header header;
    struct node *left;
    long value;
} node;

static const uint32_t node_refs[] = {offsetof(node, left)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", node, node_refs);
static const corral_type refs_type = CORRAL_REF_ARRAY_TYPE("refs");

int main(void)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 1;
    node *tree = (node *)corral_alloc(&node_type);
    void *array = corral_alloc_array(&refs_type, 3);
    corral_poll();
    int fine = tree && array;
    corral_thread_detach();
    return fine ? 0 : 1;
}
