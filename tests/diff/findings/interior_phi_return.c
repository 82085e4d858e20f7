/* interior_phi_return.c — written by hand as ordinary array code the suite
 * never had (reverse, copy loops the vectoriser turns into <2 x ptr>, an
 * insertion sort, a binary search, a shift). max_slot returns the address of
 * the largest element's slot, a phi of interior pointers: the pass's check
 * saw only a getelementptr returned directly, so the caller took the slot for
 * an object start, and at every level the collector crashed or the verifier
 * found "no valid object header there" under alloc:1,move-all. Now a static
 * function that returns or receives an interior reference is inlined (even
 * noinline, as clang -O0 marks every function), and an external or
 * recursive one is rejected (polls/checks.c). The default polls,poison
 * never moved the array under the stale slot: difftest-stress: alloc:1,move-all */
#include "diff_helpers.h"
#include <stdlib.h>
#include <string.h>

static __attribute__((noinline)) void isort(arr_ref a, uint64_t n)
{
    for (uint64_t i = 1; i < n; i++) {
        obj_ref x = DIFF_REFS(a)[i];
        uint64_t j = i;
        while (j > 0 && DIFF_REFS(a)[j - 1]->v0 > x->v0) {
            DIFF_REFS(a)[j] = DIFF_REFS(a)[j - 1];
            j--;
        }
        DIFF_REFS(a)[j] = x;
        if (i % 16 == 0)
            diff_garbage(1);
    }
}

static __attribute__((noinline)) uint64_t find(arr_ref a, uint64_t n, uint64_t v)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (DIFF_REFS(a)[mid]->v0 < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static __attribute__((noinline)) void reverse(arr_ref a)
{
    uint64_t n = DIFF_LENGTH(a);
    obj_ref DIFF_REF *e = DIFF_REFS(a);
    for (uint64_t i = 0; i < n / 2; i++) {
        obj_ref t = e[i];
        e[i] = e[n - 1 - i];
        e[n - 1 - i] = t;
    }
}

static __attribute__((noinline)) void copy_refs(arr_ref to, arr_ref from, uint64_t n)
{
    obj_ref DIFF_REF *d = DIFF_REFS(to);
    obj_ref DIFF_REF *s = DIFF_REFS(from);
    for (uint64_t i = 0; i < n; i++)
        d[i] = s[i];
}

static __attribute__((noinline)) void interleave(arr_ref to, arr_ref a, arr_ref b, uint64_t n)
{
    obj_ref DIFF_REF *d = DIFF_REFS(to);
    for (uint64_t i = 0; i < n; i++) {
        d[2 * i] = DIFF_REFS(a)[i];
        d[2 * i + 1] = DIFF_REFS(b)[i];
    }
}

static __attribute__((noinline)) obj_ref DIFF_REF *max_slot(arr_ref a)
{
    obj_ref DIFF_REF *best = DIFF_REFS(a);
    for (uint64_t i = 1; i < DIFF_LENGTH(a); i++)
        if (DIFF_REFS(a)[i]->v0 > (*best)->v0)
            best = &DIFF_REFS(a)[i];
    return best;
}

static uint64_t sum(arr_ref a)
{
    uint64_t h = 0;
    for (uint64_t i = 0; i < DIFF_LENGTH(a); i++)
        h = diff_mix(h, DIFF_REFS(a)[i] ? DIFF_REFS(a)[i]->v0 : 7);
    return h;
}

int main(void)
{
    diff_start();
    uint64_t h = 0;
    for (int round = 0; round < 40; round++) {
        uint64_t n = 64 + round * 13;
        arr_ref a = diff_new_refs(n);
        for (uint64_t i = 0; i < n; i++) {
            obj_ref o = diff_new_obj();
            o->v0 = (i * 2654435761u + round) % 1000003;
            DIFF_REFS(a)[i] = o;
            diff_garbage(1);
        }
        reverse(a);
        arr_ref b = diff_new_refs(n);
        diff_garbage(3);
        copy_refs(b, a, n);
        arr_ref c = diff_new_refs(2 * n);
        interleave(c, a, b, n);
        obj_ref DIFF_REF *m = max_slot(c);
        diff_garbage(5);
        (*m)->v1 = 99;
        h = diff_mix(h, (*m)->v0);
        for (uint64_t k = 2 * n - 1; k > 0; k--)
            DIFF_REFS(c)[k] = DIFF_REFS(c)[k - 1];
        diff_garbage(2);
        isort(b, n);
        obj_ref key = DIFF_REFS(a)[round % n];
        h = diff_mix(h, find(b, n, key->v0));
        h = diff_mix(h, sum(a));
        h = diff_mix(h, sum(b));
        h = diff_mix(h, sum(c));
    }
    diff_stop();
    printf("checksum = %llu\n", (unsigned long long)h);
    return 0;
}
