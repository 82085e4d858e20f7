/* roots.c — handles, global roots, weak handles, pins, finalization. */
#include "roots.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/list.h>

#include "fatal.h"
#include "heap.h"
#include "object.h"
#include "ptr_table.h"
#include "tagged.h"
#include "vec.h"
#include "young_marker.h"

/* ---------------------------------------------------------------- handles */

static corral_thread *require_managed(const char *call)
{
    corral_thread *self = thread_require_attached(call);
    uint32_t state = atomic_load_explicit(&self->state, memory_order_relaxed);
    CORRAL_DEBUG_REQUIRE(state == THREAD_MANAGED,
                         "%s: %s is %s; handles may only be used while MANAGED", call,
                         self->name, thread_state_name(state));
    return self;
}

static handle_block *new_handle_block(handle_block *older)
{
    handle_block *block = calloc(1, sizeof *block);
    if (!block)
        CORRAL_FATAL("out of memory for a handle block");
    block->older = older;
    return block;
}

corral_handle_scope corral_handle_scope_open(void)
{
    corral_thread *self = require_managed("corral_handle_scope_open");
    if (!self->handles)
        self->handles = new_handle_block(NULL);
    self->handle_scope_depth++;
    return (corral_handle_scope){self->handles, self->handles->used, self->handle_scope_depth};
}

void corral_handle_scope_close(corral_handle_scope scope)
{
    corral_thread *self = require_managed("corral_handle_scope_close");
    if (scope.depth != self->handle_scope_depth || !scope.block)
        CORRAL_FATAL("corral_handle_scope_close: closing scope %u of %s while scope %u is the "
                     "innermost open one (scopes close in reverse order)",
                     scope.depth, self->name, self->handle_scope_depth);
    handle_block *block = scope.block;
    for (handle_block *newer = block->newer; newer; newer = newer->newer)
        newer->used = 0; /* kept for reuse */
    block->used = scope.index;
    self->handles = block;
    self->handle_scope_depth--;
}

/* A new slot in the innermost scope holding word; tagged: read under the
 * tag scheme (a bit per slot, since a tagged word cannot say so itself). */
static void **new_handle_slot(const char *call, void *word, bool tagged)
{
    corral_thread *self = require_managed(call);
    if (self->handle_scope_depth == 0)
        CORRAL_FATAL("%s: %s has no open handle scope", call, self->name);
    handle_block *block = self->handles;
    if (block->used == HANDLE_BLOCK_SLOTS) {
        if (!block->newer) {
            block->newer = new_handle_block(block);
        }
        block = block->newer;
        block->used = 0;
        self->handles = block;
    }
    uint32_t index = block->used++;
    uint64_t bit = UINT64_C(1) << (index % 64);
    if (tagged)
        block->tagged[index / 64] |= bit;
    else
        block->tagged[index / 64] &= ~bit; /* slots are reused after scopes close */
    block->slots[index] = word;
    return &block->slots[index];
}

corral_handle corral_handle_new(corral_ref object)
{
    return new_handle_slot("corral_handle_new", (void *)object, false);
}

/* Tagged roots need the scheme to be read; without one they are a misuse. */
static void require_tag_scheme(const char *call)
{
    if (!tagged_scheme_declared)
        CORRAL_FATAL("%s: no tag scheme was declared (corral_options.tag_scheme at "
                     "corral_init), so a root cannot hold tagged words",
                     call);
}

corral_value_handle corral_handle_new_value(corral_value value)
{
    require_tag_scheme("corral_handle_new_value");
    return (corral_value_handle)new_handle_slot("corral_handle_new_value", (void *)value, true);
}

/* A root slot: a tagged one under the scheme (immediates and nulls are not
 * visited), a plain one with tag 0 when it is not null. */
static void visit_root_slot(void **slot, bool tagged, object_slot_fn visit, void *context)
{
    if (tagged)
        object_visit_tagged_slot(slot, visit, context);
    else if (*slot)
        visit(slot, 0, context);
}

void roots_visit_handles_from_stw(corral_thread *thread, object_slot_fn visit, void *context)
{
    for (handle_block *block = thread->handles; block; block = block->older)
        for (uint32_t i = 0; i < block->used; i++)
            visit_root_slot(&block->slots[i], (block->tagged[i / 64] >> (i % 64)) & 1, visit,
                            context);
}

/* ----------------------------------------------------- pointer lists */

/* A growable array of pointers with its own lock: slot addresses for the
 * global roots, object addresses for finalization. */
typedef struct pointer_list {
    pthread_mutex_t lock;
    VEC(void *) pointers;
} pointer_list;

static void pointer_list_add(pointer_list *list, void *item)
{
    pthread_mutex_lock(&list->lock);
    VEC_PUSH(list->pointers, item);
    pthread_mutex_unlock(&list->lock);
}

static bool pointer_list_remove(pointer_list *list, void *item)
{
    bool found = false;
    pthread_mutex_lock(&list->lock);
    for (size_t i = 0; i < list->pointers.count; i++) {
        if (list->pointers.items[i] == item) {
            VEC_REMOVE_UNORDERED(list->pointers, i);
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&list->lock);
    return found;
}

/* Slot addresses; bit 0 set on the address of a slot holding tagged words
 * (slots are 8-byte aligned, so the bit is free). */
static pointer_list global_roots = {.lock = PTHREAD_MUTEX_INITIALIZER};
#define GLOBAL_ROOT_TAGGED ((uintptr_t)1)

void corral_global_root_add(corral_ref *slot)
{
    pointer_list_add(&global_roots, (void *)slot);
}

void corral_global_root_remove(corral_ref *slot)
{
    if (!pointer_list_remove(&global_roots, (void *)slot))
        CORRAL_FATAL("corral_global_root_remove: slot %p was never added with "
                     "corral_global_root_add",
                     (void *)slot);
}

void corral_global_value_root_add(corral_value *slot)
{
    require_tag_scheme("corral_global_value_root_add");
    if ((uintptr_t)slot & 7)
        CORRAL_FATAL("corral_global_value_root_add: slot %p is not 8-byte aligned",
                     (void *)slot);
    pointer_list_add(&global_roots, (void *)((uintptr_t)slot | GLOBAL_ROOT_TAGGED));
}

void corral_global_value_root_remove(corral_value *slot)
{
    if (!pointer_list_remove(&global_roots, (void *)((uintptr_t)slot | GLOBAL_ROOT_TAGGED)))
        CORRAL_FATAL("corral_global_value_root_remove: slot %p was never added with "
                     "corral_global_value_root_add",
                     (void *)slot);
}

/* ------------------------------------------------------------------- weak */

struct corral_weak {
    void *target;
    struct cds_list_head link; /* in weak_handles */
};

/* All weak handles. Writers: mutators (new/free, under weak_lock) and the
 * collector (targets, world stopped). A plain list (urcu/list.h): every
 * reader holds weak_lock. */
static pthread_mutex_t weak_lock = PTHREAD_MUTEX_INITIALIZER;
static CDS_LIST_HEAD(weak_handles);
static size_t weak_count;

corral_weak *corral_weak_new(corral_ref object)
{
    corral_weak *weak = malloc(sizeof *weak);
    if (!weak)
        CORRAL_FATAL("out of memory for a weak handle");
    weak->target = (void *)object;
    pthread_mutex_lock(&weak_lock);
    cds_list_add(&weak->link, &weak_handles);
    weak_count++;
    pthread_mutex_unlock(&weak_lock);
    return weak;
}

corral_ref corral_weak_get(const corral_weak *weak)
{
    void *target = weak->target;
    young_marker_note_weak_read(target); /* while marking, a strong reference from now on */
    return (corral_ref)target;
}

void corral_weak_free(corral_weak *weak)
{
    pthread_mutex_lock(&weak_lock);
    cds_list_del(&weak->link);
    weak_count--;
    pthread_mutex_unlock(&weak_lock);
    free(weak);
}

size_t roots_weak_count(void)
{
    return weak_count;
}

void roots_clear_dead_weak_from_stw(bool (*is_marked)(const void *object))
{
    pthread_mutex_lock(&weak_lock);
    corral_weak *weak;
    cds_list_for_each_entry(weak, &weak_handles, link)
        if (weak->target && !is_marked(weak->target))
            weak->target = NULL;
    pthread_mutex_unlock(&weak_lock);
}

void roots_forward_weak_from_stw(void *(*forward)(void *object))
{
    pthread_mutex_lock(&weak_lock);
    corral_weak *weak;
    cds_list_for_each_entry(weak, &weak_handles, link)
        if (weak->target)
            weak->target = forward(weak->target);
    pthread_mutex_unlock(&weak_lock);
}

/* ------------------------------------------------------------------- pins */

/* Pinned object -> pin count (pinned objects never move, so their addresses
 * are stable keys). Writers: mutators under pin_lock. Readers: the collector
 * (world stopped, under pin_lock). The table is sized by the pins held, so a
 * GC's walk of it costs O(pins held) and memory comes back once pins are
 * released (base/ptr_table.h). */
static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static ptr_table pins;

void corral_pin(corral_ref object)
{
    if (!object)
        CORRAL_FATAL("corral_pin: NULL object");
    pthread_mutex_lock(&pin_lock);
    ptr_table_insert(&pins, (void *)object, NULL)->value++;
    pthread_mutex_unlock(&pin_lock);
}

void corral_unpin(corral_ref object)
{
    pthread_mutex_lock(&pin_lock);
    ptr_table_entry *entry = ptr_table_find(&pins, (void *)object);
    if (!entry) {
        pthread_mutex_unlock(&pin_lock);
        CORRAL_FATAL("corral_unpin: object %p is not pinned", (void *)object);
    }
    if (--entry->value == 0)
        ptr_table_remove(&pins, (void *)object);
    pthread_mutex_unlock(&pin_lock);
}

void corral_require_pinned(corral_ref object)
{
    if (!object)
        CORRAL_FATAL("corral_require_pinned: NULL object");
    /* Large objects and pinned types live outside the regions; headerless
     * regions stay in place. */
    if (!heap_contains(object) || region_headerless_type(object))
        return;
    pthread_mutex_lock(&pin_lock);
    bool pinned = ptr_table_contains(&pins, object);
    pthread_mutex_unlock(&pin_lock);
    if (!pinned) {
        const corral_type *type = object_type(object);
        CORRAL_FATAL("corral_require_pinned: object %p of type '%s' is not pinned: the code "
                     "that calls this keeps raw pointers into it in memory, so its caller must "
                     "pin it (corral_pin) for as long as they are kept",
                     (void *)object, type && type->name ? type->name : "?");
    }
}

size_t roots_pin_table_capacity(void)
{
    pthread_mutex_lock(&pin_lock);
    size_t capacity = pins.capacity;
    pthread_mutex_unlock(&pin_lock);
    return capacity;
}

void roots_for_each_pinned_from_stw(void (*fn)(void *object, void *context), void *context)
{
    pthread_mutex_lock(&pin_lock);
    PTR_TABLE_FOR_EACH(entry, &pins)
        fn(entry->key, context);
    pthread_mutex_unlock(&pin_lock);
}

bool roots_is_pinned_from_stw(const void *object)
{
    pthread_mutex_lock(&pin_lock);
    bool pinned = ptr_table_contains(&pins, object);
    pthread_mutex_unlock(&pin_lock);
    return pinned;
}

static void visit_pin_slots(object_slot_fn visit, void *context)
{
    pthread_mutex_lock(&pin_lock);
    PTR_TABLE_FOR_EACH(entry, &pins)
        visit(&entry->key, 0, context); /* a pinned object never moves: read-only in effect */
    pthread_mutex_unlock(&pin_lock);
}

/* ----------------------------------------------------------- finalization */

/* Finalizable objects not yet found dead, and dead ones awaiting their
 * finalizer (the queue's entries are strong roots). */
static pointer_list finalizable = {.lock = PTHREAD_MUTEX_INITIALIZER};
static pointer_list finalize_queue = {.lock = PTHREAD_MUTEX_INITIALIZER};

void roots_register_finalizable(void *object)
{
    pointer_list_add(&finalizable, object);
}

size_t roots_queue_unreachable_finalizable_from_stw(bool (*is_marked)(const void *object),
                                                    void (*resurrect)(void *object, void *ctx),
                                                    void *context)
{
    size_t queued = 0;
    pthread_mutex_lock(&finalizable.lock);
    pthread_mutex_lock(&finalize_queue.lock);
    for (size_t i = 0; i < finalizable.pointers.count;) {
        void *object = finalizable.pointers.items[i];
        if (is_marked(object)) {
            i++;
            continue;
        }
        VEC_REMOVE_UNORDERED(finalizable.pointers, i);
        VEC_PUSH(finalize_queue.pointers, object);
        resurrect(object, context);
        queued++;
    }
    pthread_mutex_unlock(&finalize_queue.lock);
    pthread_mutex_unlock(&finalizable.lock);
    return queued;
}

void roots_forward_finalizable_from_stw(void *(*forward)(void *object))
{
    /* The queue is forwarded as a strong root (roots_visit_globals_from_stw). */
    pthread_mutex_lock(&finalizable.lock);
    for (size_t i = 0; i < finalizable.pointers.count; i++)
        finalizable.pointers.items[i] = forward(finalizable.pointers.items[i]);
    pthread_mutex_unlock(&finalizable.lock);
}

void roots_run_finalizers(void)
{
    for (;;) {
        pthread_mutex_lock(&finalize_queue.lock);
        if (finalize_queue.pointers.count == 0) {
            pthread_mutex_unlock(&finalize_queue.lock);
            return;
        }
        void *object = finalize_queue.pointers.items[--finalize_queue.pointers.count];
        pthread_mutex_unlock(&finalize_queue.lock);
        /* Out of the queue the object is garbage at the next collection: a
         * finalizer must not store it anywhere (documented). */
        ((const corral_header *)object)->type->finalize(object);
    }
}

void roots_visit_globals_from_stw(object_slot_fn visit, void *context)
{
    pthread_mutex_lock(&global_roots.lock);
    for (size_t i = 0; i < global_roots.pointers.count; i++) {
        uintptr_t entry = (uintptr_t)global_roots.pointers.items[i];
        visit_root_slot((void **)(entry & ~GLOBAL_ROOT_TAGGED), entry & GLOBAL_ROOT_TAGGED, visit,
                        context);
    }
    pthread_mutex_unlock(&global_roots.lock);
    visit_pin_slots(visit, context);
    pthread_mutex_lock(&finalize_queue.lock);
    for (size_t i = 0; i < finalize_queue.pointers.count; i++)
        visit(&finalize_queue.pointers.items[i], 0, context);
    pthread_mutex_unlock(&finalize_queue.lock);
}
