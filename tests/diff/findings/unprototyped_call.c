/* finding (fixed): a call with one argument more than the old-style definition above it takes is a varargs call with a result, which the pass turned into invalid IR at -O0 ("gc.statepoint doesn't support wrapping non-void vararg functions yet"). The references are live across the collection inside the callee. */
#include "diff_helpers.h"

static uint64_t mix_fields(a, b, k)
obj_ref a;
obj_ref b;
uint64_t k;
{
    diff_garbage(3);
    a->v0 += k;
    b->v1 ^= a->v0;
    return a->v0 ^ b->v1 ^ k;
}

int main(void)
{
    diff_start();
    uint64_t total = 0;
    for (uint64_t i = 0; i < 3000; i++) {
        obj_ref a = diff_new_obj();
        a->v0 = i;
        obj_ref b = diff_new_obj();
        b->v1 = i * 5;
        total = diff_mix(total, mix_fields(a, b, i * 3, UINT64_C(99)));
        total = diff_mix(total, a->v0 + b->v1);
    }
    diff_stop();
    printf("total = %016llx\n", (unsigned long long)total);
    return 0;
}
