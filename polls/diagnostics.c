/* diagnostics.c — errors and warnings the pass reports to its caller. */
#include "pass.h"

#include <stdlib.h>

static void pass_report(polls_pass *pass, corral_polls_severity severity, LLVMValueRef function,
                        LLVMValueRef at, const char *format, va_list args)
{
    char *reason = xvasprintf(format, args);
    char *where = at ? source_location_suffix(at) : xstrdup("");
    corral_polls_diagnostic diagnostic = {
        .severity = severity,
        .function = function ? xstrdup(value_name(function)) : NULL,
        .message = xasprintf("%s%s", reason, where),
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
