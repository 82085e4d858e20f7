/* broken_plain_c — deliberately broken plain-C embedder code (no corralc):
 *   broken_plain_c global    a reference kept in an unregistered C global
 *                            while a handle keeps the object alive: a
 *                            collection moves it, the global is stale
 *   broken_plain_c integer   the only copy of a reference is an integer
 *                            across an allocation that collects: the
 *                            object dies, the integer is stale
 *   broken_plain_c unzeroed  an allocation fast path of its own (as a JIT
 *                            might emit) that bumps the TLAB and writes only
 *                            the header: the node's other fields hold what
 *                            the TLAB held before
 *   broken_plain_c chain     not broken: the program's own SIGSEGV handler
 *                            (installed before corral_init) still gets the
 *                            faults that are not in quarantined memory
 * Each prints its result (91 and 42 when nothing moved or was reused) and
 * exits 0 on the right answer. Under CORRAL_GC_STRESS=quarantine,move-all
 * (with alloc:1 for the second) the stale use is reported; under
 * CORRAL_GC_STRESS=poison the unzeroed fields hold the poison pattern, which
 * the collector rejects (and CORRAL_TLAB_ZERO=1 makes the third right).
 * Used by quarantine_c.t and alloc_zeroing.t.
 */
#include <corral.h>
#include <corral/jit.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../c_trees.h"

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
    corral_handle child = corral_handle_new(new_node(7));
    ((node *)*keep)->left = *child;
    cache = *keep;
    corral_collect();
    long result = ((node *)*keep)->value + cache->value + cache->left->value;
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

/* The bug: no zeroing. Right only under CORRAL_TLAB_ZERO=1. */
static node *bump_without_zeroing(void)
{
    corral_tlab *tlab = corral_current_tlab();
    size_t bytes = sizeof(node);
    if (!tlab->cursor || bytes > (size_t)(tlab->limit - tlab->cursor))
        return corral_alloc(&node_type); /* the slow path: a new TLAB */
    node *n = (node *)tlab->cursor;
    tlab->cursor += bytes;
    n->header.type = &node_type;
    return n;
}

__attribute__((noinline)) long broken_plain_unzeroed(void)
{
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle keep = corral_handle_new(new_node(1));
    for (int i = 0; i < 100; i++) {
        node *n = bump_without_zeroing();
        n->value = 41;
        n->left = *keep; /* right is whatever the TLAB held */
        *keep = n;
    }
    corral_collect();
    long result = ((node *)*keep)->value + (((node *)*keep)->right != NULL);
    corral_handle_scope_close(scope);
    return result;
}

static char *guard_page;
static volatile sig_atomic_t own_handler_calls;

/* The host VM's handler: makes its guard page accessible and retries. */
static void own_handler(int signal, siginfo_t *info, void *context)
{
    (void)signal;
    (void)context;
    if ((char *)info->si_addr != guard_page)
        abort();
    own_handler_calls++;
    mprotect(guard_page, 4096, PROT_READ | PROT_WRITE);
}

static int chain(void)
{
    guard_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = own_handler;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    if (guard_page == MAP_FAILED || sigaction(SIGSEGV, &action, NULL) != 0 ||
        corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    corral_collect();
    guard_page[0] = 1; /* faults once: quarantine's handler passes it on */
    printf("own handler called %d times\n", (int)own_handler_calls);
    return own_handler_calls == 1 && guard_page[0] == 1 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "chain") == 0)
        return chain();
    if (argc != 2 || corral_init(NULL) != 0 || corral_thread_attach() != 0)
        return 2;
    if (strcmp(argv[1], "unzeroed") == 0) {
        long result = broken_plain_unzeroed();
        printf("%ld\n", result);
        return result == 41 ? 0 : 1;
    }
    bool global = strcmp(argv[1], "global") == 0;
    long result = global ? broken_plain_global() : broken_plain_integer();
    printf("%ld\n", result);
    return result == (global ? 91 : 42) ? 0 : 1;
}
