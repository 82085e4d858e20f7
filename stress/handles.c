/* handles — plain C holding references in handles next to managed code.
 *
 * Two threads run an interpreter written in plain C (handles_c.c): it turns
 * MANAGED with corral_leave_unmanaged, keeps every reference in a handle
 * (nested scopes, temporaries), allocates through the inline fast path from
 * C, polls with corral_poll() and collects explicitly, and checks its lists
 * against sums it tracks. Managed threads allocate meanwhile and read a
 * global root that the C side keeps rewriting.
 */
#include "torture.h"

#include "handles.h"

enum { INTERPRETERS = 2, MANAGED_THREADS = 1 };

static long steps;
static _Atomic int interpreters_done;

static void *interpreter_thread(void *arg)
{
    long self = (long)arg;
    cellref mine = corral_alloc(&cell_type); /* a managed frame below the C one */
    mine->value = self;
    long wrong = c_interpret(steps, (unsigned long)torture_stream((uint64_t)self));
    CHECK_EQ(wrong, 0, "wrong values seen by the C interpreter");
    CHECK_EQ(mine->value, self, "a managed local held across the interpreter");
    interpreters_done++;
    return NULL;
}

static void *managed_thread(void *arg)
{
    (void)arg;
    while (interpreters_done < INTERPRETERS) {
        cellref list = NULL;
        for (int i = 0; i < 200; i++) {
            cellref c = corral_alloc(&cell_type);
            c->value = i;
            c->next = list;
            list = c;
        }
        long sum = 0;
        for (cellref c = list; c; c = c->next)
            sum += c->value;
        CHECK_EQ(sum, 199 * 200 / 2, "a managed list beside the interpreters");
        cellref global = (cellref)c_global;
        if (global)
            CHECK(global->header.type == &cell_type, "the C side's global root holds a cell");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    torture_start("handles", argc, argv);
    steps = torture_count(20000, 500);
    corral_global_root_add(&c_global);
    pthread_t threads[INTERPRETERS + MANAGED_THREADS];
    for (long i = 0; i < INTERPRETERS; i++)
        threads[i] = torture_spawn(interpreter_thread, (void *)(i + 1));
    for (long i = 0; i < MANAGED_THREADS; i++)
        threads[INTERPRETERS + i] = torture_spawn(managed_thread, NULL);
    for (int i = 0; i < INTERPRETERS + MANAGED_THREADS; i++)
        torture_join(threads[i]);
    corral_global_root_remove(&c_global);
    return torture_finish();
}
