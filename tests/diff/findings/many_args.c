/* finding (fixed): an 8-argument call whose 2 stack arguments the caller pushes (LLVM does at -O1+): the walker dies ("the stackmap's frame size disagrees with the frame pointer"). */
#include "diff_helpers.h"

static __attribute__((noinline)) uint64_t callee(uint64_t p0, uint64_t p1, uint64_t p2, uint64_t p3,
                                                 uint64_t p4, uint64_t p5, obj_ref q0, obj_ref q1)
{
    uint64_t values[p0 % 8 + 1];
    for (uint64_t i = 0; i <= p0 % 8; i++)
        values[i] = q0->v0 + i;
    diff_garbage(2);
    return values[p0 % 8] + p1 + p2 + p3 + p4 + p5 + q1->v0;
}

static __attribute__((noinline)) uint64_t caller(obj_ref q0, obj_ref q1)
{
    uint64_t s = callee(1, q1->v0, 2, 3, 4, 5, q1, q0);
    s ^= callee(q1->v0, s, 7, q0->v1, 6, q0->v2, q0, q1);
    return s;
}

int main(void)
{
    diff_start();
    uint64_t s = 0;
    for (uint64_t round = 0; round < 2; round++) {
        obj_ref root = diff_new_obj();
        s += caller(root, root);
    }
    diff_stop();
    printf("checksum = %016llx\n", (unsigned long long)s);
    return 0;
}
