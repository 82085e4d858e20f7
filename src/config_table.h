/* config_table.h — every configuration knob of corral, defined once.
 *
 * The struct corral_config, the CORRAL_* parser, range checks, error
 * messages, CORRAL_HELP=1 and docs/env.md are all generated from the three
 * tables below. Adding a knob is one X(...) entry (plus a word list for an
 * ENUM or FLAGS knob, or a corral_options field for an OPTION knob).
 *
 * CORRAL_CONFIG_TABLE(X) calls
 *   X(field, NAME, TYPE, default, minimum, maximum, special, option, help)
 *     field     member of corral_config (and of corral_options, with OPTION)
 *     NAME      the environment variable is CORRAL_<NAME>
 *     TYPE      SIZE     size_t, bytes; decimal with an optional k/K, m/M, g/G suffix
 *               UINT     unsigned;  UINT64: uint64_t;  PERCENT: unsigned, "90" or "90%"
 *               BOOL     bool: 0/1, true/false, yes/no, on/off
 *               STRING   char[CORRAL_CONFIG_STRING_MAX]
 *               ENUM     enum corral_<field>: one word of CORRAL_CONFIG_WORDS_<field>
 *               FLAGS    unsigned bitmask of enum corral_<field>: comma-separated words
 *               STRESS   the fields of CORRAL_STRESS_MODES: comma-separated modes
 *     default   text, parsed exactly like an environment value
 *     minimum, maximum   inclusive range of numeric types (0, 0 for the others)
 *     special   what 0 means for a number, or what empty means for a string; NULL if
 *               nothing special (a 0 below minimum is accepted only when this is set)
 *     option    OPTION: corral_options.<field> sets it too (non-zero wins over the
 *               default, the environment wins over it); NO_OPTION: environment only
 *     help      one line for CORRAL_HELP=1 and docs/env.md
 */
#ifndef CORRAL_CONFIG_TABLE_H
#define CORRAL_CONFIG_TABLE_H

#include <stdint.h>

#define CORRAL_KiB(n) ((uint64_t)(n) << 10)
#define CORRAL_MiB(n) ((uint64_t)(n) << 20)
#define CORRAL_GiB(n) ((uint64_t)(n) << 30)

/* Longest STRING value, terminating NUL included. */
#define CORRAL_CONFIG_STRING_MAX 4096

#define CORRAL_CONFIG_TABLE(X)                                                             \
    X(heap_min, HEAP_MIN, SIZE, "0", CORRAL_MiB(1), CORRAL_GiB(32), "auto", OPTION,          \
      "smallest heap limit: no collection before the heap reaches it; auto = 16M, or "     \
      "half of CORRAL_HEAP_MAX when that is below 32M; = CORRAL_HEAP_MAX: a fixed heap, "  \
      "collected only when full")                                                          \
    X(heap_max, HEAP_MAX, SIZE, "0", CORRAL_MiB(4), CORRAL_GiB(32), "auto", OPTION,          \
      "hard limit of the heap, large objects included; auto = half of physical memory, "   \
      "at most 32G (and at least CORRAL_HEAP_MIN)")                                        \
    X(gc_threads, GC_THREADS, UINT, "0", 1, 256, "auto", OPTION,                             \
      "GC worker threads, the collecting thread included; auto = the CPUs this "           \
      "process may run on, at most 8")                                                     \
    X(gc_heap_per_worker, GC_HEAP_PER_WORKER, SIZE, "0", 1, CORRAL_GiB(32), "auto",          \
      NO_OPTION,                                                                           \
      "heap bytes per GC worker woken for a GC: a smaller heap is collected by fewer "     \
      "workers, since waking one costs more than it saves; 1 = every GC wakes every "      \
      "worker; auto = 4M when CORRAL_GC_THREADS is auto, else 1")                          \
    X(tlab_size, TLAB_SIZE, SIZE, "32K", CORRAL_KiB(4), CORRAL_MiB(1), NULL, OPTION,         \
      "bytes of each thread-local allocation buffer")                                      \
    X(tlab_zero, TLAB_ZERO, BOOL, "0", 0, 1, NULL, OPTION,                                   \
      "1 = zero each TLAB when it is handed out, for JIT fast paths that bump the TLAB "   \
      "and write only the header; 0 = corral.h's fast paths zero each object they bump "   \
      "(cheaper: no second pass over fresh memory)")                                        \
    X(large_object_size, LARGE_OBJECT_SIZE, SIZE, "8K", CORRAL_KiB(1), CORRAL_KiB(64), NULL, \
      OPTION, "objects of at least this size go to the large-object space and never move") \
    X(heap_expansiveness, HEAP_EXPANSIVENESS, UINT, "16", 0, 10000, NULL, NO_OPTION,         \
      "c of the adaptive heap limit live + c x sqrt(live x allocation rate / collection "   \
      "rate), sizes in MiB (MemBalancer): larger buys GC time with memory; 0 = the "       \
      "smallest headroom (live/10 + 1M); generational, 3/4 of it after a major GC the "    \
      "heap limit brought that frees under 1/8 of the heap (docs/performance.md)")         \
    X(dense_prefix, DENSE_PREFIX, PERCENT, "90", 0, 100, NULL, NO_OPTION,                    \
      "leading heap regions at least this full stay in place; 0 = off, everything "        \
      "movable moves")                                                                     \
    X(gc_generational, GC_GENERATIONAL, BOOL, "0", 0, 0, NULL, NO_OPTION,                    \
      "1 = generational: minor collections of the objects allocated since the last "       \
      "collection, the write barrier's cards as roots; needs every reference store into "  \
      "the heap barriered (corralc's default, corral_store_ref in plain C)")               \
    X(gc_concurrent, GC_CONCURRENT, BOOL, "0", 0, 0, NULL, NO_OPTION,                        \
      "with CORRAL_GC_GENERATIONAL=1, 1 = minor collections mark on a thread of their own "  \
      "between two short pauses (the auto nursery then keeps a pause goal, 1000 us unless "  \
      "CORRAL_GC_PAUSE_GOAL_US says); needs the deletion barrier in every reference store " \
      "(corralc --satb-barrier, corral_store_ref in plain C)")                              \
    X(gc_concurrent_markers, GC_CONCURRENT_MARKERS, UINT, "0", 1, 256, "auto", NO_OPTION,    \
      "with CORRAL_GC_CONCURRENT=1, threads that mark a minor collection while the "       \
      "program runs, the marker thread included; auto = the GC workers "                   \
      "(CORRAL_GC_THREADS) / 4, rounded, at least 1 (as G1's ConcGCThreads)")                \
    X(gc_nursery, GC_NURSERY, SIZE, "0", CORRAL_KiB(256), CORRAL_GiB(4), "auto", NO_OPTION,  \
      "with CORRAL_GC_GENERATIONAL=1, bytes allocated between minor collections; "         \
      "auto = the old space's size, from 4M to 32M per GC worker (8M when "              \
      "CORRAL_GC_CONCURRENT=1)")                                                            \
    X(gc_pause_goal_us, GC_PAUSE_GOAL_US, UINT, "0", 100, 10000000, "off", NO_OPTION,          \
      "with CORRAL_GC_GENERATIONAL=1 and the auto nursery, microseconds a minor collection's "  \
      "marking and sweeping may take: the nursery shrinks while survivors would take longer") \
    X(gc_promote_after, GC_PROMOTE_AFTER, UINT, "2", 1, 2, NULL, NO_OPTION,                  \
      "with CORRAL_GC_GENERATIONAL=1, the minor collections an object survives before it "  \
      "is old: 1 = at the first, 2 = it stays young for one more (aging)")                 \
    X(log, LOG, FLAGS, "", 0, 0, NULL, NO_OPTION, "what to log")                             \
    X(log_file, LOG_FILE, STRING, "", 0, 0, "stderr", NO_OPTION,                             \
      "file that log lines and statistics go to")                                          \
    X(stats, STATS, BOOL, "0", 0, 0, NULL, NO_OPTION, "print a statistics summary at exit")   \
    X(verify, GC_VERIFY, FLAGS, "", 0, 0, NULL, NO_OPTION, "heap verification around each GC") \
    X(stress, GC_STRESS, STRESS, "", 0, 0, NULL, NO_OPTION,                                  \
      "GC stress modes, combinable, to flush out rooting bugs")                            \
    X(seed, GC_SEED, UINT64, "0", 0, UINT64_MAX, "from the clock", NO_OPTION,                \
      "seed of randomised stress (alloc:random); 0 = from the clock; the runtime "         \
      "prints the seed it uses so a run can be replayed")                                  \
    X(poll_mode, POLL_MODE, ENUM, "load", 0, 0, NULL, NO_OPTION,                             \
      "how a safepoint poll sees a GC request")                                            \
    X(transition_fence, TRANSITION_FENCE, ENUM, "fence", 0, 0, NULL, NO_OPTION,              \
      "how a managed->unmanaged transition is ordered against the GC request")             \
    X(help, HELP, BOOL, "0", 0, 0, NULL, NO_OPTION, "print this list of variables at start-up")

/* Words of ENUM and FLAGS knobs: W(constant, word, help). An ENUM gets the
 * constants 0, 1, ... in order; FLAGS get one bit each, in order. Every FLAGS
 * knob also accepts "all". */
#define CORRAL_CONFIG_WORDS_log(W)                                                          \
    W(CORRAL_LOG_GC, "gc", "one line per GC: number, cause, TTSP, phase times, heap "       \
                           "before/after, live, workers")                                 \
    W(CORRAL_LOG_PHASES, "phases", "per-phase times, work and span of each GC")             \
    W(CORRAL_LOG_STRESS, "stress", "why each stress-induced GC ran")                        \
    W(CORRAL_LOG_THREADS, "threads", "thread attach/detach, stops and handshakes")          \
    W(CORRAL_LOG_VERIFY, "verify", "heap verification results")

#define CORRAL_CONFIG_WORDS_verify(W)                                                       \
    W(CORRAL_VERIFY_BEFORE, "before", "verify the heap before each GC")                     \
    W(CORRAL_VERIFY_AFTER, "after", "verify the heap after each GC")                        \
    W(CORRAL_VERIFY_REMARK, "remark", "mark twice and compare the mark bitmaps")            \
    W(CORRAL_VERIFY_SATB, "satb",                                                           \
      "check the deletion barrier: what was reachable when a GC ended is reached at the "   \
      "next from those roots and the logged overwritten references")

/* A trap mode (the page protected, a SIGSEGV handler sending the faulting
 * poll to the slow path) is not built: host VMs own their signal handlers,
 * and the load costs 0-2% with strip-mined loop polls (docs/polls.md). */
#define CORRAL_CONFIG_WORDS_poll_mode(W)                                                    \
    W(CORRAL_POLL_MODE_LOAD, "load", "a load of the poll word and a never-taken branch")

#define CORRAL_CONFIG_WORDS_transition_fence(W)                                             \
    W(CORRAL_TRANSITION_FENCE_FENCE, "fence", "a full fence on the mutator side")           \
    W(CORRAL_TRANSITION_FENCE_MEMBARRIER, "membarrier",                                     \
      "a plain store on the mutator side; the GC coordinator issues membarrier()")

/* Modes of CORRAL_GC_STRESS: S(field, word, KIND, argument, default_argument, group, help)
 *   KIND      FLAG: bool field, "word"; COUNT: uint64_t field, "word:ARGUMENT" with an
 *             integer >= 1 (0 in the field = mode off)
 *   default_argument   0: the argument is required; else "word" alone means this value
 *   group     modes of the same group exclude each other; NULL: no group */
#define CORRAL_STRESS_MODES(S)                                                              \
    S(stress_alloc_every, "alloc", COUNT, "N", 0, "allocation schedule",                   \
      "collect at every N-th allocation, counted process-wide")                            \
    S(stress_thread_alloc_every, "thread-alloc", COUNT, "N", 0, "allocation schedule",     \
      "collect at every N-th allocation of each thread")                                   \
    S(stress_alloc_random_mean, "alloc:random", COUNT, "MEAN", 1000, "allocation schedule", \
      "collect after random numbers of allocations (process-wide) with mean MEAN, "        \
      "drawn from CORRAL_GC_SEED")                                                         \
    S(stress_polls, "polls", FLAG, NULL, 0, NULL,                                           \
      "collect at each distinct poll site the first time it is reached")                   \
    S(stress_transitions, "transitions", FLAG, NULL, 0, NULL,                               \
      "collect on every managed<->unmanaged transition")                                   \
    S(stress_move_all, "move-all", FLAG, NULL, 0, NULL,                                     \
      "no dense prefix: every GC moves every movable object")                              \
    S(stress_poison, "poison", FLAG, NULL, 0, NULL,                                         \
      "fill vacated memory with a recognisable pattern")                                   \
    S(stress_quarantine, "quarantine", COUNT, "N", 2, NULL,                                 \
      "memory a GC vacates stays inaccessible (PROT_NONE) for N GCs; a stale reference "   \
      "that touches it is reported (moved to where, or freed, by which GC) and aborts")   \
    S(stress_minor, "minor", FLAG, NULL, 0, "collection kind",                              \
      "with CORRAL_GC_GENERATIONAL=1, every collection is minor until the old space "      \
      "nearly fills the heap limit")                                                      \
    S(stress_mixed_major_one_in, "mixed", COUNT, "N", 4, "collection kind",                  \
      "with CORRAL_GC_GENERATIONAL=1, collections not explicitly major are minor, one "    \
      "in N (at random, from CORRAL_GC_SEED) major")

#endif /* CORRAL_CONFIG_TABLE_H */
