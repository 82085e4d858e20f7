/* A collection request carries the GC epoch at which its reason was seen
 * (world_collect's since: a spent allocation budget, a finished concurrent
 * marking). When a collection began and ended after that epoch, the reason
 * may be gone, and the request does nothing (WORLD_OVERTAKEN): a second
 * allocator that found the nursery full as the first began its collection
 * collected again right after it, and in concurrent mode that was the
 * second pause, with the whole marking in it (mt-trees, 4 mutators on 2
 * cores: 35% more collections). The check and the start of a collection
 * are one CAS, so under a race no collection may start from a stale epoch:
 * the body checks that the epoch it runs at follows the one its requester
 * saw. Internal: it calls the coordinator directly. */
#include <corral.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "coordinator.h"
#include "corral_test.h"
#include "thread.h"

enum { RACERS = 3, RACE_ROUNDS = 3000 };

/* What a request's body checks. Written by the requester before it asks,
 * read by the body it runs (the CAS that makes it the coordinator orders
 * them); the counters are read after the racers are joined. */
typedef struct request {
    uint32_t since;
    bool ran;
} request;

static atomic_long bodies, stale_bodies;

static void note_body_from_stw(stop_report *report, void *context)
{
    request *req = context;
    req->ran = true;
    atomic_fetch_add(&bodies, 1);
    /* Our epoch is the odd one after since, or since was odd (our own). */
    if (!gc_epoch_in_progress(req->since) && report->epoch != req->since + 1)
        atomic_fetch_add(&stale_bodies, 1);
}

static world_collect_outcome ask(uint32_t since, bool *ran)
{
    request req = {since, false};
    world_collect_outcome outcome =
        world_collect(corral_current_thread, since, note_body_from_stw, &req, NULL);
    *ran = req.ran;
    return outcome;
}

static void one_thread(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_THREADS=1", true);
    bool ran;
    uint32_t seen = world_epoch();
    is_int(ask(seen, &ran), WORLD_COLLECTED, "a request at the current epoch collects");
    ok(ran, "and runs its body");
    is_int(ask(seen, &ran), WORLD_OVERTAKEN, "the same epoch again: overtaken by that collection");
    ok(!ran, "and runs nothing");
    is_int(ask(WORLD_EPOCH_OWN, &ran), WORLD_COLLECTED, "WORLD_EPOCH_OWN always collects");
    is_int(ask(world_epoch() + 1, &ran), WORLD_COLLECTED,
           "so does an odd epoch (one read during a collection)");
    corral_thread_detach();
}

/* Rendezvous for the two-thread case. Written and read under lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int step;

static void wait_step(int wanted)
{
    pthread_mutex_lock(&lock);
    while (step < wanted)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

static void set_step(int value)
{
    pthread_mutex_lock(&lock);
    step = value;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void *other_collector(void *arg)
{
    (void)arg;
    corral_thread_attach();
    wait_step(1);
    corral_collect_young();
    corral_thread_detach();
    set_step(2);
    return NULL;
}

static void another_thread(void *arg)
{
    (void)arg;
    test_start("CORRAL_GC_THREADS=1", true);
    pthread_t thread;
    pthread_create(&thread, NULL, other_collector, NULL);
    uint32_t seen = world_epoch();
    /* Out of the way (as an assisting allocator parks) while it collects. */
    corral_enter_unmanaged();
    set_step(1);
    wait_step(2);
    pthread_join(thread, NULL);
    corral_leave_unmanaged();
    bool ran;
    is_int(ask(seen, &ran), WORLD_OVERTAKEN,
           "a request from before another thread's collection is overtaken by it");
    ok(!ran, "and runs nothing");
    corral_thread_detach();
}

static atomic_long overtaken, collected;
static uint64_t race_seed; /* set by main before the subtests */

/* Reads the epoch, sometimes steps out of the way while the others
 * collect, then asks with what it read. */
static void *racer(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    corral_thread_attach();
    for (int round = 0; round < RACE_ROUNDS; round++) {
        uint32_t seen = world_epoch();
        if (rand_r(&seed) % 2) {
            corral_enter_unmanaged();
            sched_yield();
            corral_leave_unmanaged();
        }
        bool ran;
        world_collect_outcome outcome = ask(seen, &ran);
        atomic_fetch_add(outcome == WORLD_OVERTAKEN ? &overtaken : &collected, 1);
    }
    corral_thread_detach();
    return NULL;
}

static void race(void *arg)
{
    test_start((const char *)arg, false);
    pthread_t threads[RACERS];
    for (unsigned i = 0; i < RACERS; i++)
        pthread_create(&threads[i], NULL, racer, (void *)(uintptr_t)(race_seed + i));
    for (unsigned i = 0; i < RACERS; i++)
        pthread_join(threads[i], NULL);
    is_int(atomic_load(&stale_bodies), 0,
           "no collection started from a stale epoch (%ld collections)", atomic_load(&bodies));
    ok(atomic_load(&overtaken) > 0 && atomic_load(&collected) > 0,
       "requests were overtaken (%ld) and collected or waited (%ld)", atomic_load(&overtaken),
       atomic_load(&collected));
}

int main(int argc, char **argv)
{
    race_seed = tap_seed(argc, argv);
    plan(3);
    tap_subtest("one thread: a request after a collection is overtaken", 60, one_thread, NULL);
    tap_subtest("two threads: overtaken by the other's collection", 60, another_thread, NULL);
    tap_subtest("3 threads race stale requests", 120, race, "CORRAL_GC_THREADS=2");
    return done_testing();
}
