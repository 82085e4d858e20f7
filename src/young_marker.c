/* young_marker.c — concurrent minor collections (young_marker.h). */
#include "young_marker.h"

#include <corral.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "barrier.h"
#include "coordinator.h"
#include "fatal.h"
#include "generation.h"
#include "heap.h"
#include "mark.h"
#include "remset.h"
#include "satb_log.h"
#include "stats.h"
#include "thread.h"
#include "typed_space.h"
#include "workers.h"

/* Set by young_marker_init before any thread attaches; read-only afterwards. */
static bool enabled;

/* A concurrent collection is open: its first pause ran, its second has
 * not. Writer: the collector, world stopped (relaxed; the world's restart
 * orders it), and the fork child handler. Readers: anyone. */
static _Atomic bool open;

/* The marker thread: started at the first concurrent collection, parked
 * between collections (a thread per collection cost tens of microseconds
 * in every first pause).
 *
 *            start_marker (first pause)
 *   ABSENT ─────────────────────────────> MARKING ──> (traced all, or
 *     ^      PARKED ──────────────────────>  ^   │      stop_requested)
 *     │        ^     start_marker            │   v
 *     │        └─────────────────────────────┴── PARKED (broadcasts marker_event)
 *     └── fork child (the thread is gone): ABSENT, torn if it was MARKING
 *
 * marker_lock guards marker_state and hands the grey set over: the collector
 * fills it before setting MARKING, the marker gives it back by setting PARKED.
 * Writers of marker_state: the collector (→ MARKING), the marker (→ PARKED),
 * the fork child handler (→ ABSENT). */
enum marker_state { MARKER_ABSENT, MARKER_PARKED, MARKER_MARKING };
static pthread_mutex_t marker_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t marker_wake = PTHREAD_COND_INITIALIZER; /* → MARKING */
/* Broadcast, under marker_lock, on → PARKED, on every change of the shared
 * pool or of the assisters below, and on a stop request: young_marker_stop,
 * the marker and assisters wait on it for their own condition. */
static pthread_cond_t marker_event = PTHREAD_COND_INITIALIZER;
static enum marker_state marker_state;

/* Helper markers (CORRAL_GC_CONCURRENT_MARKERS - 1 threads): started with
 * the marker, they mark beside it from the pool as mutator assists do, one
 * round per collection, so marking does not wait for a mutator to reach its
 * limit before it runs on more than one core:
 *
 *   WAITING ── marker_round moves past helped_round, marker MARKING ──> HELPING
 *      ^                         (helped_round := marker_round, assisters++)   │
 *      └──────── the marking done or stopped (assisters--) ────────────────────┘
 *
 * helpers_wanted: set by young_marker_init (before any thread attaches).
 * helpers_started and marker_round: written under marker_lock by
 * start_marker (the collector, world stopped) and the fork child handler;
 * read under marker_lock by the helpers. A stop waits for them as for any
 * assister. */
static unsigned helpers_wanted, helpers_started;
static uint64_t marker_round;
/* What helpers traced, this collection and in all: written by the helpers
 * under marker_lock, the round's reset by start_marker; read by the
 * collector (world stopped, the marking stopped) and by tests (relaxed). */
static uint64_t helped_round_bytes;
static _Atomic uint64_t helped_total_bytes;

/* Set to ask the marker and the assisters to stop: writer, whoever holds
 * marker_lock to stop them; readers, they every few objects (relaxed:
 * marker_lock orders everything after). */
static _Atomic bool stop_requested;

/* Mutator assists: a mutator whose allocation reached its limit while the
 * marker marks (young_marker_assist) marks beside it rather than wait, so
 * marking runs on two cores, as Go's mutator assists do:
 *
 *   assister: the pool empty: ask the marker to share (share_requested) and
 *             wait; else take ASSIST_TAKE objects, trace at most
 *             ASSIST_BUDGET, give the rest back to the pool; again, until
 *             the marking is done or stopped.
 *   marker:   share_requested: half its grey set into the pool. Its own set
 *             empty: take the pool; none, while an assister holds objects:
 *             wait for them; none held: the full logs; nothing anywhere: done.
 *
 * Guarded by marker_lock: pool, holders (assisters holding objects taken
 * from the pool), assisters (inside young_marker_assist) and
 * assisted_totals (what they scanned, merged into totals once they are out).
 * share_requested: set by an assister and cleared by the marker under
 * marker_lock; the marker polls it (relaxed) while tracing. */
static mark_grey pool;
static unsigned holders, assisters;
static mark_totals assisted_totals;
static _Atomic bool share_requested;
/* Objects an assister takes from the pool at a time, and scans before it
 * gives the rest back (so the marker, waiting for holders, is not idle long). */
enum { ASSIST_TAKE = 256, ASSIST_BUDGET = 4096 };
/* The marker traced everything it was given, the pool, what assisters held
 * and every full log. Writer: the marker (relaxed, under marker_lock),
 * cleared by the collector, world stopped. Readers: mutators on the
 * allocation slow path, who then ask for the second pause, and assisters. */
static _Atomic bool done;
/* The marking state did not survive a fork into this child. Written by the
 * child handler, cleared by the collector (world stopped). */
static bool torn_by_fork;

/* The objects marked and not yet scanned, and what the marker scanned.
 * Owned by the marker while MARKING, by the collector otherwise (handed
 * over under marker_lock). */
static mark_grey grey;
static mark_totals totals;

/* Written by the collector, world stopped: the old space's size before
 * marking (the memory being marked counts as live while it runs), the young
 * bytes being marked, what was allocated since marking began, and when it
 * began. Read by the collector, and old_space_before by mutators on the
 * allocation slow path while a collection is open (the world's restart
 * orders the write first). */
static size_t old_space_before;
static size_t marked_young_bytes;
static size_t allocated_while_marking;
static uint64_t marking_started_ns;

static bool stopping(void)
{
    return atomic_load_explicit(&stop_requested, memory_order_relaxed);
}

/* Moves up to count objects from the end of from to to. */
static void move_grey(mark_grey *to, mark_grey *from, size_t count)
{
    if (count > from->count)
        count = from->count;
    VEC_RESERVE(*to, to->count + count);
    for (size_t i = 0; i < count; i++)
        to->items[to->count++] = from->items[--from->count];
}

/* The marker, asked to share: half its grey set into the pool. */
static void share_grey(void)
{
    pthread_mutex_lock(&marker_lock);
    move_grey(&pool, &grey, grey.count / 2);
    atomic_store_explicit(&share_requested, false, memory_order_relaxed);
    pthread_cond_broadcast(&marker_event);
    pthread_mutex_unlock(&marker_lock);
}

/* The marker, its grey set empty: takes the pool, waiting while assisters
 * hold objects; false when nothing is left to take (or a stop is asked). */
static bool take_pool(void)
{
    pthread_mutex_lock(&marker_lock);
    while (!pool.count && holders && !stopping())
        pthread_cond_wait(&marker_event, &marker_lock);
    move_grey(&grey, &pool, pool.count);
    pthread_mutex_unlock(&marker_lock);
    return grey.count != 0;
}

/* Whether the marking is done: nothing in the pool or held, under the lock
 * (sets done, and wakes the assisters waiting for work). */
static bool finish_if_nothing_left(void)
{
    pthread_mutex_lock(&marker_lock);
    bool finished = !pool.count && !holders && !stopping();
    if (finished) {
        atomic_store_explicit(&done, true, memory_order_relaxed);
        pthread_cond_broadcast(&marker_event);
    }
    pthread_mutex_unlock(&marker_lock);
    return finished;
}

/* Traces until the grey set, the pool, the assisters' objects and the full
 * logs are empty (done) or a stop is asked for. */
static void trace_young(void)
{
    while (!stopping()) {
        if (!mark_trace_concurrently(&grey, &stop_requested, &share_requested, UINT64_MAX,
                                     &totals)) {
            if (!stopping())
                share_grey();
            continue;
        }
        if (take_pool())
            continue;
        satb_log_take_full(mark_grey_logged, &grey);
        if (!grey.count && finish_if_nothing_left())
            return;
    }
}

static void *marker_main(void *unused)
{
    (void)unused;
    gc_thread_started("corral-ymark");
    pthread_mutex_lock(&marker_lock);
    for (;;) {
        while (marker_state != MARKER_MARKING)
            pthread_cond_wait(&marker_wake, &marker_lock);
        pthread_mutex_unlock(&marker_lock);
        trace_young();
        pthread_mutex_lock(&marker_lock);
        marker_state = MARKER_PARKED;
        pthread_cond_broadcast(&marker_event);
    }
    return NULL;
}

/* Marks from the pool beside the marker until the marking is done or
 * stopped: a mutator's assist or a helper's round. Called and returns with
 * marker_lock held; what it scanned goes to assisted_totals and, when
 * scanned_bytes is not NULL, there. */
static void mark_beside_marker_locked(uint64_t *scanned_bytes)
{
    mark_grey mine = {0};
    mark_totals scanned = {0, 0};
    assisters++;
    while (marker_state == MARKER_MARKING && !stopping() &&
           !atomic_load_explicit(&done, memory_order_relaxed)) {
        if (!pool.count) {
            atomic_store_explicit(&share_requested, true, memory_order_relaxed);
            pthread_cond_wait(&marker_event, &marker_lock);
            continue;
        }
        move_grey(&mine, &pool, ASSIST_TAKE);
        holders++;
        pthread_mutex_unlock(&marker_lock);
        mark_trace_concurrently(&mine, &stop_requested, NULL, ASSIST_BUDGET, &scanned);
        pthread_mutex_lock(&marker_lock);
        move_grey(&pool, &mine, mine.count);
        holders--;
        pthread_cond_broadcast(&marker_event);
    }
    assisters--;
    assisted_totals.objects += scanned.objects;
    assisted_totals.bytes += scanned.bytes;
    pthread_cond_broadcast(&marker_event);
    VEC_FREE(mine);
    if (scanned_bytes)
        *scanned_bytes = scanned.bytes;
}

static void *helper_main(void *unused)
{
    (void)unused;
    gc_thread_started("corral-ymark+");
    uint64_t helped_round = 0;
    pthread_mutex_lock(&marker_lock);
    for (;;) {
        while (marker_state != MARKER_MARKING || helped_round == marker_round)
            pthread_cond_wait(&marker_wake, &marker_lock);
        helped_round = marker_round;
        uint64_t bytes;
        mark_beside_marker_locked(&bytes);
        helped_round_bytes += bytes;
        atomic_fetch_add_explicit(&helped_total_bytes, bytes, memory_order_relaxed);
    }
    return NULL;
}

/* A detached thread running main, with asynchronous signals blocked (they
 * are the mutators' to take). Returns 0 or an errno value. */
static int start_gc_thread(void *(*main)(void *))
{
    sigset_t saved;
    gc_block_async_signals(&saved);
    pthread_t thread;
    int error = pthread_create(&thread, NULL, main, NULL);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (!error)
        pthread_detach(thread); /* it parks for good at exit */
    return error;
}

static void start_marker(void)
{
    int error = 0, helper_error = 0;
    pthread_mutex_lock(&marker_lock);
    atomic_store_explicit(&stop_requested, false, memory_order_relaxed);
    atomic_store_explicit(&share_requested, false, memory_order_relaxed);
    if (marker_state == MARKER_ABSENT)
        error = start_gc_thread(marker_main);
    while (!error && !helper_error && helpers_started < helpers_wanted) {
        helper_error = start_gc_thread(helper_main);
        helpers_started += !helper_error;
    }
    if (!error) {
        marker_state = MARKER_MARKING;
        marker_round++;
        helped_round_bytes = 0;
        pthread_cond_broadcast(&marker_wake);
    }
    pthread_mutex_unlock(&marker_lock);
    if (error) /* the next collection, the second pause, marks it all */
        fprintf(stats_log_stream(), "corral: warning: cannot start the concurrent marker "
                                    "thread (%s); this minor collection marks in its pause\n",
                strerror(error));
    else if (helper_error) /* asked again at the next collection */
        fprintf(stats_log_stream(), "corral: warning: cannot start a concurrent helper "
                                    "marker thread (%s); %u of %u mark beside the marker\n",
                strerror(helper_error), helpers_started, helpers_wanted);
}

void young_marker_stop(void)
{
    pthread_mutex_lock(&marker_lock);
    if (marker_state == MARKER_MARKING || assisters) {
        atomic_store_explicit(&stop_requested, true, memory_order_relaxed);
        pthread_cond_broadcast(&marker_event);
        while (marker_state == MARKER_MARKING || assisters)
            pthread_cond_wait(&marker_event, &marker_lock);
    }
    /* The grey set is whole again for whoever finishes the marking. (Only
     * when there is something to move: a fork's prepare handler may stop a
     * marker that is already parked while the world is stopped.) */
    if (pool.count)
        move_grey(&grey, &pool, pool.count);
    if (assisted_totals.objects) {
        totals.objects += assisted_totals.objects;
        totals.bytes += assisted_totals.bytes;
        assisted_totals = (mark_totals){0, 0};
    }
    pthread_mutex_unlock(&marker_lock);
}

void young_marker_assist(corral_thread *self)
{
    if (!atomic_load_explicit(&open, memory_order_relaxed) ||
        atomic_load_explicit(&done, memory_order_relaxed))
        return;
    uint64_t start = monotonic_ns();
    self->parked_at_ns = start;
    /* PARKED: a collection another thread asks for meanwhile stops us with
     * the marker (young_marker_stop) and proceeds without us. */
    thread_publish_stopped(self, THREAD_PARKED);
    uint64_t scanned_bytes;
    pthread_mutex_lock(&marker_lock);
    mark_beside_marker_locked(&scanned_bytes);
    pthread_mutex_unlock(&marker_lock);
    thread_resume_managed(self);
    stats_record_marking_assist(monotonic_ns() - start, scanned_bytes);
}

/* fork: the child has no marker thread. One parked before the fork (the
 * prepare handler is young_marker_stop) leaves its grey set whole, and the
 * second pause finishes the marking; one that a collection started
 * meanwhile may have left it torn, and the next collection is major. */
static void forget_marker_in_child(void)
{
    pthread_mutex_init(&marker_lock, NULL);
    pthread_cond_init(&marker_wake, NULL);
    pthread_cond_init(&marker_event, NULL);
    if (marker_state == MARKER_MARKING || assisters) {
        torn_by_fork = true; /* objects were in threads the child does not have */
        grey = (mark_grey){0};
    }
    pool = (mark_grey){0};
    holders = assisters = 0;
    helpers_started = 0; /* the child has none */
    assisted_totals = (mark_totals){0, 0};
    atomic_store_explicit(&share_requested, false, memory_order_relaxed);
    marker_state = MARKER_ABSENT;
}

static void install_fork_handlers(void)
{
    if (pthread_atfork(young_marker_stop, NULL, forget_marker_in_child) != 0)
        CORRAL_FATAL("pthread_atfork for the concurrent marker failed");
}

void young_marker_init(bool enable, unsigned markers)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    enabled = enable;
    helpers_wanted = markers - 1;
    if (enable)
        pthread_once(&once, install_fork_handlers);
}

bool young_marker_enabled(void)
{
    return enabled;
}

bool young_marker_done(void)
{
    return atomic_load_explicit(&done, memory_order_relaxed);
}

bool young_marker_open(void)
{
    return atomic_load_explicit(&open, memory_order_relaxed);
}

bool young_marker_needs_major(void)
{
    return torn_by_fork;
}

bool young_marker_pause_from_stw(void)
{
    if (!atomic_load_explicit(&open, memory_order_relaxed))
        return false;
    young_marker_stop();
    /* The old space as before marking; the young memory marked and what
     * was allocated since are this collection's allocation again. */
    heap *h = &corral_heap;
    allocated_while_marking = atomic_load_explicit(&h->allocated_since_gc, memory_order_relaxed);
    h->live_after_gc = old_space_before;
    atomic_store_explicit(&h->allocated_since_gc, allocated_while_marking + marked_young_bytes,
                          memory_order_relaxed);
    return true;
}

void young_marker_begin_from_stw(gc_cycle *cycle)
{
    heap *h = &corral_heap;
    /* Until the sweep, the memory being marked is live: the mutators get a
     * nursery's worth of budget on top of it. */
    old_space_before = h->live_after_gc;
    marked_young_bytes = atomic_load_explicit(&h->allocated_since_gc, memory_order_relaxed);
    h->live_after_gc += marked_young_bytes;
    remset_begin_minor_from_stw(generation_keeps_young());
    heap_begin_marking_from_stw(); /* resets the allocation budget */
    typed_space_begin_marking_from_stw();
    mark_set_limit_from_stw(h->marking_fence, true);
    grey.count = 0;
    totals = (mark_totals){0, 0};
    mark_young_roots_from_stw(cycle, &grey);
    __atomic_store_n(&corral_barrier.satb_active, 1, __ATOMIC_RELAXED);
    atomic_store_explicit(&done, false, memory_order_relaxed);
    atomic_store_explicit(&open, true, memory_order_relaxed);
    cycle->concurrent_start = true;
    cycle->live_bytes = h->live_after_gc;
    marking_started_ns = monotonic_ns();
    start_marker();
}

uint64_t young_marker_helped_bytes(void)
{
    return atomic_load_explicit(&helped_total_bytes, memory_order_relaxed);
}

size_t young_marker_old_space_bytes(void)
{
    return old_space_before;
}

void young_marker_finish_marking_from_stw(gc_cycle *cycle)
{
    __atomic_store_n(&corral_barrier.satb_active, 0, __ATOMIC_RELAXED);
    cycle->concurrent_mark_ns = monotonic_ns() - marking_started_ns;
    cycle->helper_marked_bytes = helped_round_bytes;
    mark_young_finish_from_stw(cycle, &grey, &totals);
    grey.count = 0;
}

/* Back to IDLE: no fence, no newborns, the barrier off. */
static void end_marking_from_stw(void)
{
    heap_end_marking_from_stw();
    mark_set_limit_from_stw(corral_heap.top, false);
    atomic_store_explicit(&done, false, memory_order_relaxed);
    atomic_store_explicit(&open, false, memory_order_relaxed);
}

void young_marker_close_from_stw(void)
{
    end_marking_from_stw();
    atomic_store_explicit(&corral_heap.allocated_since_gc, allocated_while_marking,
                          memory_order_relaxed);
}

void young_marker_abandon_from_stw(gc_cycle *cycle)
{
    __atomic_store_n(&corral_barrier.satb_active, 0, __ATOMIC_RELAXED);
    satb_log_drain_from_stw(cycle->stop->threads, cycle->stop->thread_count, NULL, NULL);
    grey.count = 0;
    torn_by_fork = false;
    end_marking_from_stw();
}

void young_marker_note_weak_read(void *object)
{
    corral_thread *self = corral_current_thread;
    if (object && self && __atomic_load_n(&corral_barrier.satb_active, __ATOMIC_RELAXED))
        satb_log_push(self, object);
}
