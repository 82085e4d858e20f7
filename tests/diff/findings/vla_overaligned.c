/* finding (fixed): a VLA and a 64-byte-aligned local in one frame, a reference live across a call: at -O0 corral_init rejects the stackmaps ("spill slot [RBX + N] relative to RBX"). */
#include "diff_helpers.h"

static uint64_t frame(uint64_t x, obj_ref held)
{
    int n = (int)(x % 16) + 1;
    uint64_t values[n];
    _Alignas(64) uint64_t aligned[4] = {x, x + 1, x + 2, x + 3};
    for (int i = 0; i < n; i++)
        values[i] = held->v0 * 3 + (uint64_t)i + x;
    diff_garbage(n);
    uint64_t sum = held->v1;
    for (int i = 0; i < n; i++)
        sum = diff_mix(sum, values[i]);
    for (int i = 0; i < 4; i++)
        sum = diff_mix(sum, aligned[i]);
    return sum;
}

int main(void)
{
    diff_start();
    obj_ref held = diff_new_obj();
    held->v0 = 40;
    printf("checksum = %016llx\n", (unsigned long long)frame(5, held));
    diff_stop();
    return 0;
}
