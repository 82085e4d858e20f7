/* thread.c — the registry of attached threads (liburcu, memb flavour).
 *
 * Attach and detach take registry_lock and add/remove the record with the
 * RCU list primitives. The coordinator copies the list under registry_lock
 * (threads_snapshot): the lock orders a new record's initialisation, and a
 * detached thread's last writes, before the collection; attach and detach
 * hold it only briefly and never while waiting for a GC, so the coordinator
 * never waits long. A thread may attach or detach during a stop (a new
 * thread starts UNMANAGED: already stopped). A detached record is freed after
 * a grace period (call_rcu); the coordinator holds rcu_read_lock for the
 * whole collection, so no record in its snapshot is freed under it.
 */
#include <urcu.h>

#include "thread.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "corral/shadow_stack.h"
#include "fatal.h"
#include "rcu_fork.h"
#include "satb_log.h"

__thread corral_thread *corral_current_thread;
__thread bool thread_is_collector;

/* corral/shadow_stack.h: pushed and popped by gcroot code, before and after
 * attach alike; the record keeps its address for the walker. */
__thread corral_shadow_stack_entry *corral_shadow_stack_head;
__thread corral_shadow_stack_entry *corral_frame_roots_head;

/* The list of registered threads. Writers: attach/detach under registry_lock
 * (cds_list_add_tail_rcu / cds_list_del_rcu publish with release order).
 * Readers: rcu_read_lock sections (coordinator, GC workers, stats). */
struct cds_list_head corral_thread_list = CDS_LIST_HEAD_INIT(corral_thread_list);
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* Writer: attach/detach under registry_lock. Readers: sizing hints (relaxed). */
static _Atomic size_t registered_count;
static unsigned next_thread_id = 1; /* under registry_lock */

corral_thread *thread_register_self(struct corral_tlab *tlab)
{
    corral_thread *thread = calloc(1, sizeof *thread);
    if (!thread)
        CORRAL_FATAL("out of memory for a thread record");
    atomic_init(&thread->state, THREAD_UNMANAGED);
    thread->tlab = tlab;
    thread->tid = (pid_t)syscall(SYS_gettid);
    thread->pthread = pthread_self();
    thread->shadow_stack_head = &corral_shadow_stack_head;
    thread->frame_roots_head = &corral_frame_roots_head;
    CDS_INIT_LIST_HEAD(&thread->suspended_stacks);
    rcu_fork_register_thread();
    pthread_mutex_lock(&registry_lock);
    thread->id = next_thread_id++;
    snprintf(thread->name, sizeof thread->name, "thread %u", thread->id);
    cds_list_add_tail_rcu(&thread->link, &corral_thread_list);
    atomic_fetch_add_explicit(&registered_count, 1, memory_order_relaxed);
    pthread_mutex_unlock(&registry_lock);
    corral_current_thread = thread;
    return thread;
}

static void free_thread_record(struct rcu_head *head)
{
    corral_thread *thread = caa_container_of(head, corral_thread, rcu);
    free(thread->roots.bases);
    free(thread->roots.derived);
    free(thread);
}

void thread_unregister_self(void)
{
    corral_thread *thread = corral_current_thread;
    pthread_mutex_lock(&registry_lock);
    cds_list_del_rcu(&thread->link);
    atomic_fetch_sub_explicit(&registered_count, 1, memory_order_relaxed);
    pthread_mutex_unlock(&registry_lock);
    corral_current_thread = NULL;
    /* A collection may hold a pointer to the record until its read section ends. */
    call_rcu(&thread->rcu, free_thread_record);
    rcu_fork_unregister_thread();
}

void threads_registry_lock_for_fork(void)
{
    pthread_mutex_lock(&registry_lock);
}

void threads_registry_unlock_after_fork(void)
{
    pthread_mutex_unlock(&registry_lock);
}

void thread_free_handles_and_pins(corral_thread *thread)
{
    handle_block *block = thread->handles;
    /* Blocks kept for reuse lie newer than the current one: free from the newest. */
    while (block && block->newer)
        block = block->newer;
    while (block) {
        handle_block *older = block->older;
        free(block);
        block = older;
    }
    thread->handles = NULL;
    VEC_FREE(thread->call_pins);
    /* Detach flushed the log first; a fork child drops the others' logs. */
    satb_chunk_free(thread->satb);
    thread->satb = NULL;
}

void threads_forget_others_in_child(corral_thread *survivor)
{
    corral_thread *thread, *next;
    cds_list_for_each_entry_safe(thread, next, &corral_thread_list, link) {
        if (thread == survivor)
            continue;
        /* Their threads do not exist here: no reader can hold the record. */
        cds_list_del(&thread->link);
        atomic_fetch_sub_explicit(&registered_count, 1, memory_order_relaxed);
        thread_free_handles_and_pins(thread);
        free_thread_record(&thread->rcu);
    }
}

size_t threads_snapshot(thread_list *list)
{
    pthread_mutex_lock(&registry_lock);
    list->count = 0;
    corral_thread *thread;
    cds_list_for_each_entry(thread, &corral_thread_list, link)
        VEC_PUSH(*list, thread);
    pthread_mutex_unlock(&registry_lock);
    return list->count;
}

size_t threads_count_estimate(void)
{
    return atomic_load_explicit(&registered_count, memory_order_relaxed);
}

const char *thread_check(const corral_thread *thread)
{
    uint32_t state = atomic_load_explicit(&thread->state, memory_order_relaxed);
    if (state > THREAD_PARKED)
        return "thread state out of range";
    if (thread->handle_scope_depth > 1u << 20)
        return "handle scope depth implausible";
    for (const managed_segment *s = thread->segment; s; s = s->previous) {
        if (s->outer_cfa == 0 || (s->outer_cfa & 7))
            return "managed segment without an aligned outer frame";
        if (s->previous && s->previous->outer_cfa <= s->outer_cfa)
            return "managed segments not nested in stack order";
    }
    if (thread->anchor.return_address && (thread->anchor.stack_pointer & 7))
        return "anchor stack pointer misaligned";
    return NULL;
}
