/* The heap gives pages back only inside its own reservation. This program
 * interposes madvise (the static runtime's call binds to ours) and checks
 * every range the heap returns while it is driven to heap_max and back.
 * Once the page-return bound ran past the reservation and MADV_DONTNEED
 * reset the next mapping, a library's GOT, which crashed mt-trees at 1.5x
 * live. */
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "c_trees.h"
#include "corral_test.h"
#include "heap.h"

static _Atomic unsigned returns_inside, returns_outside;
static _Atomic uintptr_t worst_end;

int madvise(void *address, size_t length, int advice)
{
    uintptr_t start = (uintptr_t)address, end = start + length;
    uintptr_t heap_base = (uintptr_t)corral_heap.base, heap_end = (uintptr_t)corral_heap.end;
    if (advice == MADV_DONTNEED && heap_base) {
        if (start >= heap_base && end <= heap_end) {
            atomic_fetch_add(&returns_inside, 1);
        } else {
            atomic_fetch_add(&returns_outside, 1);
            atomic_store(&worst_end, end);
            return 0; /* do not let it reset someone else's pages */
        }
    }
    return (int)syscall(SYS_madvise, address, length, advice);
}

/* Live data near half of heap_max makes the next budget the whole of
 * heap_max, whose page-return room then reaches past the reservation;
 * dropping the data afterwards gives back everything above the new room. */
static void limit_and_back(void *arg)
{
    const char *settings = arg;
    test_start(settings, true);
    corral_handle_scope scope = corral_handle_scope_open();
    for (int round = 0; round < 3; round++) {
        corral_handle live = corral_handle_new(make_tree(17)); /* 8 MiB of nodes */
        for (int i = 0; i < 8; i++)
            make_tree(12); /* garbage: allocation-triggered collections */
        corral_collect();
        is_int(checksum(*live), expected_checksum(17), "round %d: live tree intact", round);
        *live = NULL;
        corral_collect();
        corral_collect();
        const char *problem = heap_check();
        ok(!problem, "round %d: heap consistent (%s)", round, problem ? problem : "ok");
    }
    corral_handle_scope_close(scope);
    ok(atomic_load(&returns_inside) > 0, "the heap gave pages back (%u times)",
       atomic_load(&returns_inside));
    is_int(atomic_load(&returns_outside), 0,
           "no page given back outside the heap [%p, %p) (worst end %p)",
           (void *)corral_heap.base, (void *)corral_heap.end, (void *)atomic_load(&worst_end));
}

int main(void)
{
    plan(2);
    tap_subtest("heap_max 16M: filled to half, then emptied", 60, limit_and_back,
                "CORRAL_HEAP_MIN=4M CORRAL_HEAP_MAX=16M CORRAL_GC_THREADS=2");
    tap_subtest("heap_max 24M, expansiveness 32", 60, limit_and_back,
                "CORRAL_HEAP_MIN=4M CORRAL_HEAP_MAX=24M CORRAL_HEAP_EXPANSIVENESS=32 CORRAL_GC_THREADS=1");
    return done_testing();
}
