/* finding (known bug): a musttail call in managed code: at -O0 the pass produces invalid IR ("cannot guarantee tail call due to mismatched varargs"). */
#include "diff_helpers.h"

static uint64_t callee(uint64_t x, uint64_t y)
{
    diff_garbage(1);
    return x * 3 + y;
}

static uint64_t caller(uint64_t x, uint64_t y)
{
    __attribute__((musttail)) return callee(x + 1, y);
}

int main(void)
{
    diff_start();
    printf("checksum = %llu\n", (unsigned long long)caller(4, 5));
    diff_stop();
    return 0;
}
