/* satb.c — the deletion barrier's slow path (corral/barrier.h): the
 * references a store is about to overwrite, appended to the storing
 * thread's log (satb_log.h) while corral_barrier.satb_active is set.
 *
 * Which words are references: a store into a named object logs the object's
 * reference slots in the range (its type's walk, so a trace hook decides for
 * a slot that holds a reference or an integer); an unnamed store of one
 * reference (8 bytes) logs its slot's word, read under the tag scheme like a
 * stack root's; a wider store into an object nobody named (the pass
 * could not find it, plain C passed NULL) logs every word of the range that
 * is a reference under the tag scheme, which may log an integer that looks
 * like one: a reader of the log must check what it takes (verify.c does).
 */
#include <corral.h>

#include "barrier.h"
#include "fatal.h"
#include "heap.h"
#include "object.h"
#include "satb_log.h"
#include "tagged.h"
#include "thread.h"

typedef struct range_logger {
    corral_thread *self;
    const char *start, *end;
} range_logger;

static void log_object(corral_thread *self, void *object)
{
    if (object)
        satb_log_push(self, object);
}

/* A word another mutator may be storing to: read it once, atomically. */
static void *word_at(const void *slot)
{
    return __atomic_load_n((void *const *)slot, __ATOMIC_RELAXED);
}

static void log_slot_in_range(void **slot, uintptr_t tag, void *context)
{
    range_logger *logger = context;
    if ((const char *)slot >= logger->start && (const char *)slot < logger->end)
        log_object(logger->self, object_slot_target(slot, tag));
}

static void log_hook_slot_in_range(void **slot, void *context)
{
    log_slot_in_range(slot, 0, context);
}

static void log_every_reference_word(corral_thread *self, const char *start, size_t bytes)
{
    const char *first = (const char *)(((uintptr_t)start + sizeof(void *) - 1) &
                                       ~(uintptr_t)(sizeof(void *) - 1));
    for (const char *word = first; word + sizeof(void *) <= start + bytes; word += sizeof(void *))
        log_object(self, tagged_root_object(word_at(word)));
}

void corral_satb_log_range(corral_ref object, const void *start, size_t bytes)
{
    corral_thread *self = corral_current_thread;
    CORRAL_CHECK(self, "deletion barrier: a store into the heap at %p from a thread that is not "
                       "attached (corral_thread_attach)", start);
    /* Compiled code may name the object by a tagged word (corral/tagged.h). */
    void *holder = (void *)((uintptr_t)object & ~(uintptr_t)(CORRAL_GRANULE - 1));
    /* An unnamed single store: its slot holds a reference. A named one goes
     * through the type's walk, whose trace hook knows whether a slot that
     * holds either a reference or an integer holds a reference now. */
    if (bytes <= sizeof(void *) && !holder) {
        log_every_reference_word(self, start, bytes);
        return;
    }
    if (!holder && !heap_contains(start))
        holder = barrier_large_object_holding(start);
    if (!holder) {
        log_every_reference_word(self, start, bytes);
        return;
    }
    range_logger logger = {.self = self, .start = start, .end = (const char *)start + bytes};
    object_visit_slots(holder, log_slot_in_range, log_hook_slot_in_range, &logger);
}
