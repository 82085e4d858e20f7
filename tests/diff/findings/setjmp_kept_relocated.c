/* setjmp_kept_relocated.c — gen.py --seed 74134 (every default shape, cut and
 * setjmp among them), unreduced. At -O3 the pass stopped in f3 with "internal
 * error: reference '%q0.kept...relocated...' is live across a setjmp call after
 * RS4GC". The pass had reloaded q0 from its root slot for a null test made before
 * the setjmp call, whose only use is a branch after it; RS4GC's first step moves
 * such a compare to its branch, which made the reload live across the call. Fixed
 * by moving those compares in the pass, before it decides what setjmp keeps
 * (polls/normalize.c, sink_branch_compares; tests/polls/ir/setjmp_compare.ll).
 * -O0..-O2 always passed. */
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
#define DIFF_WITH_SETJMP 1
#define DIFF_WITH_SWITCH 1
#define DIFF_WITH_THREADS 1
#define DIFF_WITH_VARARGS_DOUBLES 1
#define DIFF_WITH_VARARGS_REFS 1
#define DIFF_WITH_VARARGS_RESULTS 1
#define DIFF_WITH_VLA_OVERALIGNED 1
#include "diff_helpers.h"

static __attribute__((noinline)) uint64_t f0(int32_t p0, uint8_t p1, uint32_t p2, uint8_t p3, uint64_t p4, int64_t p5, obj_ref q0, obj_ref q1, obj_ref q2)
{
    obj_ref o0 = diff_new_obj();
    o0->v0 = ((UINT64_C(131408) ^ (uint64_t)p1) - (uint64_t)p3);
    obj_ref o1 = diff_new_obj();
    o1->v0 = (((UINT64_C(576913) ^ (uint64_t)p4) << 32) ^ (q1->v0 + (uint64_t)p2));
    obj_ref o2 = diff_new_obj();
    o2->v0 = (((uint64_t)p2 + (q0->v1 - UINT64_C(129762))) * q1->v2);
    uint64_t s0 = ((((uint64_t)p1 >> 24) * (q2->v1 * (UINT64_C(612562) << 6))) << 50);
    uint64_t s1 = (o2->r1 ? o2->r1->v1 : UINT64_C(5));
    s0 ^= (o0->r1 ? o0->r1->v1 : UINT64_C(5));
    s1 ^= o1->v1;
    p5 ^= ((UINT64_C(370841) + q2->v0) + (((uint64_t)s1 >> 37) * ((o0->v1 * o0->v1) ^ ((uint64_t)s0 + q1->v1))));
    s1 ^= ((uint64_t)p4 - UINT64_C(244632));
    p4 += diff_vsum(5, q0->v0, (UINT64_C(211232) ^ (uint64_t)p5), (o0->v2 ^ (uint64_t)p5), (UINT64_C(769750) ^ UINT64_C(665611)), ((o0->v2 ^ UINT64_C(975175)) << 41));
    p4 += diff_vrefs(3, o0, o2, q2);
    p4 += diff_vdoubles(6, (double)((o2->v2 >> 60) & 0xffff), (double)((o2->v1 >> 38) & 0xffff), (double)(((UINT64_C(582081) >> 45) >> 38) & 0xffff), (double)((q2->v2 - (q0->v2 ^ UINT64_C(13585))) & 0xffff), (double)(UINT64_C(223943) & 0xffff), (double)((UINT64_C(213702) * q1->v0) & 0xffff));
    {
        unsigned __int128 wide = diff_vwide(0, o2, (unsigned __int128)(((uint64_t)p4 + o1->v0)) << 64 | (q2->v0));
        p4 += (uint64_t)wide ^ (uint64_t)(wide >> 64);
        diff_triple t = diff_vtriple(2, o2, q0);
        p4 += t.a ^ t.b ^ t.c;
    }
    if ((o2->v1 & 3) != 1) {
        {
            uint64_t DIFF_REF *pick = ((((uint64_t)p1 * UINT64_C(675251)) >> 4) & 1) ? &o0->v0 : &o2->v0;
            diff_garbage(5);
            *pick += s1;
            s1 ^= *pick;
        }
    }
    {
        obj_ref head = 0;
        for (uint64_t i = 0; i < 14; i++) {
            obj_ref node = diff_new_obj();
            node->r0 = head;
            node->v0 = p4 + i * 646;
            if (i % 3 == 0)
                diff_garbage(3);
            head = node;
        }
        for (obj_ref node = head; node; node = node->r0) {
            p4 = diff_mix(p4, node->v0);
            if ((node->v0 & 3) == 3)
                diff_garbage(1);
        }
    }
    {
        uint64_t DIFF_REF *pick = &o0->v0;
        if (((UINT64_C(1040316) ^ UINT64_C(108449)) & 3) == 0)
            pick = &o1->v0;
        diff_garbage(4);
        *pick += s0;
        s0 ^= *pick;
    }
    uint64_t h = UINT64_C(0);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, q0->v0);
    h = diff_mix(h, q0->v1);
    h = diff_mix(h, q0->v2);
    h = diff_mix(h, q1->v0);
    h = diff_mix(h, q1->v1);
    h = diff_mix(h, q1->v2);
    h = diff_mix(h, q2->v0);
    h = diff_mix(h, q2->v1);
    h = diff_mix(h, q2->v2);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, o1->v0);
    h = diff_mix(h, o1->v1);
    h = diff_mix(h, o1->v2);
    h = diff_mix(h, o2->v0);
    h = diff_mix(h, o2->v1);
    h = diff_mix(h, o2->v2);
    return h;
}

__attribute__((noinline)) uint64_t f1(int64_t p0, uint8_t p1, int16_t p2, int64_t p3, uint32_t p4, uint64_t p5, uint32_t p6)
{
    obj_ref o0 = diff_new_obj();
    o0->v0 = UINT64_C(771927);
    obj_ref o1 = diff_new_obj();
    o1->v0 = (((o0->v2 * (uint64_t)p6) * (o0->v2 + (o0->v2 * (uint64_t)p0))) << 39);
    arr_ref a0 = diff_new_refs(7);
    uint64_t DIFF_REF *d0 = &o1->v1;
    uint64_t DIFF_REF *d1 = &o0->v0;
    uint64_t s0 = (uint64_t)p3;
    uint64_t s1 = ((o0->v2 >> 5) + o0->v1);
    s0 += f0(UINT64_C(459922), o1->v2, UINT64_C(783457), (UINT64_C(20249) * *d0), (o1->v1 >> 20), *d0, o1, o0, o0);
    p6 ^= o0->v1;
    s1 += f0((uint64_t)p6, (*d1 >> 54), (UINT64_C(6658) * *d1), (*d0 - (uint64_t)p4), (o1->r1 ? o1->r1->v1 : UINT64_C(5)), ((uint64_t)p2 >> 14), o1, o0, o1);
    {
        obj_ref cut = diff_new_obj();
        cut->v0 = *d0;
        cut->r0 = diff_new_obj();
        cut->r0->v1 = (*d1 ^ o0->v1);
        o0->r1 = cut;
    }
    (void)f0((o0->v0 << 7), UINT64_C(9201), o1->v0, (o0->v0 ^ (uint64_t)p5), UINT64_C(325576), *d0, o1, o0, o0);
    s1 += o0->r1 ? o0->r1->v0 : UINT64_C(7);
    {
        obj_ref seen = o0->r1;
        s1 ^= (uint64_t)__atomic_compare_exchange_n(&o0->r1, &seen, (obj_ref)0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    *d0 += (uint64_t)p4;
    p6 ^= o1->v2;
    s0 ^= *d0;
    uint64_t h = UINT64_C(1);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, o1->v0);
    h = diff_mix(h, o1->v1);
    h = diff_mix(h, o1->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, *d1);
    return h;
}

__attribute__((noinline)) uint64_t f2(int32_t p0, int32_t p1, int32_t p2, int16_t p3, int64_t p4, uint8_t p5, int64_t p6, obj_ref q0, obj_ref q1, obj_ref q2)
{
    obj_ref o0 = diff_new_obj();
    o0->v1 = UINT64_C(305288);
    arr_ref w0 = diff_new_words(46);
    uint64_t DIFF_REF *d0 = &q1->v1;
    uint64_t DIFF_REF *d1 = &q2->v1;
    uint64_t s0 = (DIFF_WORDS(w0)[41] + (q0->v1 ^ (uint64_t)p5));
    uint64_t s1 = (q1->r1 ? q1->r1->v0 : UINT64_C(5));
    p6 += f0((uint64_t)p3, (*d1 << 62), ((uint64_t)s1 - (uint64_t)s0), DIFF_WORDS(w0)[34], ((uint64_t)p1 << 59), UINT64_C(368654), q0, q2, q2);
    q1 = diff_new_obj();
    q1->v0 = *d0;
    q1->r0 = q1;
    p5 = diff_asm_add(UINT64_C(105939), 37);
    *d1 += q2->v1;
    {
        uint64_t (*volatile fp)(int32_t, uint8_t, uint32_t, uint8_t, uint64_t, int64_t, obj_ref, obj_ref, obj_ref) = f0;
        s1 += fp(*d0, (*d0 + *d0), (*d0 << 56), UINT64_C(456547), *d0, (q0->v0 - (uint64_t)p1), q2, q1, q2);
    }
    *d0 += (uint64_t)s1;
    for (uint64_t i = 0; i < 46; i++) {
        s1 = s1 * 31 + DIFF_WORDS(w0)[i];
    }
    for (uint64_t i = 0; i < 46; i++) {
        s1 = s1 * 31 + DIFF_WORDS(w0)[i];
    }
    uint64_t h = UINT64_C(2);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, q0->v0);
    h = diff_mix(h, q0->v1);
    h = diff_mix(h, q0->v2);
    h = diff_mix(h, q1->v0);
    h = diff_mix(h, q1->v1);
    h = diff_mix(h, q1->v2);
    h = diff_mix(h, q2->v0);
    h = diff_mix(h, q2->v1);
    h = diff_mix(h, q2->v2);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, *d1);
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

__attribute__((noinline)) uint64_t f3(uint64_t p0, int64_t p1, int32_t p2, uint8_t p3, int16_t p4, uint64_t p5, uint64_t p6, obj_ref q0)
{
    obj_ref o0 = diff_new_obj();
    o0->v1 = ((uint64_t)p2 - (q0->v0 << 22));
    obj_ref o1 = diff_new_obj();
    o1->v0 = (o0->r1 ? o0->r1->v1 : UINT64_C(5));
    arr_ref w0 = diff_new_words(19);
    uint64_t DIFF_REF *d0 = &DIFF_WORDS(w0)[2];
    uint64_t DIFF_REF *d1 = &DIFF_WORDS(w0)[16];
    uint64_t s0 = (o1->v0 * UINT64_C(509612));
    uint64_t s1 = UINT64_C(834832);
    {
        static const void *const ops1[] = {&&add1, &&alloc1, &&call1, &&end1};
        static const uint8_t code1[] = {2, 1, 0, 0, 0, 0, 1, 3};
        const uint8_t *pc1 = code1;
        obj_ref cur1 = o1;
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
        diff_garbage(3);
        goto *ops1[*pc1++];
    end1:
        for (uint64_t k = 0; k < made1; k++, cur1 = cur1->r0)
            p5 = diff_mix(p5, cur1->v0);
    }
    s0 += diff_vla((uint64_t)s1, o0);
    {
        jmp_buf jump;
        volatile uint64_t acc = DIFF_WORDS(w0)[0];
        int again = setjmp(jump);
        if (again == 0) {
            q0->v2 ^= (q0->v2 >> 12);
            diff_jump(jump, 2, acc);
        }
        s0 += acc + (uint64_t)again * *d0;
    }
    {
        obj_ref cut = diff_new_obj();
        cut->v0 = UINT64_C(146961);
        cut->r0 = diff_new_obj();
        cut->r0->v1 = (o0->r1 ? o0->r1->v0 : UINT64_C(5));
        o0->r1 = cut;
    }
    (void)f0(UINT64_C(834198), (o0->r1 ? o0->r1->v1 : UINT64_C(5)), *d0, DIFF_WORDS(w0)[2], *d1, (o1->v1 >> 9), o1, q0, q0);
    p6 += o0->r1 ? o0->r1->v0 : UINT64_C(7);
    o0->r1 = q0;
    switch (o0->v0 % 4) {
    case 0: o1 = q0; break;
    case 1: o1 = diff_new_obj(); o1->v0 = (uint64_t)s1; o1->r0 = q0; break;
    case 2: s0 += f2(UINT64_C(512628), *d1, UINT64_C(866375), ((uint64_t)p0 - UINT64_C(875253)), (o0->r1 ? o0->r1->v2 : UINT64_C(5)), *d0, (UINT64_C(545434) ^ *d0), o0, q0, o0); break;
    default: s0 ^= o1->v2; break;
    }
    {
        diff_pair pair = diff_pair_step((diff_pair){o1, o0}, ((uint64_t)p1 + (uint64_t)p5));
        s0 += pair.a->v0 ^ pair.b->v2;
        o1 = pair.b;
    }
    {
        diff_pair pair = diff_pair_step((diff_pair){o0, q0}, UINT64_C(48629));
        p5 += pair.a->v0 ^ pair.b->v2;
        o0 = pair.b;
    }
    {
        static const void *const ops2[] = {&&add2, &&alloc2, &&call2, &&end2};
        static const uint8_t code2[] = {0, 0, 0, 2, 2, 2, 0, 1, 1, 2, 0, 1, 2, 0, 0, 0, 2, 0, 2, 1, 0, 3};
        const uint8_t *pc2 = code2;
        obj_ref cur2 = o1;
        uint64_t made2 = 0;
        goto *ops2[*pc2++];
    add2:
        p6 = p6 * 31 + cur2->v0;
        goto *ops2[*pc2++];
    alloc2: {
        obj_ref node = diff_new_obj();
        node->v0 = p6 + made2++;
        node->r0 = cur2;
        cur2 = node;
        goto *ops2[*pc2++];
    }
    call2:
        (void)f0((o0->v2 - (uint64_t)p0), (*d0 << 2), ((uint64_t)s0 << 49), (o1->r1 ? o1->r1->v1 : UINT64_C(5)), (uint64_t)s1, (*d0 * o0->v0), q0, q0, o1);
        goto *ops2[*pc2++];
    end2:
        for (uint64_t k = 0; k < made2; k++, cur2 = cur2->r0)
            p6 = diff_mix(p6, cur2->v0);
    }
    p5 += f0((uint64_t)p6, *d0, (UINT64_C(321900) >> 54), (*d1 * (uint64_t)p4), UINT64_C(716394), (q0->v1 >> 47), o0, o0, q0);
    p5 = diff_asm_add(q0->v1, 94);
    p6 ^= ((o1->v2 ^ UINT64_C(73423)) ^ UINT64_C(796817));
    uint64_t h = UINT64_C(3);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, q0->v0);
    h = diff_mix(h, q0->v1);
    h = diff_mix(h, q0->v2);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, o1->v0);
    h = diff_mix(h, o1->v1);
    h = diff_mix(h, o1->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, *d1);
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

__attribute__((noinline)) uint64_t f4(int16_t p0, int64_t p1, uint32_t p2, int32_t p3, uint64_t p4, uint8_t p5, obj_ref q0)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = UINT64_C(221498);
    arr_ref a0 = diff_new_refs(2);
    uint64_t DIFF_REF *d0 = &q0->v0;
    uint64_t DIFF_REF *d1 = &q0->v0;
    uint64_t s0 = ((q0->r1 ? q0->r1->v1 : UINT64_C(5)) << 51);
    uint64_t s1 = (q0->r0 ? q0->r0->v2 : UINT64_C(5));
    p5 += f2((uint64_t)p4, UINT64_C(465926), (UINT64_C(1042315) >> 44), (*d1 + UINT64_C(469866)), *d0, ((uint64_t)p4 - (uint64_t)p5), (uint64_t)s1, q0, q0, o0);
    s0 += diff_vla(*d1, o0);
    {
        jmp_buf jump;
        volatile uint64_t acc = ((uint64_t)p4 >> 2);
        int again = setjmp(jump);
        if (again == 0) {
            diff_garbage(5);
            diff_jump(jump, 4, acc);
        }
        s0 += acc + (uint64_t)again * (uint64_t)p1;
    }
    p4 ^= (uint64_t)p4;
    switch (*d1 % 4) {
    case 0: q0 = q0; break;
    case 1: q0 = diff_new_obj(); q0->v0 = (o0->r1 ? o0->r1->v0 : UINT64_C(5)); q0->r0 = q0; break;
    case 2: p4 += f3((q0->r0 ? q0->r0->v1 : UINT64_C(5)), (*d1 + (uint64_t)p0), ((uint64_t)p0 >> 51), UINT64_C(626213), UINT64_C(44424), UINT64_C(238729), (q0->r0 ? q0->r0->v1 : UINT64_C(5)), o0); break;
    default: p4 ^= q0->v2; break;
    }
    DIFF_REFS(a0)[1] = q0;
    diff_garbage(12);
    s1 += DIFF_REFS(a0)[1]->v0;
    p5 += diff_vla((*d1 - UINT64_C(783165)), o0);
    {
        jmp_buf jump;
        volatile uint64_t acc = (uint64_t)p0;
        int again = setjmp(jump);
        if (again == 0) {
            acc ^= f0(*d1, (o0->v1 << 22), (o0->r0 ? o0->r0->v1 : UINT64_C(5)), q0->v2, UINT64_C(437684), (*d0 << 52), q0, q0, q0);
            q0->v2 ^= *d0;
            q0->v2 ^= (q0->r1 ? q0->r1->v1 : UINT64_C(5));
            diff_jump(jump, 2, acc);
        }
        p5 += acc + (uint64_t)again * o0->v1;
    }
    p4 ^= ((*d0 ^ UINT64_C(955509)) >> 30);
    *d1 += (UINT64_C(341446) * ((uint64_t)p3 * *d0));
    p5 += f1((*d1 + *d0), ((uint64_t)p1 << 53), (q0->v1 + (uint64_t)p3), *d1, (UINT64_C(211502) ^ UINT64_C(492164)), (*d0 >> 13), (uint64_t)p2);
    uint64_t h = UINT64_C(4);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, q0->v0);
    h = diff_mix(h, q0->v1);
    h = diff_mix(h, q0->v2);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, *d1);
    return h;
}

__attribute__((noinline)) uint64_t f5(uint32_t p0, int32_t p1, obj_ref q0, obj_ref q1)
{
    obj_ref o0 = diff_new_obj();
    o0->v1 = q1->v1;
    obj_ref o1 = diff_new_obj();
    o1->v2 = o0->v0;
    arr_ref w0 = diff_new_words(36);
    arr_ref w1 = diff_new_words(43);
    uint64_t DIFF_REF *d0 = &DIFF_WORDS(w1)[38];
    uint64_t DIFF_REF *d1 = &DIFF_WORDS(w1)[42];
    uint64_t s0 = (((uint64_t)p1 >> 27) << 23);
    uint64_t s1 = DIFF_WORDS(w0)[23];
    {
        uint64_t (*volatile fp)(int16_t, int64_t, uint32_t, int32_t, uint64_t, uint8_t, obj_ref) = f4;
        p0 += fp((o1->v2 >> 34), DIFF_WORDS(w0)[17], UINT64_C(235845), (uint64_t)p1, o0->v0, DIFF_WORDS(w1)[10], q0);
    }
    for (uint64_t i = 0; i < 36; i++)
        DIFF_WORDS(w0)[i] = DIFF_WORDS(w0)[i] * 3 + i + s1;
    {
        obj_ref head = 0;
        for (uint64_t i = 0; i < 14; i++) {
            obj_ref node = diff_new_obj();
            node->r0 = head;
            node->v0 = s1 + i * 885;
            if (i % 4 == 0)
                diff_garbage(4);
            head = node;
        }
        for (obj_ref node = head; node; node = node->r0) {
            s1 = diff_mix(s1, node->v0);
            if ((node->v0 & 3) == 0)
                diff_garbage(1);
        }
    }
    p0 += f0(DIFF_WORDS(w0)[24], ((uint64_t)p0 + UINT64_C(819296)), (UINT64_C(282857) >> 44), *d1, o0->v1, q1->v2, o0, o0, o0);
    *d1 += ((uint64_t)p0 >> 18);
    for (uint64_t DIFF_REF *p = DIFF_WORDS(w0), *end = p + 36; p != end; p++) {
        if ((*p & 3) == 1)
            diff_garbage(1);
        *p = *p * 5 + s1;
    }
    s0 += diff_vsum(4, (uint64_t)p1, (o1->r1 ? o1->r1->v1 : UINT64_C(5)), (uint64_t)p1, q0->v0);
    s0 += diff_vrefs(3, o0, o0, o0);
    s0 += diff_vdoubles(2, (double)((UINT64_C(400132) + (uint64_t)p1) & 0xffff), (double)(((uint64_t)p0 >> 27) & 0xffff));
    {
        unsigned __int128 wide = diff_vwide(0, q0, (unsigned __int128)(UINT64_C(429448)) << 64 | (*d1));
        s0 += (uint64_t)wide ^ (uint64_t)(wide >> 64);
        diff_triple t = diff_vtriple(2, q0, q1);
        s0 += t.a ^ t.b ^ t.c;
    }
    for (uint64_t i = 0; i < 36; i++)
        DIFF_WORDS(w0)[i] = DIFF_WORDS(w0)[i] * 3 + i + s1;
    if (((uint64_t)p1 & 3) != 1) {
        s1 ^= (UINT64_C(950800) >> 1);
    }
    p1 = diff_asm_add((q1->v2 << 28), 91);
    s0 ^= UINT64_C(185036);
    uint64_t h = UINT64_C(5);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, q0->v0);
    h = diff_mix(h, q0->v1);
    h = diff_mix(h, q0->v2);
    h = diff_mix(h, q1->v0);
    h = diff_mix(h, q1->v1);
    h = diff_mix(h, q1->v2);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, o1->v0);
    h = diff_mix(h, o1->v1);
    h = diff_mix(h, o1->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, *d1);
    h = diff_mix(h, diff_sum_words(w0));
    h = diff_mix(h, diff_sum_words(w1));
    return h;
}

__attribute__((noinline)) uint64_t f6(int64_t p0, int16_t p1, obj_ref q0)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = UINT64_C(911879);
    arr_ref w0 = diff_new_words(40);
    uint64_t DIFF_REF *d0 = &DIFF_WORDS(w0)[33];
    uint64_t DIFF_REF *d1 = &q0->v1;
    uint64_t s0 = DIFF_WORDS(w0)[29];
    uint64_t s1 = *d1;
    if ((*d0 & 3) != 1) {
        s0 += f2(DIFF_WORDS(w0)[24], ((uint64_t)p0 + *d1), UINT64_C(1001011), ((uint64_t)p0 ^ o0->v0), o0->v0, DIFF_WORDS(w0)[5], DIFF_WORDS(w0)[39], q0, q0, o0);
    }
    s1 += f5((o0->v1 ^ o0->v2), *d1, q0, o0);
    {
        static const void *const ops3[] = {&&add3, &&alloc3, &&call3, &&end3};
        static const uint8_t code3[] = {2, 1, 1, 1, 3};
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
        diff_garbage(5);
        goto *ops3[*pc3++];
    end3:
        for (uint64_t k = 0; k < made3; k++, cur3 = cur3->r0)
            s0 = diff_mix(s0, cur3->v0);
    }
    {
        uint64_t DIFF_REF *pick = &q0->v1;
        if ((*d0 & 3) == 0)
            pick = &q0->v2;
        diff_garbage(4);
        *pick += s0;
        s0 ^= *pick;
    }
    s0 += f0((o0->v1 - UINT64_C(717084)), ((uint64_t)p0 ^ (uint64_t)s1), ((uint64_t)s0 * UINT64_C(95962)), UINT64_C(483583), (o0->v0 * (uint64_t)s0), DIFF_WORDS(w0)[20], o0, o0, o0);
    *d1 += DIFF_WORDS(w0)[39];
    s1 += f4((q0->r1 ? q0->r1->v1 : UINT64_C(5)), (q0->v1 >> 41), (o0->v1 ^ o0->v2), *d1, UINT64_C(452793), o0->v0, q0);
    {
        obj_ref head = 0;
        for (uint64_t i = 0; i < 38; i++) {
            obj_ref node = diff_new_obj();
            node->r0 = head;
            node->v0 = p1 + i * 27;
            if (i % 4 == 0)
                (void)f2(((uint64_t)p0 << 52), (*d0 ^ UINT64_C(147882)), *d1, o0->v1, (*d0 * *d0), ((uint64_t)p1 << 24), *d0, q0, o0, q0);
            head = node;
        }
        for (obj_ref node = head; node; node = node->r0) {
            p1 = diff_mix(p1, node->v0);
            if ((node->v0 & 3) == 2)
                diff_garbage(1);
        }
    }
    {
        diff_pair pair = diff_pair_step_inline((diff_pair){q0, q0}, UINT64_C(999572));
        p0 += pair.a->v0 ^ pair.b->v2;
        q0 = pair.b;
    }
    {
        obj_ref DIFF_REF *slot = &q0->r1;
        diff_garbage(3);
        *slot = o0;
        p1 += q0->r1->v2 + (*slot == q0);
    }
    for (uint64_t i = 0; i < 40; i++)
        DIFF_WORDS(w0)[i] = DIFF_WORDS(w0)[i] * 3 + i + s0;
    uint64_t h = UINT64_C(6);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, q0->v0);
    h = diff_mix(h, q0->v1);
    h = diff_mix(h, q0->v2);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, *d1);
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

static uint64_t rounds(uint64_t salt, int print)
{
    uint64_t total = 0;
    for (uint64_t round = 0; round < 3; round++) {
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(184932157) + round + salt * 977;
            uint64_t v = f4((root->r1 ? root->r1->v1 : UINT64_C(5)), UINT64_C(428910), root->v1, ((uint64_t)round * UINT64_C(36637)), root->v1, (uint64_t)round, root);
            if (print)
                printf("f4 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(373518494) + round + salt * 977;
            uint64_t v = f5((((uint64_t)round * UINT64_C(557902)) ^ root->v1), (root->v1 >> 30), root, root);
            if (print)
                printf("f5 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(673427910) + round + salt * 977;
            uint64_t v = f6((((UINT64_C(634467) + (root->v1 + (uint64_t)round)) ^ (uint64_t)round) << 44), (root->v2 << 53), root);
            if (print)
                printf("f6 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
    }
    return total;
}

static uint64_t thread_totals[3];
static void *mutator(void *index)
{
    uintptr_t t = (uintptr_t)index;
    thread_totals[t] = rounds(t + 1, 0);
    return 0;
}

int main(void)
{
    diff_start();
    pthread_t threads[3];
    for (uintptr_t t = 0; t < 3; t++)
        diff_thread_start(&threads[t], mutator, (void *)t);
    uint64_t total = rounds(0, 1);
    uint64_t deep = diff_recurse(2174, diff_new_obj(), UINT64_C(261314176), 1, 2, 3);
    printf("recurse(2174) = %016llx\n", (unsigned long long)deep);
    for (int t = 0; t < 3; t++) {
        pthread_join(threads[t], 0);
        printf("thread %d = %016llx\n", t, (unsigned long long)thread_totals[t]);
    }
    diff_stop();
    printf("checksum = %016llx\n", (unsigned long long)(total ^ deep));
    return 0;
}
