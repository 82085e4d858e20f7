/* satb_log.c — per-thread logs of overwritten references (see satb_log.h). */
#include "satb_log.h"

#include <stdlib.h>

#include "fatal.h"

/* Full and flushed chunks. Writers: any thread (cds_wfs_push, wait-free,
 * release). Reader: the collector with the world stopped (__cds_wfs_pop_all,
 * the only popper, so it needs no lock). */
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

void satb_log_push(corral_thread *self, void *object)
{
    satb_chunk *chunk = self->satb;
    if (!chunk)
        chunk = self->satb = new_chunk();
    chunk->refs[chunk->count++] = object;
    if (chunk->count == SATB_CHUNK_REFS) {
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
    if (chunk->count)
        cds_wfs_push(&full_chunks, &chunk->node);
    else
        free(chunk);
}

size_t satb_log_drain_from_stw(corral_thread *const *threads, size_t thread_count,
                               void (*visit)(void *object, void *context), void *context)
{
    for (size_t i = 0; i < thread_count; i++)
        satb_log_flush(threads[i]);
    struct cds_wfs_head *head = __cds_wfs_pop_all(&full_chunks);
    struct cds_wfs_node *node, *next;
    size_t logged = 0;
    cds_wfs_for_each_blocking_safe(head, node, next) {
        satb_chunk *chunk = caa_container_of(node, satb_chunk, node);
        if (visit)
            for (uint32_t i = 0; i < chunk->count; i++)
                visit(chunk->refs[i], context);
        logged += chunk->count;
        free(chunk);
    }
    return logged;
}

void satb_chunk_free(satb_chunk *chunk)
{
    free(chunk);
}
