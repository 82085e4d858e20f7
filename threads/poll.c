/* poll.c — the polling page and the poll slow path. */
#include <corral.h>
#include <stdatomic.h>

#include "coordinator.h"
#include "entry.h"
#include "fatal.h"

/* One page holding only the poll word, so a trap mode can protect it.
 * Writer: the coordinator (poll_arm/poll_disarm, release). Readers: every
 * compiled poll (relaxed load) and the slow path (acquire). */
__attribute__((aligned(4096))) volatile uint64_t corral_poll_page[4096 / sizeof(uint64_t)];

/* Set at init (before threads run) by the stress modes. */
static poll_hook_fn poll_hook;

/* The poll word counts the reasons to take the slow path: a collection, each
 * pending handshake, the stress "polls" mode. Writers: coordinator, handshake
 * requesters, init (atomic add/sub, release); readers: polls. */

static _Atomic uint64_t *poll_word(void)
{
    return (_Atomic uint64_t *)&corral_poll_page[0];
}

void poll_arm(void)
{
    atomic_fetch_add_explicit(poll_word(), 1, memory_order_release);
}

void poll_disarm(void)
{
    atomic_fetch_sub_explicit(poll_word(), 1, memory_order_release);
}

void poll_set_hook(poll_hook_fn hook)
{
    poll_hook = hook;
}

void poll_set_always_slow(bool always)
{
    if (always)
        poll_arm();
}

CORRAL_RUNTIME_ENTRY void corral_poll_slow(void)
{
    corral_thread *self = corral_current_thread;
    /* A thread's first managed function polls at entry before it attaches. */
    if (!self)
        return;
    /* A stopped thread cannot poll: managed code is running inside a
     * collection (a trace hook, finalizer or GC callback compiled as managed
     * code), which would park the collector on itself. */
    if (atomic_load_explicit(&self->state, memory_order_relaxed) != THREAD_MANAGED)
        CORRAL_FATAL("a safepoint poll on %s while it is %s: managed code is running inside a "
                     "collection or a GC transition (trace hooks, finalizers and GC callbacks "
                     "must be plain C or marked CORRAL_NOPOLL and make no calls)",
                     self->name,
                     atomic_load_explicit(&self->state, memory_order_relaxed) == THREAD_PARKED
                         ? "PARKED"
                         : "UNMANAGED");
    RUNTIME_ENTER(self);
    if (atomic_load_explicit(&self->handshake_pending, memory_order_acquire))
        thread_handshake_poll(self);
    if (poll_hook)
        poll_hook(self);
    /* acquire: pairs with poll_arm, so a stop we saw armed shows its epoch. */
    (void)atomic_load_explicit(poll_word(), memory_order_acquire);
    if (gc_epoch_in_progress(atomic_load_explicit(&corral_gc_epoch, memory_order_acquire)))
        world_park_self(self);
    RUNTIME_LEAVE(self);
}
