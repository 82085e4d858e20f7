/* corral_bench.h — corral's side of the benchmark harness, shared by the
 * managed C benchmarks (compiled with corralc, so everything here is managed
 * code): start-up with an optional heap limit, the pause log fed from the
 * per-GC callback, and the RESULT line's collector fields.
 */
#ifndef CORRAL_BENCH_MANAGED_H
#define CORRAL_BENCH_MANAGED_H

#include <corral.h>

#include "bench.h"

/* Every collection's pause (the RESULT line's pause_* keys), and the minor
 * collections' again on their own (minor_*; CORRAL_GC_GENERATIONAL=1). */
static struct bench_pauses corral_pauses;
static struct bench_pauses corral_minor_pauses;

/* Called by the runtime (C) after each collection: NOPOLL and call-free (the
 * recorder is always_inline), so it has no safepoint for a walk to stop in. */
static CORRAL_NOPOLL void corral_bench_on_gc(const corral_gc_info *info, void *context)
{
    (void)context;
    bench_pauses_record(&corral_pauses, info->pause_ns);
    if (info->minor)
        bench_pauses_record(&corral_minor_pauses, info->pause_ns);
}

/* A start-up call failed: say which and why. */
static BENCH_UNUSED int corral_bench_failed(const char *bench, const char *call)
{
    fprintf(stderr, "%s/corral: %s failed: %s\n", bench, call, corral_last_error());
    return 1;
}

/* corral_init with heap_max bytes (0: the default); CORRAL_* variables still
 * win. main must call corral_thread_attach() itself afterwards: attach opens
 * the managed stack segment at its caller's frame. */
static BENCH_UNUSED void corral_bench_init(const char *bench, size_t heap_max)
{
    corral_options options = {0};
    options.heap_max = heap_max;
    if (corral_init(heap_max ? &options : NULL) != CORRAL_OK)
        exit(corral_bench_failed(bench, "corral_init"));
    corral_set_gc_callback(corral_bench_on_gc, NULL);
}

/* The collector's RESULT fields: GC count from the statistics; more "key=value"
 * pairs (time to safepoint, heap size, bytes moved, the caller's more, then
 * the minor pauses when there were minor collections) into extra. */
static BENCH_UNUSED long corral_bench_gc_count(char *extra, size_t size, const char *more)
{
    corral_stats stats;
    corral_get_stats(&stats);
    char minor[128] = "";
    if (corral_minor_pauses.count > 0)
        bench_pauses_keys(minor, sizeof minor, "minor", &corral_minor_pauses);
    char assists[96] = ""; /* not pauses: the allocating thread alone marked */
    if (stats.marking_assists)
        snprintf(assists, sizeof assists, " assist_count=%llu assist_total_ms=%.3f assist_max_ms=%.3f",
                 (unsigned long long)stats.marking_assists, (double)stats.assist_total_ns / 1e6,
                 (double)stats.assist_max_ns / 1e6);
    snprintf(extra, size, "ttsp_max_ms=%.3f heap_bytes=%llu bytes_moved=%llu%s%s%s%s%s",
             (double)stats.ttsp_max_ns / 1e6, (unsigned long long)stats.heap_bytes,
             (unsigned long long)stats.bytes_moved, more && *more ? " " : "", more ? more : "", *minor ? " " : "",
             minor, assists);
    return (long)stats.collections;
}

#endif /* CORRAL_BENCH_MANAGED_H */
