/* An embedding VM with its own gc_collect, heap_init, mark_init,
 * threads_init and stats_init (names corral used internally before issue
 * 20): it links against libcorral, statically or dynamically (this file is
 * built both ways), and both its functions and corral's run, each reaching
 * its own. A clash would fail the link or call the wrong function. */
#include <corral.h>

#include "c_trees.h"
#include "tap.h"

static int vm_calls;

/* The VM's own, with the signatures a VM might choose: none is corral's. */
int gc_collect(int generation);
int heap_init(int megabytes);
int mark_init(int workers);
int threads_init(int count);
int stats_init(void);

int gc_collect(int generation)
{
    vm_calls++;
    return generation + 1;
}

int heap_init(int megabytes)
{
    vm_calls++;
    return megabytes * 2;
}

int mark_init(int workers)
{
    vm_calls++;
    return workers * 3;
}

int threads_init(int count)
{
    vm_calls++;
    return count - 1;
}

int stats_init(void)
{
    vm_calls++;
    return 42;
}

int main(void)
{
    plan(4);
    ok(heap_init(8) == 16 && mark_init(2) == 6 && threads_init(3) == 2 && stats_init() == 42,
       "the VM's heap_init, mark_init, threads_init and stats_init are its own");
    ok(corral_init(NULL) == 0 && corral_thread_attach() == 0, "corral starts beside them: %s",
       corral_last_error() ? corral_last_error() : "");
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle tree = corral_handle_new(make_tree(10));
    corral_collect();
    ok(checksum(*tree) == expected_checksum(10), "corral's collection ran and kept the tree");
    corral_handle_scope_close(scope);
    ok(gc_collect(1) == 2 && vm_calls == 5, "the VM's gc_collect is its own");
    corral_thread_detach();
    return done_testing();
}
