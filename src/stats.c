/* stats.c — per-GC log lines (CORRAL_LOG), totals (CORRAL_STATS, the C
 * API) and the per-GC callback. */
#include "stats.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fatal.h"
#include "gc.h"
#include "heap.h"
#include "symbolize.h"
#include "workers.h"

/* Totals. Writers, under stats_lock: the collecting thread after each GC,
 * an assisting mutator after its assist. Readers: corral_get_stats (any
 * thread, under stats_lock). */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static corral_stats totals;

static FILE *log_stream; /* set at init; stderr unless CORRAL_LOG_FILE */

/* Writer: corral_set_gc_callback (any thread, under stats_lock). */
static corral_gc_callback_fn callback;
static void *callback_context;

FILE *stats_log_stream(void)
{
    return log_stream ? log_stream : stderr;
}

int stats_init(void)
{
    const char *path = corral_runtime_config.log_file;
    if (!path[0]) {
        log_stream = stderr;
        return 0;
    }
    log_stream = fopen(path, "a");
    if (!log_stream) {
        corral_set_error("CORRAL_LOG_FILE='%s': cannot open for appending: %s", path,
                         strerror(errno));
        return CORRAL_ERROR_CONFIG;
    }
    setvbuf(log_stream, NULL, _IOLBF, 0);
    return 0;
}


static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static double mib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

void stats_record_cycle(const gc_cycle *cycle)
{
    corral_gc_info info = {
        .number = cycle->number,
        .cause = cycle->cause,
        .ttsp_ns = cycle->ttsp_ns,
        .pause_ns = cycle->pause_ns,
        .mark_ns = cycle->phases[GC_PHASE_MARK].wall_ns,
        .compact_ns = cycle->phases[GC_PHASE_PLAN].wall_ns + cycle->phases[GC_PHASE_UPDATE].wall_ns +
                      cycle->phases[GC_PHASE_SLIDE].wall_ns,
        .heap_before = cycle->heap_before,
        .heap_after = cycle->heap_after,
        .live_bytes = cycle->live_bytes,
        .moved_bytes = cycle->moved_bytes,
        .workers = cycle->workers,
        .minor = cycle->concurrent_start ? 2 : cycle->minor,
        .promoted_bytes = cycle->promoted_bytes,
    };
    _Static_assert((int)CORRAL_GC_PHASES == (int)GC_PHASE_COUNT, "public and internal phases agree");
    for (int phase = 0; phase < GC_PHASE_COUNT; phase++) {
        info.phase_wall_ns[phase] = cycle->phases[phase].wall_ns;
        info.phase_work_ns[phase] = cycle->phases[phase].work_ns;
        info.phase_span_ns[phase] = cycle->phases[phase].span_ns;
    }
    pthread_mutex_lock(&stats_lock);
    totals.collections += info.minor != 2; /* a concurrent one counts at its end */
    totals.pause_total_ns += info.pause_ns;
    if (info.pause_ns > totals.pause_max_ns)
        totals.pause_max_ns = info.pause_ns;
    totals.mark_total_ns += info.mark_ns;
    totals.compact_total_ns += info.compact_ns;
    if (info.ttsp_ns > totals.ttsp_max_ns)
        totals.ttsp_max_ns = info.ttsp_ns;
    totals.bytes_moved += info.moved_bytes;
    totals.heap_bytes = info.heap_after;
    totals.live_bytes = info.live_bytes;
    if (info.minor) {
        totals.minor_collections += info.minor == 1;
        totals.minor_pause_total_ns += info.pause_ns;
        if (info.pause_ns > totals.minor_pause_max_ns)
            totals.minor_pause_max_ns = info.pause_ns;
        totals.promoted_bytes += info.promoted_bytes;
    }
    corral_gc_callback_fn fn = callback;
    void *context = callback_context;
    pthread_mutex_unlock(&stats_lock);
    if (fn)
        fn(&info, context);
}

void stats_record_marking_assist(uint64_t ns, uint64_t bytes)
{
    pthread_mutex_lock(&stats_lock);
    totals.marking_assists++;
    totals.assist_total_ns += ns;
    if (ns > totals.assist_max_ns)
        totals.assist_max_ns = ns;
    totals.assist_marked_bytes += bytes;
    pthread_mutex_unlock(&stats_lock);
    if (corral_runtime_config.log & CORRAL_LOG_GC)
        fprintf(stats_log_stream(),
                "corral: marking assist %.3fms, %.1fM marked beside the concurrent marker\n",
                ms(ns), mib(bytes));
}

void stats_log_cycle(const gc_cycle *cycle)
{
    unsigned log = corral_runtime_config.log;
    if (!(log & (CORRAL_LOG_GC | CORRAL_LOG_PHASES)))
        return;
    FILE *out = stats_log_stream();
    char site[256] = "-";
    if (cycle->slowest_site)
        corral_describe_code_address(cycle->slowest_site, site, sizeof site);
    const gc_phase_stats *p = cycle->phases;
    char nursery[128] = "";
    int used = 0;
    if (cycle->nursery_bytes)
        used = snprintf(nursery, sizeof nursery, " nursery=%.1fM", mib(cycle->nursery_bytes));
    if (cycle->concurrent_mark_ns && used >= 0 && (size_t)used < sizeof nursery)
        snprintf(nursery + used, sizeof nursery - (size_t)used,
                 " concurrent_mark=%.2fms satb_logged=%zu helpers_marked=%.1fM",
                 ms(cycle->concurrent_mark_ns), cycle->satb_logged,
                 mib(cycle->helper_marked_bytes));
    fprintf(out,
            "corral: gc %" PRIu64 " cause=%s kind=%s ttsp=%.3fms (slowest thread %u at %s) "
            "roots=%.2fms mark=%.2fms %s=%.2fms pause=%.2fms heap=%.1fM->%.1fM "
            "live=%.1fM moved=%.1fM survived=%.1fM promoted=%.1fM threads=%zu workers=%u "
            "limit=%.1fM%s\n",
            cycle->number, cycle->cause,
            cycle->concurrent_start ? "minor-start" : cycle->minor ? "minor" : "major",
            ms(cycle->ttsp_ns),
            cycle->slowest_thread, site,
            ms(p[GC_PHASE_ROOTS].wall_ns), ms(p[GC_PHASE_MARK].wall_ns),
            cycle->minor ? "sweep" : "compact", ms(p[GC_PHASE_PLAN].wall_ns + p[GC_PHASE_UPDATE].wall_ns + p[GC_PHASE_SLIDE].wall_ns +
               p[GC_PHASE_FINISH].wall_ns),
            ms(cycle->pause_ns), mib(cycle->heap_before), mib(cycle->heap_after),
            mib(cycle->live_bytes), mib(cycle->moved_bytes),
            mib(cycle->minor ? cycle->marked_bytes : 0), mib(cycle->promoted_bytes),
            cycle->thread_count, cycle->workers,
            mib(cycle->heap_limit), nursery);
    if (!(log & CORRAL_LOG_PHASES))
        return;
    fprintf(out,
            "corral: gc %" PRIu64 " marked %" PRIu64 " objects, deepest chain %" PRIu64
            ", %" PRIu64 " stack roots in %" PRIu64 " frames, slide chain %" PRIu64
            " regions\n",
            cycle->number, cycle->marked_objects, cycle->mark_depth, cycle->stack_roots,
            cycle->stack_frames, cycle->slide_chain);
    for (int phase = 0; phase < GC_PHASE_COUNT; phase++) {
        if (!p[phase].name)
            continue; /* not run in this kind of collection (a minor one plans nothing) */
        fprintf(out, "corral: gc %" PRIu64 "   ", cycle->number);
        gc_phase_stats_print(out, &p[phase]);
    }
}

double corral_gc_predicted_speedup(const corral_gc_info *info, unsigned workers, int brent)
{
    if (workers == 0)
        workers = 1;
    double work = 0, time = 0;
    for (int phase = 0; phase < CORRAL_GC_PHASES; phase++) {
        double w = (double)info->phase_work_ns[phase];
        double span = (double)info->phase_span_ns[phase];
        if (span > w)
            span = w;
        work += w;
        time += brent ? w / workers + span : (span > w / workers ? span : w / workers);
    }
    return time > 0 ? work / time : 1.0;
}

void corral_get_stats(corral_stats *out)
{
    pthread_mutex_lock(&stats_lock);
    *out = totals;
    pthread_mutex_unlock(&stats_lock);
    out->bytes_allocated = atomic_load_explicit(&corral_heap.allocated_total, memory_order_relaxed);
}

void corral_set_gc_callback(corral_gc_callback_fn fn, void *context)
{
    pthread_mutex_lock(&stats_lock);
    callback = fn;
    callback_context = context;
    pthread_mutex_unlock(&stats_lock);
}

void stats_print_summary(void)
{
    corral_stats s;
    corral_get_stats(&s);
    FILE *out = stats_log_stream();
    fprintf(out,
            "corral: stats: %" PRIu64 " GCs, pause total %.2fms max %.2fms, mark %.2fms, "
            "compact %.2fms, TTSP max %.3fms, allocated %.1fM, moved %.1fM, "
            "heap %.1fM, live %.1fM\n",
            s.collections, ms(s.pause_total_ns), ms(s.pause_max_ns), ms(s.mark_total_ns),
            ms(s.compact_total_ns), ms(s.ttsp_max_ns), mib(s.bytes_allocated), mib(s.bytes_moved),
            mib(s.heap_bytes), mib(s.live_bytes));
    if (s.minor_collections)
        fprintf(out,
                "corral: stats: %" PRIu64 " minor GCs (pause total %.2fms max %.2fms), %" PRIu64
                " major, promoted %.1fM\n",
                s.minor_collections, ms(s.minor_pause_total_ns), ms(s.minor_pause_max_ns),
                s.collections - s.minor_collections, mib(s.promoted_bytes));
    if (s.marking_assists)
        fprintf(out,
                "corral: stats: %" PRIu64 " marking assists (total %.2fms max %.2fms, %.1fM "
                "marked)\n",
                s.marking_assists, ms(s.assist_total_ns), ms(s.assist_max_ns),
                mib(s.assist_marked_bytes));
}
