/* fatal.c — fatal reports and user-facing error messages. */
#include "fatal.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_CONTEXT_PRINTERS = 8 };

/* Writer: corral_fatal_add_context (at init, before threads run). Reader: a
 * fatal report on any thread. The count is published with release order. */
static corral_fatal_context_fn context_printers[MAX_CONTEXT_PRINTERS];
static atomic_int context_printer_count;

/* Set by the first thread that dies, so two fatal errors do not interleave
 * and a fatal error inside a context printer does not recurse. */
static atomic_flag dying = ATOMIC_FLAG_INIT;

void corral_fatal_add_context(corral_fatal_context_fn printer)
{
    int index = atomic_load_explicit(&context_printer_count, memory_order_relaxed);
    if (index >= MAX_CONTEXT_PRINTERS)
        CORRAL_FATAL("more than %d fatal context printers", MAX_CONTEXT_PRINTERS);
    context_printers[index] = printer;
    atomic_store_explicit(&context_printer_count, index + 1, memory_order_release);
}

/* Formats into message and starts the report line "corral: KIND: message"
 * on stderr, after what the program printed to stdout so far. */
static void start_report(const char *kind, char *message, size_t size, const char *format,
                         va_list ap)
{
    vsnprintf(message, size, format, ap);
    fflush(stdout);
    fprintf(stderr, "corral: %s: %s", kind, message);
}

_Noreturn void corral_fatal_at(const char *file, int line, int errnum, const char *format, ...)
{
    if (atomic_flag_test_and_set(&dying)) {
        /* Another thread is already reporting (or a printer failed): wait to be killed. */
        for (;;)
            pause();
    }
    char message[2048];
    va_list ap;
    va_start(ap, format);
    start_report("fatal", message, sizeof message, format, ap);
    va_end(ap);
    if (errnum)
        fprintf(stderr, ": %s (errno %d)", strerror(errnum), errnum);
    fprintf(stderr, "\n  at %s:%d\n", file, line);
    int count = atomic_load_explicit(&context_printer_count, memory_order_acquire);
    for (int i = 0; i < count; i++)
        context_printers[i](stderr);
    fflush(stderr);
    abort();
}

static __thread char last_error[1024];

void corral_set_error(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    start_report("error", last_error, sizeof last_error, format, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

const char *corral_error_message(void)
{
    return last_error;
}
