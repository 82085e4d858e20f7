/* finding (rejected until --whole-program): non-static varargs functions that return a value, found by the gcc C torture suite (25 of its programs, e.g. va-arg-4.c), were rejected ("must be static"), though corralc links every managed function of an executable into the module the pass sees. References pass through "..." and stay live across the collections inside the callees. */
#include "diff_helpers.h"

#include <stdarg.h>

uint64_t fold_refs(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    uint64_t sum = 0;
    for (int i = 0; i < count; i++) {
        obj_ref ref = va_arg(ap, obj_ref);
        diff_garbage(2);
        ref->v1 += (uint64_t)i;
        sum = diff_mix(sum, ref->v0 ^ ref->v1);
    }
    va_end(ap);
    return sum;
}

double scaled(double scale, ...)
{
    va_list ap;
    va_start(ap, scale);
    double total = 0;
    for (double x; (x = va_arg(ap, double)) != 0;)
        total = total * 2 + x * scale;
    va_end(ap);
    diff_garbage(1);
    return total;
}

int main(void)
{
    diff_start();
    uint64_t total = 0;
    for (uint64_t i = 0; i < 2000; i++) {
        obj_ref a = diff_new_obj();
        a->v0 = i;
        obj_ref b = diff_new_obj();
        b->v0 = i * 7;
        total = diff_mix(total, fold_refs(2, a, b));
        total = diff_mix(total, a->v1 + b->v1 + b->v0);
        total = diff_mix(total, (uint64_t)scaled(0.5, (double)i, 3.0, 1.5, 0.0));
    }
    diff_stop();
    printf("total = %016llx\n", (unsigned long long)total);
    return 0;
}
