/* registry.c — the return-address registry of parsed stackmaps.
 *
 * The registry is an open-addressing hash table keyed by return address:
 *
 *   registry_index ──► [capacity | entries: (return address, record) ...]
 *        (atomic)            ▲ readers probe under rcu_read_lock
 *   registry_tables ──► node ──► node ──► ... (immortal: records, origin)
 *
 * A writer (serialised by registry_lock) inserts into the published index in
 * place: record pointer first, then the key with release order, so a reader
 * that sees the key sees the record. When the index would pass half full the
 * writer builds a bigger copy, publishes it, waits for an RCU grace period and
 * frees the old one. Records themselves are never freed.
 *
 * From base/: fatal.h for the fatal helper, and rcu_fork.h, whose grace
 * periods survive fork().
 */
#include "registry.h"

#include "fatal.h"
#include "rcu_fork.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/urcu-memb.h>

/* One slot of the index. Written once, by a registry writer under
 * registry_lock: record (plain) and then return_address (release). Read by
 * stackmap_lookup: return_address (acquire), then record. 0 means empty. */
typedef struct index_entry {
    _Atomic uintptr_t return_address;
    const stackmap_record *record;
} index_entry;

typedef struct return_address_index {
    unsigned capacity_log2;
    size_t count; /* entries in use; writer only, under registry_lock */
    index_entry entries[];
} return_address_index;

/* A managed function of a table: its address and its highest return
 * address. */
typedef struct function_span {
    uintptr_t function_address, last_return_address;
} function_span;

/* A registered input: never freed, so records and origins live forever.
 * functions: one span per function of its records, sorted by address (for
 * stackmap_registry_nearest_function: a binary search per table, not a pass
 * over every record); built before the node is published. */
typedef struct registered_table {
    struct registered_table *next; /* set before the node is published */
    char *origin;
    stackmap_table table;
    function_span *functions;
    size_t function_count;
} registered_table;

enum { MINIMUM_INDEX_LOG2 = 8 };

/* ThreadSanitizer cannot see liburcu's grace periods (the library is not
 * instrumented), so it would report the free of a retired index as a race
 * with the readers that finished with it. Tell it what RCU guarantees: every
 * read-side critical section ends before the grace period that follows it, so
 * a reader's last use of an index happens before the writer frees it. */
#if defined(__SANITIZE_THREAD__)
#define STACKMAP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STACKMAP_TSAN 1
#endif
#endif
#ifdef STACKMAP_TSAN
void __tsan_acquire(void *address);
void __tsan_release(void *address);
static char grace_period_marker;
#define READER_DONE_WITH_INDEX() __tsan_release(&grace_period_marker)
#define WRITER_WAITED_FOR_READERS() __tsan_acquire(&grace_period_marker)
#else
#define READER_DONE_WITH_INDEX() ((void)0)
#define WRITER_WAITED_FOR_READERS() ((void)0)
#endif

/* Serialises registry writers; readers never take it. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

/* Writer: a registry writer under registry_lock, release store when a bigger
 * index replaces the old one (freed after an RCU grace period). Reader:
 * stackmap_lookup, acquire load inside an RCU read-side critical section. */
static return_address_index *_Atomic registry_index;

/* Writer: a registry writer under registry_lock, release store of a new head
 * whose next is already set. Reader: stackmap_registry_nearest_function and
 * conflict messages, acquire load; nodes are never freed. */
static registered_table *_Atomic registry_tables;

/* Run on each table before it is added. Writer and readers: registry
 * writers, under registry_lock. */
static stackmap_table_check_fn table_check;

/* Writer: a registry writer under registry_lock (relaxed). Reader:
 * stackmap_registry_record_count (relaxed: a statistic). */
static atomic_size_t registry_record_total;

static size_t index_capacity(const return_address_index *index)
{
    return (size_t)1 << index->capacity_log2;
}

/* Fibonacci hashing: return addresses differ in low bits; the top bits of
 * the product mix all of them. */
static size_t index_home(const return_address_index *index, uintptr_t return_address)
{
    return (size_t)(((uint64_t)return_address * UINT64_C(0x9E3779B97F4A7C15)) >>
                    (64 - index->capacity_log2));
}

static const stackmap_record *index_find(const return_address_index *index,
                                         uintptr_t return_address)
{
    size_t mask = index_capacity(index) - 1;
    /* At most half full, so the probe always meets an empty entry. */
    for (size_t i = index_home(index, return_address);; i = (i + 1) & mask) {
        uintptr_t key =
            atomic_load_explicit(&index->entries[i].return_address, memory_order_acquire);
        if (key == return_address)
            return index->entries[i].record;
        if (key == 0)
            return NULL;
    }
}

/* Writer only, under registry_lock; the caller has checked there is room. */
static void index_insert(return_address_index *index, const stackmap_record *record)
{
    size_t mask = index_capacity(index) - 1;
    for (size_t i = index_home(index, record->return_address);; i = (i + 1) & mask) {
        index_entry *entry = &index->entries[i];
        if (atomic_load_explicit(&entry->return_address, memory_order_relaxed) != 0)
            continue;
        entry->record = record;
        atomic_store_explicit(&entry->return_address, record->return_address,
                              memory_order_release);
        index->count++;
        return;
    }
}

static return_address_index *index_create(unsigned capacity_log2)
{
    size_t capacity = (size_t)1 << capacity_log2;
    return_address_index *index = calloc(1, sizeof *index + capacity * sizeof(index_entry));
    if (index)
        index->capacity_log2 = capacity_log2;
    return index;
}

/* Makes sure the published index has room for extra more entries at most
 * half full, replacing it with a bigger copy if not. Under registry_lock. */
static int index_make_room(size_t extra)
{
    return_address_index *old = atomic_load_explicit(&registry_index, memory_order_relaxed);
    size_t wanted = (old ? old->count : 0) + extra;
    if (old && wanted <= index_capacity(old) / 2)
        return 0;
    unsigned log2 = MINIMUM_INDEX_LOG2;
    while (((size_t)1 << log2) / 2 < wanted)
        log2++;
    return_address_index *bigger = index_create(log2);
    if (!bigger)
        return -1;
    for (size_t i = 0; old && i < index_capacity(old); i++)
        if (atomic_load_explicit(&old->entries[i].return_address, memory_order_relaxed))
            index_insert(bigger, old->entries[i].record);
    atomic_store_explicit(&registry_index, bigger, memory_order_release);
    if (old) {
        /* Readers that loaded the old pointer finish before it is freed. */
        rcu_fork_synchronize();
        WRITER_WAITED_FOR_READERS();
        free(old);
    }
    return 0;
}

/* Whether record lies in table's record array. An empty table has none (its
 * array may be NULL, where even NULL + 0 is undefined): skip it first. */
static bool table_holds(const stackmap_table *table, const stackmap_record *record)
{
    if (table->record_count == 0)
        return false;
    uintptr_t first = (uintptr_t)table->records, at = (uintptr_t)record;
    return at >= first && (at - first) / sizeof *record < table->record_count;
}

/* The registered input that owns record, for messages. */
static const registered_table *owner_of(const stackmap_record *record)
{
    for (const registered_table *node =
             atomic_load_explicit(&registry_tables, memory_order_acquire);
         node; node = node->next)
        if (table_holds(&node->table, record))
            return node;
    return NULL;
}

static int record_address_compare_qsort(const void *a, const void *b)
{
    const stackmap_record *x = *(const stackmap_record *const *)a;
    const stackmap_record *y = *(const stackmap_record *const *)b;
    if (x->return_address != y->return_address)
        return x->return_address < y->return_address ? -1 : 1;
    return x < y ? -1 : x > y; /* input order among duplicates */
}

typedef struct admission {
    const registered_table *node;
    const char *origin;
    char *error;
    size_t error_size;
    const stackmap_record **sorted; /* new records by return address */
    size_t fresh;                   /* of which were not yet registered */
} admission;

static __attribute__((format(printf, 3, 4))) int admission_error(admission *a,
                                                                   const stackmap_record *record,
                                                                   const char *format, ...)
{
    size_t offset = a->node->table.record_offsets[record - a->node->table.records];
    int used = snprintf(a->error, a->error_size, "%s: offset %zu: ", a->origin, offset);
    if (used >= 0 && (size_t)used < a->error_size) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(a->error + used, a->error_size - (size_t)used, format, ap);
        va_end(ap);
    }
    return -1;
}

enum record_verdict { RECORD_REJECTED = -1, RECORD_ALREADY_KNOWN = 0, RECORD_NEW = 1 };

/* Decides whether record can join the registry. previous is the last record
 * of this input admitted as new (inputs are judged in return-address order). */
static enum record_verdict judge_record(admission *a, const stackmap_record *record,
                                        const stackmap_record *previous,
                                        const return_address_index *index)
{
    const stackmap_table *table = &a->node->table;
    if (record->function_address == 0)
        return admission_error(a, record, "record for return address %#" PRIxPTR " has function "
                               "address 0 (expected a linked address; a table from an unlinked "
                               "object file has unresolved relocations)", record->return_address);
    if (previous && previous->return_address == record->return_address) {
        if (stackmap_record_equal(previous, record))
            return RECORD_ALREADY_KNOWN;
        return admission_error(a, record, "record for return address %#" PRIxPTR " conflicts "
                               "with the record at offset %zu of the same input (expected "
                               "identical records for one return address)",
                               record->return_address,
                               table->record_offsets[previous - table->records]);
    }
    const stackmap_record *existing = index ? index_find(index, record->return_address) : NULL;
    if (!existing)
        return RECORD_NEW;
    if (stackmap_record_equal(existing, record))
        return RECORD_ALREADY_KNOWN;
    const registered_table *owner = owner_of(existing);
    return admission_error(a, record, "record for return address %#" PRIxPTR " conflicts with "
                           "the one registered from %s (expected identical records for one "
                           "return address)", record->return_address, owner ? owner->origin : "?");
}

/* Compacts a->sorted to the records that are new to the registry, or fails
 * on a record that cannot be registered. Under registry_lock. */
static int admit_records(admission *a)
{
    const return_address_index *index =
        atomic_load_explicit(&registry_index, memory_order_relaxed);
    size_t kept = 0;
    for (size_t i = 0; i < a->node->table.record_count; i++) {
        const stackmap_record *record = a->sorted[i];
        const stackmap_record *previous = kept ? a->sorted[kept - 1] : NULL;
        enum record_verdict verdict = judge_record(a, record, previous, index);
        if (verdict == RECORD_REJECTED)
            return -1;
        if (verdict == RECORD_NEW)
            a->sorted[kept++] = record;
    }
    a->fresh = kept;
    return 0;
}

/* Checks, then inserts, all or nothing. Under registry_lock. */
static int register_table_locked(registered_table *node, char *error, size_t error_size)
{
    stackmap_table *table = &node->table;
    admission a = {node, node->origin, error, error_size, NULL, 0};
    a.sorted = malloc((table->record_count ? table->record_count : 1) * sizeof *a.sorted);
    if (!a.sorted) {
        snprintf(error, error_size, "%s: offset 0: out of memory", node->origin);
        return -1;
    }
    for (size_t i = 0; i < table->record_count; i++)
        a.sorted[i] = &table->records[i];
    qsort(a.sorted, table->record_count, sizeof *a.sorted, record_address_compare_qsort);
    int status = admit_records(&a);
    if (status == 0 && index_make_room(a.fresh) != 0) {
        snprintf(error, error_size, "%s: offset 0: out of memory for a %zu-entry index",
                 node->origin, a.fresh);
        status = -1;
    }
    if (status == 0) {
        return_address_index *index = atomic_load_explicit(&registry_index, memory_order_relaxed);
        for (size_t i = 0; i < a.fresh; i++)
            index_insert(index, a.sorted[i]);
        node->next = atomic_load_explicit(&registry_tables, memory_order_relaxed);
        atomic_store_explicit(&registry_tables, node, memory_order_release);
        atomic_fetch_add_explicit(&registry_record_total, a.fresh, memory_order_relaxed);
    }
    free(a.sorted);
    return status;
}

static int span_compare_qsort(const void *a, const void *b)
{
    const function_span *x = a, *y = b;
    if (x->function_address != y->function_address)
        return x->function_address < y->function_address ? -1 : 1;
    return (x->last_return_address > y->last_return_address) -
           (x->last_return_address < y->last_return_address);
}

/* Fills node->functions from its records; -1 when out of memory. */
static int index_functions(registered_table *node)
{
    const stackmap_table *table = &node->table;
    function_span *spans = malloc((table->record_count ? table->record_count : 1) * sizeof *spans);
    if (!spans)
        return -1;
    for (size_t i = 0; i < table->record_count; i++)
        spans[i] = (function_span){table->records[i].function_address,
                                   table->records[i].return_address};
    qsort(spans, table->record_count, sizeof *spans, span_compare_qsort);
    /* Sorted by return address within a function: its last one is the highest. */
    size_t count = 0;
    for (size_t i = 0; i < table->record_count; i++) {
        if (count && spans[count - 1].function_address == spans[i].function_address)
            spans[count - 1].last_return_address = spans[i].last_return_address;
        else
            spans[count++] = spans[i];
    }
    /* Kept for the table's life: give back what the duplicates took. */
    function_span *kept = realloc(spans, (count ? count : 1) * sizeof *spans);
    node->functions = kept ? kept : spans;
    node->function_count = count;
    return 0;
}

/* The span of node's function with the greatest address <= address, or NULL. */
static const function_span *span_at_or_below(const registered_table *node, uintptr_t address)
{
    size_t low = 0, high = node->function_count; /* answer in [low, high) is the last <= */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (node->functions[middle].function_address <= address)
            low = middle + 1;
        else
            high = middle;
    }
    return low ? &node->functions[low - 1] : NULL;
}

static void lock_registry(void)
{
    int rc = pthread_mutex_lock(&registry_lock);
    if (rc)
        CORRAL_FATAL("stackmap registry: pthread_mutex_lock failed with %d", rc);
}

static void unlock_registry(void)
{
    int rc = pthread_mutex_unlock(&registry_lock);
    if (rc)
        CORRAL_FATAL("stackmap registry: pthread_mutex_unlock failed with %d", rc);
}

void stackmap_registry_lock_for_fork(void)
{
    lock_registry();
}

void stackmap_registry_unlock_after_fork(void)
{
    unlock_registry();
}

int stackmap_registry_add(const uint8_t *bytes, size_t length, const char *origin,
                          char *error, size_t error_size)
{
    origin = origin ? origin : "stackmap";
    registered_table *node = calloc(1, sizeof *node);
    char *origin_copy = strdup(origin);
    if (!node || !origin_copy) {
        snprintf(error, error_size, "%s: offset 0: out of memory", origin);
        free(node);
        free(origin_copy);
        return -1;
    }
    node->origin = origin_copy;
    if (stackmap_parse(bytes, length, origin_copy, &node->table, error, error_size) != 0) {
        free(origin_copy);
        free(node);
        return -1;
    }
    CORRAL_DEBUG_ASSERT(stackmap_table_check(&node->table), "%s: parsed table fails its check",
                        origin);
    int status = index_functions(node);
    if (status != 0) {
        snprintf(error, error_size, "%s: offset 0: out of memory", origin);
    } else {
        lock_registry();
        status = table_check ? table_check(&node->table, origin_copy, error, error_size) : 0;
        if (status == 0)
            status = register_table_locked(node, error, error_size);
        unlock_registry();
    }
    if (status != 0) {
        stackmap_table_release(&node->table);
        free(node->functions);
        free(origin_copy);
        free(node);
    }
    return status;
}

int stackmap_registry_set_check(stackmap_table_check_fn check, char *error, size_t error_size)
{
    int status = 0;
    lock_registry();
    table_check = check;
    for (const registered_table *node =
             atomic_load_explicit(&registry_tables, memory_order_relaxed);
         check && node && status == 0; node = node->next)
        status = check(&node->table, node->origin, error, error_size);
    unlock_registry();
    return status;
}

/* Defined by the linker when some object has an llvm_stackmaps section
 * (CORRAL_ABI_STACKMAP_SECTION); weak so a program without one links. */
extern const uint8_t __start_llvm_stackmaps[] __attribute__((weak));
extern const uint8_t __stop_llvm_stackmaps[] __attribute__((weak));

int stackmap_registry_add_linked(char *error, size_t error_size)
{
    const uint8_t *start = __start_llvm_stackmaps;
    const uint8_t *stop = __stop_llvm_stackmaps;
    if (!start || !stop || stop <= start)
        return 0;
    return stackmap_registry_add(start, (size_t)(stop - start), "executable", error, error_size);
}

const stackmap_record *stackmap_lookup_in_read_section(uintptr_t return_address)
{
    if (return_address == 0)
        return NULL; /* 0 marks an empty entry */
    const return_address_index *index =
        atomic_load_explicit(&registry_index, memory_order_acquire);
    const stackmap_record *record = index ? index_find(index, return_address) : NULL;
    READER_DONE_WITH_INDEX();
    return record;
}

const stackmap_record *stackmap_lookup(uintptr_t return_address)
{
    urcu_memb_read_lock();
    const stackmap_record *record = stackmap_lookup_in_read_section(return_address);
    urcu_memb_read_unlock();
    return record;
}

size_t stackmap_registry_record_count(void)
{
    return atomic_load_explicit(&registry_record_total, memory_order_relaxed);
}

uintptr_t stackmap_registry_nearest_function(uintptr_t address, uintptr_t *last_return_address,
                                             const char **origin)
{
    uintptr_t best = 0, best_last = 0;
    const char *best_origin = NULL;
    for (const registered_table *node =
             atomic_load_explicit(&registry_tables, memory_order_acquire);
         node; node = node->next) {
        const function_span *span = span_at_or_below(node, address);
        if (!span || span->function_address < best)
            continue;
        if (span->function_address > best) {
            best = span->function_address;
            best_last = 0;
            best_origin = node->origin;
        }
        if (span->last_return_address > best_last)
            best_last = span->last_return_address;
    }
    if (last_return_address)
        *last_return_address = best_last;
    if (origin)
        *origin = best_origin;
    return best;
}
