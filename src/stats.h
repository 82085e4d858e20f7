/* stats.h — what each collection reports: the per-GC log lines
 * (CORRAL_LOG), the totals (CORRAL_STATS, corral_get_stats) and the per-GC
 * callback (corral_set_gc_callback).
 */
#ifndef CORRAL_STATS_H
#define CORRAL_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "gc.h"

/* Opens CORRAL_LOG_FILE when set; 0, or a corral_status with corral_set_error. */
int stats_init(void);
/* The totals at exit (CORRAL_STATS=1). */
void stats_print_summary(void);
/* After a collection, on the collecting thread: totals and the callback. */
void stats_record_cycle(const gc_cycle *cycle);
/* A mutator marked beside the concurrent marker for ns, marking bytes
 * (young_marker_assist). */
void stats_record_marking_assist(uint64_t ns, uint64_t bytes);
/* The cycle's log lines, as CORRAL_LOG asks. */
void stats_log_cycle(const gc_cycle *cycle);
/* Where log lines go: CORRAL_LOG_FILE, else stderr. */
FILE *stats_log_stream(void);

#endif /* CORRAL_STATS_H */
