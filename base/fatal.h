/* fatal.h — the one way corral dies: "corral: fatal: ..." with file, line,
 * errno where it applies, and the collector state that explains it.
 *
 * Invariant failures are fatal in every build; they are cheap checks on slow
 * paths. CORRAL_DEBUG_ASSERT checks hot-path invariants in debug builds only.
 * The layers above add their state to a report through context printers
 * (corral_fatal_add_context); this file knows none of it.
 */
#ifndef CORRAL_BASE_FATAL_H
#define CORRAL_BASE_FATAL_H

#include <errno.h>
#include <stdio.h>

_Noreturn void corral_fatal_at(const char *file, int line, int errnum, const char *format, ...)
    __attribute__((format(printf, 4, 5), cold));

#define CORRAL_FATAL(...) corral_fatal_at(__FILE__, __LINE__, 0, __VA_ARGS__)
#define CORRAL_FATAL_ERRNO(...) corral_fatal_at(__FILE__, __LINE__, errno, __VA_ARGS__)

/* text is the condition as written: stringised here, by the macro the caller
 * named, it would print the argument after macro expansion (atomics become
 * compiler builtins). */
#define CORRAL_CHECK_AS(condition, text, ...)                                          \
    do {                                                                               \
        if (__builtin_expect(!(condition), 0))                                         \
            corral_fatal_at(__FILE__, __LINE__, 0, "check failed: " text ": "          \
                            __VA_ARGS__);                                              \
    } while (0)

#define CORRAL_CHECK(condition, ...) CORRAL_CHECK_AS(condition, #condition, __VA_ARGS__)

/* API misuse a user can cause: the message alone says what is wrong; the C
 * condition would only confuse. */
#define CORRAL_REQUIRE(condition, ...)                                                 \
    do {                                                                               \
        if (__builtin_expect(!(condition), 0))                                         \
            corral_fatal_at(__FILE__, __LINE__, 0, __VA_ARGS__);                       \
    } while (0)

#ifdef CORRAL_DEBUG_CHECKS
#define CORRAL_DEBUG_ASSERT(condition, ...) CORRAL_CHECK_AS(condition, #condition, __VA_ARGS__)
#define CORRAL_DEBUG_REQUIRE(condition, ...) CORRAL_REQUIRE(condition, __VA_ARGS__)
#else
#define CORRAL_DEBUG_ASSERT(condition, ...) ((void)0)
#define CORRAL_DEBUG_REQUIRE(condition, ...) ((void)0)
#endif

/* A context printer adds lines of state to every fatal report (the GC number
 * and phase, the stress seed, ...). At most a handful are registered, at init. */
typedef void (*corral_fatal_context_fn)(FILE *out);
void corral_fatal_add_context(corral_fatal_context_fn printer);

/* Error messages a user caused (bad CORRAL_* value, bad API use) are kept per
 * thread and printed to stderr as "corral: error: ...". */
void corral_set_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* The calling thread's last such message, "" before any: what the public
 * corral_last_error() returns (src/init.c; base exports no API of its own). */
const char *corral_error_message(void);

#endif /* CORRAL_BASE_FATAL_H */
