/* quarantine.c — vacated regions kept inaccessible, and the report of a
 * stale reference that touches one (design in quarantine.h). */
#include "quarantine.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "config.h"
#include "arch.h"
#include "fatal.h"
#include "heap.h"
#include "symbolize.h"

/* What a quarantined region held when it was vacated: enough to compute
 * where each of its live granules went (heap_forward, from a copy). */
typedef struct quarantine_record {
    uint64_t live_bits[HEAP_WORDS_PER_REGION];
    uint32_t block_dest[HEAP_WORDS_PER_REGION];
    uint8_t moved; /* the region's data moved (else nothing in it was live) */
} quarantine_record;

/* Per region: the collection that quarantined it, 0 when it is not held.
 * Writer: the collector (release store, after the record and the
 * protection). Reader: the signal handler (acquire). */
static _Atomic uint64_t *held_by_gc;
/* Per region: released by the last release call. Collector only. */
static uint8_t *just_released;
/* Per region, reserved, touched only for regions ever quarantined. */
static quarantine_record *records;
static size_t region_count;
/* Regions below this index may be held: bounds the release scan. Collector only. */
static size_t held_limit;
static unsigned collections;
static struct sigaction previous_segv;

unsigned quarantine_collections(void)
{
    return collections;
}

/* ------------------------------------------------ async-signal-safe output */

static size_t append(char *buffer, size_t used, size_t size, const char *text)
{
    while (*text && used + 1 < size)
        buffer[used++] = *text++;
    buffer[used] = '\0';
    return used;
}

static size_t append_hex(char *buffer, size_t used, size_t size, uintptr_t value)
{
    char digits[2 + 2 * sizeof value + 1];
    size_t n = sizeof digits - 1;
    digits[n] = '\0';
    do {
        digits[--n] = "0123456789abcdef"[value & 15];
        value >>= 4;
    } while (value);
    digits[--n] = 'x';
    digits[--n] = '0';
    return append(buffer, used, size, digits + n);
}

static size_t append_decimal(char *buffer, size_t used, size_t size, uint64_t value)
{
    char digits[21];
    size_t n = sizeof digits - 1;
    digits[n] = '\0';
    do {
        digits[--n] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    return append(buffer, used, size, digits + n);
}

static void write_all(const char *text, size_t length)
{
    while (length) {
        ssize_t wrote = write(2, text, length);
        if (wrote <= 0)
            return;
        text += wrote;
        length -= (size_t)wrote;
    }
}

/* --------------------------------------------------------------- handler */

/* Where the byte at address went, from the region's record; 0 when the
 * granule held no live data (the object there was dead: freed). */
static uintptr_t forwarded_address(const quarantine_record *record, size_t region,
                                   uintptr_t address)
{
    size_t granule = (address - (uintptr_t)heap_region_start(region)) >> CORRAL_GRANULE_SHIFT;
    uint64_t word = record->live_bits[granule >> 6];
    if (!record->moved || !((word >> (granule & 63)) & 1))
        return 0;
    size_t destination = heap_forwarded_granule(word, record->block_dest[granule >> 6],
                                                (unsigned)(granule & 63));
    return (uintptr_t)heap_granule_address(destination) + (address & (CORRAL_GRANULE - 1));
}

static void report_and_abort(uintptr_t address, size_t region, uint64_t gc, uintptr_t pc)
{
    char line[512];
    size_t n = append(line, 0, sizeof line, "corral: stale reference: address ");
    n = append_hex(line, n, sizeof line, address);
    uintptr_t moved_to = forwarded_address(&records[region], region, address);
    if (moved_to) {
        n = append(line, n, sizeof line, " was moved to ");
        n = append_hex(line, n, sizeof line, moved_to);
    } else {
        n = append(line, n, sizeof line, " was freed");
    }
    n = append(line, n, sizeof line, " by GC ");
    n = append_decimal(line, n, sizeof line, gc);
    n = append(line, n, sizeof line, " (CORRAL_GC_STRESS=quarantine keeps vacated memory "
                                     "inaccessible); read or written at pc ");
    n = append_hex(line, n, sizeof line, pc);
    n = append(line, n, sizeof line, "\n");
    write_all(line, n);
    /* Symbolising is not async-signal-safe (dladdr takes the loader lock),
     * so it comes after the line above is out: at worst it is lost. */
    char where[256];
    corral_describe_code_address(pc, where, sizeof where);
    n = append(line, 0, sizeof line, "corral: stale reference: at ");
    n = append(line, n, sizeof line, where);
    n = append(line, n, sizeof line,
               "\n  a reference the collector was not told about (an unregistered global, "
               "an integer, a raw pointer in unmanaged memory) outlived a collection\n");
    write_all(line, n);
    abort();
}

/* Hands a fault that is not ours to the handler we replaced. A handler
 * installed with SA_RESETHAND, the default action or SIG_IGN is restored and
 * the instruction retried, so it runs with the flags it was installed with. */
static void chain(int signal, siginfo_t *info, void *context)
{
    const struct sigaction *old = &previous_segv;
    bool function = (old->sa_flags & SA_SIGINFO) ? old->sa_sigaction != NULL
                                                  : (old->sa_handler != SIG_DFL &&
                                                     old->sa_handler != SIG_IGN);
    if (!function || (old->sa_flags & SA_RESETHAND)) {
        sigaction(signal, old, NULL);
        return;
    }
    if (old->sa_flags & SA_SIGINFO)
        old->sa_sigaction(signal, info, context);
    else
        old->sa_handler(signal);
}

static void segv_handler(int signal, siginfo_t *info, void *context)
{
    uintptr_t address = (uintptr_t)info->si_addr;
    uintptr_t base = (uintptr_t)corral_heap.base;
    if (held_by_gc && address - base < (uintptr_t)(corral_heap.end - corral_heap.base)) {
        size_t region = (address - base) >> HEAP_REGION_SHIFT;
        uint64_t gc = atomic_load_explicit(&held_by_gc[region], memory_order_acquire);
        if (gc) {
            const ucontext_t *uc = context;
            report_and_abort(address, region, gc, ARCH_SIGNAL_PC(uc));
        }
    }
    chain(signal, info, context);
}

/* ------------------------------------------------------------- lifecycle */

static void *reserve_table(size_t bytes)
{
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED)
        CORRAL_FATAL("cannot reserve %zu bytes for the quarantine tables: %s", bytes,
                     strerror(errno));
    return memory;
}

void quarantine_init(void)
{
    collections = (unsigned)corral_runtime_config.stress_quarantine;
    if (!collections)
        return;
    region_count = corral_heap.region_count;
    records = reserve_table(region_count * sizeof *records);
    just_released = reserve_table(region_count);
    held_by_gc = reserve_table(region_count * sizeof *held_by_gc);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = segv_handler;
    /* SA_NODEFER: a fault inside the report (symbolising) still ends the process. */
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous_segv);
}

bool quarantine_region_held(size_t region)
{
    return held_by_gc && region < region_count &&
           atomic_load_explicit(&held_by_gc[region], memory_order_relaxed) != 0;
}

bool quarantine_region_just_released(size_t region)
{
    return just_released && region < region_count && just_released[region];
}

void quarantine_release_from_stw(uint64_t gc_number)
{
    if (!held_by_gc)
        return;
    for (size_t r = 0; r < held_limit; r++) {
        just_released[r] = 0;
        uint64_t gc = atomic_load_explicit(&held_by_gc[r], memory_order_relaxed);
        if (!gc || gc + collections > gc_number)
            continue;
        char *start = heap_region_start(r);
        if (mprotect(start, HEAP_REGION_SIZE, PROT_READ | PROT_WRITE) != 0)
            CORRAL_FATAL("cannot release quarantined region %zu at %p: %s", r, (void *)start,
                         strerror(errno));
        atomic_store_explicit(&held_by_gc[r], 0, memory_order_relaxed);
        just_released[r] = 1;
    }
}

void quarantine_region_from_stw(size_t region, uint64_t gc_number)
{
    quarantine_record *record = &records[region];
    size_t first_word = region * HEAP_WORDS_PER_REGION;
    memcpy(record->live_bits, &corral_heap.live_bits[first_word], sizeof record->live_bits);
    memcpy(record->block_dest, &corral_heap.block_dest[first_word], sizeof record->block_dest);
    record->moved = corral_heap.region_moves[region];
    char *start = heap_region_start(region);
    /* The pages come back zeroed when released: the allocator and the
     * compactor's destinations expect zero; meanwhile they cost no memory. */
    madvise(start, HEAP_REGION_SIZE, MADV_DONTNEED);
    if (mprotect(start, HEAP_REGION_SIZE, PROT_NONE) != 0)
        CORRAL_FATAL("cannot quarantine region %zu at %p: %s", region, (void *)start,
                     strerror(errno));
    atomic_store_explicit(&held_by_gc[region], gc_number, memory_order_release);
    if (region + 1 > held_limit)
        held_limit = region + 1;
}

const char *quarantine_check(void)
{
    if (!held_by_gc)
        return NULL;
    const heap *h = &corral_heap;
    for (size_t i = h->range_next; i < h->range_count; i++) {
        const heap_free_range *range = &h->ranges[i];
        if (range->start >= range->end)
            continue;
        for (size_t r = heap_region_index(range->start);
             r < held_limit && heap_region_start(r) < range->end; r++)
            if (atomic_load_explicit(&held_by_gc[r], memory_order_relaxed))
                return "a free range overlaps a quarantined region";
    }
    for (size_t r = 0; r < held_limit; r++)
        if (atomic_load_explicit(&held_by_gc[r], memory_order_relaxed) &&
            heap_region_start(r + 1) > h->top)
            return "a quarantined region lies above the heap top";
    return NULL;
}
