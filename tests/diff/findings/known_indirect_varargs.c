/* finding (known bug): a varargs function with a result (snprintf) called through a pointer: the pass produces invalid IR ("gc.statepoint doesn't support wrapping non-void vararg functions"). */
#include "diff_helpers.h"

static int (*volatile format)(char *, size_t, const char *, ...) = snprintf;

int main(void)
{
    char text[32];
    diff_start();
    int length = format(text, sizeof text, "%d", 12345);
    diff_stop();
    printf("checksum = %d %s\n", length, text);
    return 0;
}
