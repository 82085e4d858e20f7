/* fibers — managed code on many stacks per thread, switched by swapcontext.
 *
 * Each of two threads runs a scheduler of fibers (makecontext stacks). A
 * fiber recurses a random depth, each frame holding a node of its own and
 * its caller's chain, and yields to the scheduler at random points of the
 * descent and the climb back, so every collection meets stacks suspended
 * at every depth, the running one, and the thread's own. Fibers also store
 * their nodes into an array shared by the thread (old by then: the write
 * barrier, from every stack). When a fiber finishes, the scheduler checks
 * its result and makes a new one on the same stack; now and then it
 * abandons a suspended fiber instead and reuses its stack, after
 * corral_stack_forget. Each frame checks, after every yield and call,
 * that its locals still read their values.
 */
#include <ucontext.h>

#include "torture.h"

typedef struct node CORRAL_REF *noderef;
struct node {
    corral_header header;
    noderef next;
    long value;
    long owner;
};

static const uint32_t node_refs[] = {offsetof(struct node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", struct node, node_refs);
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("node[]");

enum { THREADS = 2, FIBERS = 6, STACK_SIZE = 256 * 1024, MAX_DEPTH = 40 };

typedef struct fiber {
    ucontext_t context;
    char *stack;
    long id;           /* owner tag of its nodes: unique per fiber made */
    int depth;         /* how deep it descends */
    int finished;
    long result;       /* the sum of its chain at the bottom */
} fiber;

typedef struct scheduler {
    ucontext_t home;
    fiber fibers[FIBERS];
    int current;
    long next_id;
    uint64_t random;
    corral_ref shared; /* node[]: each fiber's latest node; a root (registered) */
} scheduler;

static _Thread_local scheduler *running;

static noderef new_node(long value, long owner, noderef next)
{
    noderef n = corral_alloc(&node_type);
    n->value = value;
    n->owner = owner;
    n->next = next;
    return n;
}

static void maybe_yield(void)
{
    if (torture_below(&running->random, 3) == 0)
        swapcontext(&running->fibers[running->current].context, &running->home);
}

/* Garbage between the nodes, so collections slide them. */
static void garbage(void)
{
    for (long i = (long)torture_below(&running->random, 4); i > 0; i--)
        new_node(-1, -1, NULL);
}

/* A frame of the descent: its node, on its caller's chain. */
static long descend(int level, int depth, long owner, noderef chain)
{
    garbage();
    noderef mine = new_node(level, owner, chain);
    TORTURE_ELEMENTS(noderef, running->shared)[running->current] = mine;
    maybe_yield();
    long sum;
    if (level == depth) {
        sum = 0;
        for (noderef p = mine; p; p = p->next) {
            CHECK_EQ(p->owner, owner, "owner of a node on the chain");
            sum += p->value;
        }
    } else {
        sum = descend(level + 1, depth, owner, mine);
    }
    maybe_yield();
    CHECK_EQ(mine->value, level, "a frame's own node after the calls and yields below it");
    CHECK_EQ(mine->owner, owner, "its owner");
    CHECK(mine->next == chain, "its link to the caller's node moved with it (level %d)", level);
    return sum;
}

static void fiber_main(void)
{
    fiber *self = &running->fibers[running->current];
    self->result = descend(0, self->depth, self->id, NULL);
    self->finished = 1;
}

static void make_fiber(scheduler *s, int index)
{
    fiber *f = &s->fibers[index];
    f->id = s->next_id++;
    f->depth = (int)torture_below(&s->random, MAX_DEPTH);
    f->finished = 0;
    getcontext(&f->context);
    f->context.uc_stack.ss_sp = f->stack;
    f->context.uc_stack.ss_size = STACK_SIZE;
    f->context.uc_link = &s->home;
    makecontext(&f->context, fiber_main, 0);
}

static void *run_scheduler(void *argument)
{
    scheduler *s = calloc(1, sizeof *s);
    if (!s)
        TORTURE_FAIL("out of memory for a scheduler");
    running = s;
    s->random = torture_stream((uint64_t)(uintptr_t)argument);
    corral_global_root_add(&s->shared);
    s->shared = corral_alloc_array(&ref_array_type, FIBERS);
    for (int i = 0; i < FIBERS; i++) {
        s->fibers[i].stack = malloc(STACK_SIZE);
        if (!s->fibers[i].stack)
            TORTURE_FAIL("out of memory for a fiber's stack");
        make_fiber(s, i);
    }
    long fibers_run = torture_count(60, 12);
    long completed = 0, abandoned = 0;
    noderef own = new_node(7, -2, NULL);
    while (completed + abandoned < fibers_run) {
        int i = (int)torture_below(&s->random, FIBERS);
        fiber *f = &s->fibers[i];
        s->current = i;
        swapcontext(&s->home, &f->context);
        if (f->finished) {
            long depth = f->depth;
            CHECK_EQ(f->result, depth * (depth + 1) / 2, "a finished fiber's chain sum");
            completed++;
            make_fiber(s, i);
        } else if (torture_below(&s->random, 50) == 0) {
            corral_stack_forget(&f->context); /* abandoned mid-way; its stack reused */
            memset(f->stack, 0x5a, STACK_SIZE);
            abandoned++;
            make_fiber(s, i);
        }
        CHECK_EQ(own->value, 7, "the scheduler's own node");
    }
    for (int i = 0; i < FIBERS; i++) {
        corral_stack_forget(&s->fibers[i].context);
        free(s->fibers[i].stack);
    }
    corral_global_root_remove(&s->shared);
    free(s);
    return (void *)completed;
}

int main(int argc, char **argv)
{
    torture_start("fibers", argc, argv);
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        threads[i] = torture_spawn(run_scheduler, (void *)(i + 1));
    run_scheduler((void *)0);
    for (int i = 0; i < THREADS; i++)
        torture_join(threads[i]);
    return torture_finish();
}
