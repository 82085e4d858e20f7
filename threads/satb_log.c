/* satb_log.c — per-thread logs of overwritten references (see satb_log.h). */
#include "satb_log.h"

#include <stdlib.h>

#include "fatal.h"

/* Full and flushed chunks. Writers: any thread (cds_wfs_push, wait-free,
 * release). Readers (__cds_wfs_pop_all, which needs no lock while it is the
 * only popper): the collector with the world stopped, or the concurrent
 * marker while the mutators run; never both, since every pause stops the
 * marker before it takes chunks (young_marker.h). */
static struct __cds_wfs_stack full_chunks;

void satb_log_init(void)
{
    __cds_wfs_init(&full_chunks);
}

static satb_chunk *new_chunk(void)
{
    satb_chunk *chunk = malloc(sizeof *chunk);
    if (!chunk)
        CORRAL_FATAL("out of memory for a %zu-byte SATB log chunk", sizeof *chunk);
    cds_wfs_node_init(&chunk->node);
    chunk->count = 0;
    return chunk;
}

/* Before a chunk goes to the shared stack: its count, stored with release,
 * orders the references before it for the thread that takes the chunk
 * (liburcu's own barriers do too, but ThreadSanitizer sees only these). */
static void publish(satb_chunk *chunk)
{
    __atomic_store_n(&chunk->count, chunk->count, __ATOMIC_RELEASE);
}

void satb_log_push(corral_thread *self, void *object)
{
    satb_chunk *chunk = self->satb;
    if (!chunk)
        chunk = self->satb = new_chunk();
    chunk->refs[chunk->count++] = object;
    if (chunk->count == SATB_CHUNK_REFS) {
        publish(chunk);
        cds_wfs_push(&full_chunks, &chunk->node);
        self->satb = NULL;
    }
}

void satb_log_flush(corral_thread *thread)
{
    satb_chunk *chunk = thread->satb;
    if (!chunk)
        return;
    thread->satb = NULL;
    if (chunk->count) {
        publish(chunk);
        cds_wfs_push(&full_chunks, &chunk->node);
    }
    else
        free(chunk);
}

size_t satb_log_drain_from_stw(corral_thread *const *threads, size_t thread_count,
                               void (*visit)(void *object, void *context), void *context)
{
    for (size_t i = 0; i < thread_count; i++)
        satb_log_flush(threads[i]);
    return satb_log_take_full(visit, context);
}

size_t satb_log_take_full(void (*visit)(void *object, void *context), void *context)
{
    struct cds_wfs_head *head = __cds_wfs_pop_all(&full_chunks);
    struct cds_wfs_node *node, *next;
    size_t logged = 0;
    cds_wfs_for_each_blocking_safe(head, node, next) {
        satb_chunk *chunk = caa_container_of(node, satb_chunk, node);
        uint32_t count = __atomic_load_n(&chunk->count, __ATOMIC_ACQUIRE); /* see publish */
        if (visit)
            for (uint32_t i = 0; i < count; i++)
                visit(chunk->refs[i], context);
        logged += count;
        free(chunk);
    }
    return logged;
}

void satb_chunk_free(satb_chunk *chunk)
{
    free(chunk);
}
