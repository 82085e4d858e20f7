/* diagnostics.c — errors and warnings the pass reports to its caller. */
#include "pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A diagnostic is one line whatever names it quotes: IR names and gc strings may hold
 * newlines and other control characters, which come out as \n, \t, \xNN. Frees text. */
static char *one_line(char *text)
{
    if (!text)
        return NULL;
    size_t length = strlen(text);
    char *out = xcalloc(4 * length + 1, 1), *end = out;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '\n')
            end += sprintf(end, "\\n");
        else if (*c == '\t')
            end += sprintf(end, "\\t");
        else if (*c < 0x20 || *c == 0x7f)
            end += sprintf(end, "\\x%02x", *c);
        else
            *end++ = (char)*c;
    }
    free(text);
    return out;
}

static void pass_report(polls_pass *pass, corral_polls_severity severity, LLVMValueRef function,
                        LLVMValueRef at, const char *format, va_list args)
{
    char *reason = xvasprintf(format, args);
    char *where = at ? source_location_suffix(at) : xstrdup("");
    corral_polls_diagnostic diagnostic = {
        .severity = severity,
        .function = function ? one_line(xstrdup(value_name(function))) : NULL,
        .message = one_line(xasprintf("%s%s", reason, where)),
    };
    free(reason);
    free(where);
    VEC_PUSH(pass->diagnostics, diagnostic);
    if (severity == CORRAL_POLLS_ERROR)
        pass->error_count++;
}

void pass_error(polls_pass *pass, LLVMValueRef function, LLVMValueRef at, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    pass_report(pass, CORRAL_POLLS_ERROR, function, at, format, args);
    va_end(args);
}

void pass_warning(polls_pass *pass, LLVMValueRef function, LLVMValueRef at, const char *format,
                  ...)
{
    va_list args;
    va_start(args, format);
    pass_report(pass, CORRAL_POLLS_WARNING, function, at, format, args);
    va_end(args);
}
