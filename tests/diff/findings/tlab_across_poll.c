/* tlab_across_poll.c — gen.py --seed 91324 (all shapes but musttail and
 * indirect-varargs), reduced by deleting statements (282 lines left of 643).
 * Found by scripts/difftest on 2026-11-28, generationally with a 256 KiB
 * nursery under plain poison, and failing in every mode at -O2: "stack slot
 * ... holds 0x...: neither in the heap nor a large object", a SIGSEGV at
 * address 0x19. f0 allocates, runs the slot helper's loop (it calls
 * nothing), then allocates again: the optimiser kept the TLAB's cursor,
 * limit and largest inline size in registers from the first fast path to
 * the second, corral-opt then put a poll in the loop, and a collection there
 * reset the TLAB under them, so the second allocation bumped into freed
 * memory. Now each fast path reads the TLAB's words volatile in managed
 * code (include/corral/alloc.h, CORRAL_TLAB_READ). Single-threaded, it
 * fails at every run with polls at every first visit of a site and every
 * object moving: difftest-stress: polls,move-all,poison */
#define DIFF_WITH_ASM 1
#define DIFF_WITH_CHAIN 1
#define DIFF_WITH_COMPUTED_GOTO 1
#define DIFF_WITH_CUT 1
#define DIFF_WITH_DERIVED_SELECT 1
#define DIFF_WITH_HEADERLESS 1
#define DIFF_WITH_INDIRECT_CALL 1
#define DIFF_WITH_MANY_ARGS 1
#define DIFF_WITH_PAIR 1
#define DIFF_WITH_POINTER_LOOP 1
#define DIFF_WITH_REF_SLOT 1
#define DIFF_WITH_REF_VECTORS 1
#define DIFF_WITH_SETJMP 1
#define DIFF_WITH_SLOT_HELPERS 1
#define DIFF_WITH_SWITCH 1
#define DIFF_WITH_THREADS 1
#define DIFF_WITH_VARARGS_DOUBLES 1
#define DIFF_WITH_VARARGS_REFS 1
#define DIFF_WITH_VARARGS_RESULTS 1
#define DIFF_WITH_VLA_OVERALIGNED 1
#include "diff_helpers.h"

static uint64_t f0(uint32_t p0, uint32_t p1, uint8_t p2, int16_t p3, uint32_t p4, int64_t p5, obj_ref q0, obj_ref q1, obj_ref q2)
{
    obj_ref o0 = diff_new_obj();
    arr_ref a0 = diff_new_refs(5);
    uint64_t s0 = ((UINT64_C(163365) ^ q0->v2) - ((uint64_t)p2 + (uint64_t)p0));
    uint64_t s1 = (uint64_t)p4;
    if (((uint64_t)p5 & 3) != 1) {
        {
            obj_ref DIFF_REF *slot = &o0->r1;
            diff_garbage(2);
            *slot = q2;
            p5 += o0->r1->v2 + (*slot == q2);
        }
    }
    {
        uint64_t DIFF_REF *pick = (q1->v0 & 1) ? &q1->v1 : &q1->v2;
        diff_garbage(3);
        *pick += s1;
        s1 ^= *pick;
    }
    {
        obj_ref DIFF_REF *slot = diff_fullest_slot(a0);
        diff_garbage(4);
        p5 += *slot ? (*slot)->v0 : UINT64_C(3);
        *slot = diff_new_obj();
        (*slot)->v1 = (o0->v0 * q0->v0);
        diff_bump_field(&q2->v1, (q1->r1 ? q1->r1->v1 : UINT64_C(5)));
    }
    {
        obj_ref DIFF_REF *slot = diff_fullest_slot(a0);
        diff_garbage(4);
        s0 += *slot ? (*slot)->v0 : UINT64_C(3);
        *slot = diff_new_obj();
        (*slot)->v1 = (uint64_t)p2;
        diff_bump_field(&q2->v1, (q2->r1 ? q2->r1->v2 : UINT64_C(5)));
    }
    {
        static const void *const ops1[] = {&&add1, &&alloc1, &&call1, &&end1};
        static const uint8_t code1[] = {2, 2, 0, 2, 2, 0, 1, 2, 0, 3};
        const uint8_t *pc1 = code1;
        obj_ref cur1 = q1;
        uint64_t made1 = 0;
        goto *ops1[*pc1++];
    add1:
        p5 = p5 * 31 + cur1->v0;
        goto *ops1[*pc1++];
    alloc1: {
        obj_ref node = diff_new_obj();
        node->v0 = p5 + made1++;
        node->r0 = cur1;
        cur1 = node;
        goto *ops1[*pc1++];
    }
    call1:
        goto *ops1[*pc1++];
    end1:
        for (uint64_t k = 0; k < made1; k++, cur1 = cur1->r0)
            p5 = diff_mix(p5, cur1->v0);
    }
    {
        static const void *const ops2[] = {&&add2, &&alloc2, &&call2, &&end2};
        static const uint8_t code2[] = {1, 3};
        const uint8_t *pc2 = code2;
        obj_ref cur2 = q1;
        uint64_t made2 = 0;
        goto *ops2[*pc2++];
    add2:
        p4 = p4 * 31 + cur2->v0;
        goto *ops2[*pc2++];
    alloc2: {
        obj_ref node = diff_new_obj();
        node->v0 = p4 + made2++;
        node->r0 = cur2;
        cur2 = node;
        goto *ops2[*pc2++];
    }
    call2:
        goto *ops2[*pc2++];
    end2:
        for (uint64_t k = 0; k < made2; k++, cur2 = cur2->r0)
            p4 = diff_mix(p4, cur2->v0);
    }
    uint64_t h = UINT64_C(0);
    return h;
}

static uint64_t f1(int32_t p0, uint8_t p1, uint32_t p2, uint8_t p3, obj_ref q0)
{
    obj_ref o0 = diff_new_obj();
    arr_ref w0 = diff_new_words(47);
    uint64_t s1 = UINT64_C(837875);
    for (uint64_t DIFF_REF *p = DIFF_WORDS(w0) + 47; p-- != DIFF_WORDS(w0);) {
        if ((*p & 3) == 1)
            diff_garbage(3);
    }
    if (((UINT64_C(449977) << 34) & 3) != 1) {
        {
            obj_ref head = 0;
            for (uint64_t i = 0; i < 21; i++) {
                obj_ref node = diff_new_obj();
                node->r0 = head;
                node->v0 = p2 + i * 448;
                if (i % 4 == 0)
                    diff_garbage(4);
                head = node;
            }
            for (obj_ref node = head; node; node = node->r0) {
                p2 = diff_mix(p2, node->v0);
                if ((node->v0 & 3) == 1)
                    diff_garbage(1);
            }
        }
    }
    for (uint64_t i = 0; i < 47; i++) {
        if (i % 2 == 0)
            s1 ^= f0(DIFF_WORDS(w0)[15], DIFF_WORDS(w0)[25], (UINT64_C(1016084) >> 4), q0->v2, (uint64_t)p1, ((uint64_t)p2 * (uint64_t)p3), q0, q0, o0);
    }
    uint64_t h = UINT64_C(1);
    return h;
}

__attribute__((noinline)) uint64_t f2(uint64_t p0, uint32_t p1, uint32_t p2, int32_t p3, int64_t p4, uint32_t p5, uint32_t p6, obj_ref q0, obj_ref q1)
{
    for (uint64_t i = 0; i < 45; i++) {
    }
    uint64_t h = UINT64_C(2);
    return h;
}

static uint64_t f3(uint32_t p0, int32_t p1, int32_t p2, int64_t p3, int64_t p4, obj_ref q0)
{
    uint64_t s0 = (((uint64_t)p1 ^ UINT64_C(219238)) << 46);
    if (((((uint64_t)p4 * (uint64_t)p4) - (uint64_t)s0) & 3) != 1) {
    }
    uint64_t h = UINT64_C(3);
    return h;
}

static __attribute__((noinline)) uint64_t f4(uint64_t p0, obj_ref q0)
{
    obj_ref o0 = diff_new_obj();
    obj_ref o1 = diff_new_obj();
    obj_ref o2 = diff_new_obj();
    uint64_t s0 = ((o2->v2 << 6) << 39);
    uint64_t s1 = o1->v2;
    {
        static const void *const ops3[] = {&&add3, &&alloc3, &&call3, &&end3};
        static const uint8_t code3[] = {0, 0, 0, 1, 1, 1, 1, 1, 3};
        const uint8_t *pc3 = code3;
        obj_ref cur3 = o0;
        uint64_t made3 = 0;
        goto *ops3[*pc3++];
    add3:
        s0 = s0 * 31 + cur3->v0;
        goto *ops3[*pc3++];
    alloc3: {
        obj_ref node = diff_new_obj();
        node->v0 = s0 + made3++;
        node->r0 = cur3;
        cur3 = node;
        goto *ops3[*pc3++];
    }
    call3:
        goto *ops3[*pc3++];
    end3:
        for (uint64_t k = 0; k < made3; k++, cur3 = cur3->r0)
            s0 = diff_mix(s0, cur3->v0);
    }
    s1 += f0((UINT64_C(97854) ^ q0->v0), (((o1->v0 ^ o0->v2) * UINT64_C(474624)) + o0->v2), UINT64_C(190044), ((uint64_t)s1 << 13), (((uint64_t)s0 - UINT64_C(66301)) * (uint64_t)p0), (UINT64_C(316626) - (o2->v0 + UINT64_C(719183))), o0, o2, o1);
    uint64_t h = UINT64_C(4);
    return h;
}

__attribute__((noinline)) uint64_t f5(int16_t p0, int16_t p1, uint64_t p2, uint8_t p3)
{
    uint64_t h = UINT64_C(5);
    return h;
}

static __attribute__((noinline)) uint64_t f6(uint64_t p0, uint8_t p1, int64_t p2, uint32_t p3, int64_t p4, int16_t p5, uint32_t p6, uint8_t p7, uint8_t p8)
{
    obj_ref o0 = diff_new_obj();
    if (((uint64_t)p2 & 3) != 1) {
        {
            static const void *const ops4[] = {&&add4, &&alloc4, &&call4, &&end4};
            static const uint8_t code4[] = {2, 1, 0, 1, 0, 3};
            const uint8_t *pc4 = code4;
            obj_ref cur4 = o0;
            uint64_t made4 = 0;
            goto *ops4[*pc4++];
        add4:
            p7 = p7 * 31 + cur4->v0;
            goto *ops4[*pc4++];
        alloc4: {
            obj_ref node = diff_new_obj();
            node->v0 = p7 + made4++;
            node->r0 = cur4;
            cur4 = node;
            goto *ops4[*pc4++];
        }
        call4:
            diff_garbage(4);
            goto *ops4[*pc4++];
        end4:
            for (uint64_t k = 0; k < made4; k++, cur4 = cur4->r0)
                p7 = diff_mix(p7, cur4->v0);
        }
    }
    uint64_t h = UINT64_C(6);
    return h;
}

static uint64_t rounds(uint64_t salt, int print)
{
    uint64_t total = 0;
    for (uint64_t round = 0; round < 2; round++) {
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(309826954) + round + salt * 977;
            uint64_t v = f4(((uint64_t)round ^ (uint64_t)round), root);
            if (print)
                printf("f4 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(962381957) + round + salt * 977;
            uint64_t v = f5((root->v0 + root->v0), (uint64_t)round, (root->v0 * ((uint64_t)round ^ (root->v1 << 58))), UINT64_C(348206));
            if (print)
                printf("f5 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(796240347) + round + salt * 977;
            uint64_t v = f6(UINT64_C(445790), (((uint64_t)round * root->v2) ^ (uint64_t)round), (uint64_t)round, UINT64_C(329493), (UINT64_C(401377) << 31), (root->v2 + UINT64_C(436099)), (uint64_t)round, (UINT64_C(198269) << 31), ((UINT64_C(156502) ^ (uint64_t)round) * UINT64_C(213632)));
            if (print)
                printf("f6 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
    }
    return total;
}

static uint64_t thread_totals[2];
static void *mutator(void *index)
{
    return 0;
}

int main(void)
{
    diff_start();
    uint64_t total = rounds(0, 1);
    for (int t = 0; t < 0; t++) {
    }
    return 0;
}
