/* coordinator.h — stopping and restarting the world.
 *
 * A collection is requested from an attached, MANAGED thread whose anchor is
 * recorded (so its own frames are walkable). The requester that moves the GC
 * epoch from even to odd (CAS) is the coordinator; every other requester
 * parks until that collection ends, and one whose reason to collect is
 * older than the last collection (world_collect's since) returns at once.
 * The coordinator:
 *
 *   [PARKED until the threads the last collection passed over run again]
 *     -> epoch := odd (seq_cst)  ->  [membarrier]  ->  arm the polling page
 *     -> wait until every registered thread is PARKED or UNMANAGED
 *     -> body(report)                    (the collection, world stopped)
 *     -> disarm  ->  own state := MANAGED  ->  epoch := even (release), wake all
 */
#ifndef CORRAL_COORDINATOR_H
#define CORRAL_COORDINATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thread.h"

typedef struct stop_report {
    uint64_t request_ns;       /* CLOCK_MONOTONIC when the stop was requested */
    uint64_t stopped_ns;       /* when the last thread was seen stopped */
    uint64_t ttsp_ns;          /* stopped_ns - request_ns */
    unsigned slowest_thread;   /* id of the thread waited for longest (0: none waited) */
    uintptr_t slowest_site;    /* its poll site: the return address it stopped at */
    uint64_t slowest_wait_ns;
    size_t thread_count;
    corral_thread **threads;   /* every stopped thread, valid during the body */
    uint32_t epoch;            /* the odd epoch of this collection */
} stop_report;

typedef void (*stopped_world_fn)(stop_report *report, void *context);

/* What world_collect did. */
typedef enum world_collect_outcome {
    WORLD_COLLECTED,  /* this thread ran body */
    WORLD_WAITED,     /* another thread's collection was in progress: waited it out */
    WORLD_OVERTAKEN,  /* a collection began and ended after since: did nothing */
} world_collect_outcome;

/* since for a request that wants a collection of its own (an explicit or
 * stress-scheduled one): odd, so no epoch read while the world runs. */
#define WORLD_EPOCH_OWN UINT32_MAX

/* The GC epoch now (acquire), for world_collect's since: read it before
 * what makes the caller want a collection (a spent budget, a finished
 * marking), so a collection that ends later is seen to have followed it. */
uint32_t world_epoch(void);

/* Runs body with the world stopped, or waits while another thread's
 * collection runs, or, when since is an even epoch and a collection has
 * begun and ended after it, does nothing: the reason to collect the caller
 * saw then is stale (a second allocator that found the nursery full as the
 * first began its collection would otherwise collect again right after
 * it; in concurrent mode that is the second pause, and the whole marking
 * in it). The check and the start of a collection are one CAS, so no
 * collection can slip between them. An odd since (WORLD_EPOCH_OWN, or one
 * read during a collection) asks for a collection of the caller's own.
 * After WORLD_COLLECTED, sets *released_ns (unless NULL) to when the
 * stopped threads were released: the epoch turned even. A pause ends
 * there, not when the caller runs again: on a machine with more runnable
 * threads than cores the caller is often descheduled by the threads it
 * just woke (on mt-trees, 4 mutators on 2 cores, 152 ms in 39 minor
 * collections were counted as pause so). */
world_collect_outcome world_collect(corral_thread *self, uint32_t since, stopped_world_fn body,
                                    void *context, uint64_t *released_ns);

/* Stops the world for fork() without collecting: waits out a collection in
 * progress, then until every registered thread is PARKED or UNMANAGED (the
 * caller must not be MANAGED). Returns the odd epoch it holds; nothing can
 * collect or leave a stopped state until world_restart_after_fork(epoch). */
uint32_t world_stop_for_fork(void);
void world_restart_after_fork(uint32_t odd_epoch);

/* Parks the calling thread until the current collection (if any) is over. */
void world_park_self(corral_thread *self);

/* The polling page word (see corral/poll.h). */
void poll_arm(void);
void poll_disarm(void);

/* Stress hook run on every poll slow-path call (stress "polls" mode). */
typedef void (*poll_hook_fn)(corral_thread *self);
void poll_set_hook(poll_hook_fn hook);
/* Keeps the polling page armed (every poll takes the slow path) while set. */
void poll_set_always_slow(bool always);

uint64_t monotonic_ns(void);
void transition_coordinator_barrier(void);

#endif /* CORRAL_COORDINATOR_H */
