/* satb_log.h — each mutator's log of the references its stores overwrote
 * while the collector asked for them (snapshot-at-the-beginning marking:
 * an object reachable when marking began stays found even if every path to
 * it is overwritten meanwhile). src/satb.c decides what a store logs; this
 * file keeps the logs.
 *
 *   owner thread:  push ──> its chunk ──full──> the shared stack of full chunks
 *                                  │                      │
 *   detach, or the collector       └──partial chunk──────>│ (satb_log_flush)
 *   with the world stopped:                               │
 *   the collector, world stopped:  satb_log_drain_from_stw <─┘ (flushes every
 *                                  thread, pops and frees every chunk)
 *
 * Chunks are fixed-size so the concurrent marker (src/young_marker.h) takes
 * full ones while the mutators run (satb_log_take_full); the pause that
 * ends its marking drains the rest.
 */
#ifndef CORRAL_SATB_LOG_H
#define CORRAL_SATB_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <urcu/wfstack.h>

#include "thread.h"

/* 2 KiB a chunk: one allocation per 254 logged references. */
#define SATB_CHUNK_REFS 254u

typedef struct satb_chunk {
    struct cds_wfs_node node; /* link in the shared stack of full chunks */
    uint32_t count;           /* refs[0, count) are logged */
    void *refs[SATB_CHUNK_REFS];
} satb_chunk;

/* Called by threads_init, before any thread attaches. */
void satb_log_init(void);
/* Appends object to the calling thread's log. Thread: MANAGED (self is the
 * caller's record); never GCs. */
void satb_log_push(corral_thread *self, void *object);
/* Hands thread's partial chunk to the shared stack. Called by the owner at
 * detach, or by the collector for a stopped thread. */
void satb_log_flush(corral_thread *thread);
/* Flushes each of the stopped threads, then passes every logged reference,
 * in no order, to visit (NULL: drops them) and frees the chunks; returns how
 * many were logged. Collector only, with the world stopped: threads are the
 * stopped ones, and no other thread may take chunks meanwhile. */
size_t satb_log_drain_from_stw(corral_thread *const *threads, size_t thread_count,
                               void (*visit)(void *object, void *context), void *context);
/* Passes every reference in the full (and flushed) chunks to visit, frees
 * those chunks and returns how many there were; leaves the threads' partial
 * chunks. Thread: the only one taking chunks (above). */
size_t satb_log_take_full(void (*visit)(void *object, void *context), void *context);
void satb_chunk_free(satb_chunk *chunk);

#endif /* CORRAL_SATB_LOG_H */
