/* util.h — allocation that cannot fail silently, formatted strings, and
 * lists of strings, shared by the pass library and the two tools. */
#ifndef CORRAL_POLLS_UTIL_H
#define CORRAL_POLLS_UTIL_H

#include <stdarg.h>
#include <stddef.h>

#include "vec.h" /* VEC(T), VEC_PUSH: base/'s growable array */

/* Out of memory in the compiler is an internal failure: print and abort. */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *block, size_t size);
char *xstrdup(const char *text);
char *xstrndup(const char *text, size_t length);
__attribute__((format(printf, 1, 2))) char *xasprintf(const char *format, ...);
char *xvasprintf(const char *format, va_list args);
__attribute__((noreturn, format(printf, 1, 2))) void polls_fatal(const char *format, ...);
/* Writes one line to stderr: prefix, the formatted message, a newline (the
 * tools' "corral-opt: error: ..." and polls_fatal's "corral: fatal: ..."). */
void print_message_line(const char *prefix, const char *format, va_list args);

/* True when text equals one of the count strings of list. */
int string_in(const char *text, const char *const *list, size_t count);

/* A list of owned strings; add_csv appends each non-empty item of "a,b,c". */
typedef VEC(char *) string_list;
void string_list_add_csv(string_list *list, const char *csv);
void string_list_free(string_list *list);

#endif /* CORRAL_POLLS_UTIL_H */
