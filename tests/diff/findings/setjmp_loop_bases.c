/* setjmp_loop_bases.c — gen.py --seed 62027 (every default shape, setjmp
 * among them), unreduced: a computed-goto interpreter and loops whose
 * derived references are chosen by phis, around setjmp calls, on two
 * mutator threads. The pass built the phis' base phis after computing what
 * is live across setjmp, left them in registers, and at the second return
 * they were stale: a stale stack slot, then a crash in marking. */
#define DIFF_WITH_ASM 1
#define DIFF_WITH_CHAIN 1
#define DIFF_WITH_COMPUTED_GOTO 1
#define DIFF_WITH_DERIVED_SELECT 1
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

static uint64_t f0(int16_t p0, uint64_t p1, int32_t p2)
{
    obj_ref o0 = diff_new_obj();
    o0->v1 = (UINT64_C(898303) << 14);
    obj_ref o1 = diff_new_obj();
    o1->v1 = UINT64_C(992665);
    arr_ref w0 = diff_new_words(6);
    arr_ref a0 = diff_new_refs(3);
    uint64_t DIFF_REF *d0 = &o0->v2;
    uint64_t DIFF_REF *d1 = &DIFF_WORDS(w0)[1];
    uint64_t s0 = o0->v2;
    uint64_t s1 = DIFF_WORDS(w0)[1];
    p1 += diff_vsum(4, (UINT64_C(592086) << 15), (o1->r1 ? o1->r1->v0 : UINT64_C(5)), DIFF_WORDS(w0)[0], o1->v1);
    p1 += diff_vrefs(3, o1, o1, o0);
    p1 += diff_vdoubles(1, (double)(UINT64_C(560388) & 0xffff));
    {
        unsigned __int128 wide = diff_vwide(4, o0, 1, -39, 26, 9, (unsigned __int128)(DIFF_WORDS(w0)[2]) << 64 | (DIFF_WORDS(w0)[2]));
        p1 += (uint64_t)wide ^ (uint64_t)(wide >> 64);
        diff_triple t = diff_vtriple(1, o1);
        p1 += t.a ^ t.b ^ t.c;
    }
    DIFF_REFS(a0)[2] = o0;
    diff_garbage(15);
    p2 += DIFF_REFS(a0)[2]->v1;
    p2 = diff_asm_add(o0->v0, 73);
    s0 += diff_vsum(5, (UINT64_C(450871) ^ o1->v1), DIFF_WORDS(w0)[2], *d1, DIFF_WORDS(w0)[5], DIFF_WORDS(w0)[4]);
    s0 += diff_vrefs(1, o0);
    s0 += diff_vdoubles(5, (double)(*d1 & 0xffff), (double)(UINT64_C(258521) & 0xffff), (double)(o0->v0 & 0xffff), (double)(DIFF_WORDS(w0)[5] & 0xffff), (double)(o0->v1 & 0xffff));
    {
        unsigned __int128 wide = diff_vwide(1, o0, -3, (unsigned __int128)((UINT64_C(557224) + UINT64_C(253413))) << 64 | ((uint64_t)s0));
        s0 += (uint64_t)wide ^ (uint64_t)(wide >> 64);
        diff_triple t = diff_vtriple(3, o0, o1, o1);
        s0 += t.a ^ t.b ^ t.c;
    }
    switch (*d0 % 4) {
    case 0: o0 = o0; break;
    case 1: o0 = diff_new_obj(); o0->v0 = (o0->v0 ^ o0->v0); o0->r0 = o0; break;
    default: s1 ^= o0->v2; break;
    }
    p2 ^= DIFF_WORDS(w0)[3];
    p2 ^= ((uint64_t)p2 ^ (uint64_t)p2);
    {
        diff_pair pair = diff_pair_step_inline((diff_pair){o1, o1}, *d0);
        s1 += pair.a->v0 ^ pair.b->v2;
        o1 = pair.b;
    }
    uint64_t h = UINT64_C(0);
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
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

static uint64_t f1(uint8_t p0, uint32_t p1, uint8_t p2, obj_ref q0, obj_ref q1, obj_ref q2)
{
    obj_ref o0 = diff_new_obj();
    o0->v0 = (q0->r0 ? q0->r0->v1 : UINT64_C(5));
    obj_ref o1 = diff_new_obj();
    o1->v0 = o0->v0;
    obj_ref o2 = diff_new_obj();
    o2->v0 = (q1->r0 ? q1->r0->v0 : UINT64_C(5));
    uint64_t DIFF_REF *d0 = &o1->v0;
    uint64_t DIFF_REF *d1 = &q2->v2;
    uint64_t s0 = o1->v2;
    uint64_t s1 = q1->v2;
    s0 += diff_vsum(1, (UINT64_C(586492) ^ *d0));
    s0 += diff_vrefs(1, q1);
    s0 += diff_vdoubles(2, (double)((o0->v0 << 1) & 0xffff), (double)(((uint64_t)p0 * UINT64_C(361734)) & 0xffff));
    {
        unsigned __int128 wide = diff_vwide(0, o0, (unsigned __int128)((UINT64_C(11021) ^ *d0)) << 64 | (UINT64_C(570606)));
        s0 += (uint64_t)wide ^ (uint64_t)(wide >> 64);
        diff_triple t = diff_vtriple(1, q1);
        s0 += t.a ^ t.b ^ t.c;
    }
    {
        obj_ref head = 0;
        for (uint64_t i = 0; i < 26; i++) {
            obj_ref node = diff_new_obj();
            node->r0 = head;
            node->v0 = p2 + i * 617;
            if (i % 8 == 0)
                (void)f0((q0->r1 ? q0->r1->v1 : UINT64_C(5)), o2->v1, UINT64_C(628108));
            head = node;
        }
        for (obj_ref node = head; node; node = node->r0) {
            p2 = diff_mix(p2, node->v0);
            if ((node->v0 & 3) == 3)
                diff_garbage(1);
        }
    }
    {
        diff_pair pair = diff_pair_step((diff_pair){q0, q0}, (o0->v1 * (uint64_t)p2));
        p2 += pair.a->v0 ^ pair.b->v2;
        q0 = pair.b;
    }
    s1 ^= (((uint64_t)p0 + *d0) * UINT64_C(422364));
    uint64_t h = UINT64_C(1);
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
    h = diff_mix(h, *d0);
    h = diff_mix(h, *d1);
    return h;
}

__attribute__((noinline)) uint64_t f2(int64_t p0, obj_ref q0, obj_ref q1)
{
    obj_ref o0 = diff_new_obj();
    o0->v0 = ((UINT64_C(315324) * (uint64_t)p0) ^ (uint64_t)p0);
    arr_ref w0 = diff_new_words(31);
    uint64_t DIFF_REF *d0 = &DIFF_WORDS(w0)[3];
    uint64_t DIFF_REF *d1 = &DIFF_WORDS(w0)[5];
    uint64_t s0 = q0->v1;
    uint64_t s1 = (q1->r1 ? q1->r1->v2 : UINT64_C(5));
    {
        q1->r1 = diff_new_obj();
        q1->r1->v0 = *d0;
        diff_garbage(2);
        s1 += q1->r1->v0;
    }
    *d1 += (uint64_t)s0;
    p0 += f1(UINT64_C(472329), (o0->v0 * UINT64_C(737052)), (uint64_t)s1, q0, q0, q1);
    p0 += f1((uint64_t)s1, (uint64_t)p0, ((uint64_t)p0 + UINT64_C(387260)), q1, o0, o0);
    {
        uint64_t DIFF_REF *pick = (((uint64_t)s1 + (uint64_t)p0) & 1) ? &q0->v0 : &o0->v0;
        (void)f0((UINT64_C(553479) * *d1), (*d0 << 49), (UINT64_C(999370) ^ o0->v1));
        *pick += p0;
        p0 ^= *pick;
    }
    p0 += f1(UINT64_C(644489), UINT64_C(189145), (o0->v0 << 29), q1, q1, o0);
    for (uint64_t i = 0; i < 31; i++)
        DIFF_WORDS(w0)[i] = DIFF_WORDS(w0)[i] * 3 + i + p0;
    s0 += f0(DIFF_WORDS(w0)[27], DIFF_WORDS(w0)[2], (q1->r1 ? q1->r1->v0 : UINT64_C(5)));
    s1 += f0((uint64_t)p0, (q1->v2 - (uint64_t)s1), ((uint64_t)p0 >> 51));
    s1 += f0(UINT64_C(680485), DIFF_WORDS(w0)[20], (uint64_t)s1);
    if (((*d0 + UINT64_C(511665)) & 3) != 1) {
        *d1 += (DIFF_WORDS(w0)[2] << 43);
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
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, *d1);
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

__attribute__((noinline)) uint64_t f3(uint32_t p0, int64_t p1, int64_t p2, obj_ref q0)
{
    obj_ref o0 = diff_new_obj();
    o0->v1 = ((q0->v1 >> 16) + (UINT64_C(332534) << 46));
    obj_ref o1 = diff_new_obj();
    o1->v0 = UINT64_C(1035164);
    arr_ref w0 = diff_new_words(36);
    arr_ref a0 = diff_new_refs(5);
    uint64_t DIFF_REF *d0 = &q0->v0;
    uint64_t DIFF_REF *d1 = &o1->v0;
    uint64_t s0 = (uint64_t)p1;
    uint64_t s1 = (DIFF_WORDS(w0)[25] - UINT64_C(491548));
    {
        obj_ref head = 0;
        for (uint64_t i = 0; i < 37; i++) {
            obj_ref node = diff_new_obj();
            node->r0 = head;
            node->v0 = s1 + i * 718;
            if (i % 6 == 0)
                (void)f0(DIFF_WORDS(w0)[19], DIFF_WORDS(w0)[28], (q0->r1 ? q0->r1->v0 : UINT64_C(5)));
            head = node;
        }
        for (obj_ref node = head; node; node = node->r0) {
            s1 = diff_mix(s1, node->v0);
            if ((node->v0 & 3) == 1)
                diff_garbage(1);
        }
    }
    p1 += f2((UINT64_C(511774) ^ *d0), o1, o0);
    s1 += diff_vsum(5, (UINT64_C(440413) * UINT64_C(514784)), o0->v0, DIFF_WORDS(w0)[13], ((uint64_t)s1 ^ *d0), (o1->v0 + o1->v2));
    s1 += diff_vrefs(3, o0, o0, o0);
    s1 += diff_vdoubles(8, (double)(UINT64_C(693567) & 0xffff), (double)((UINT64_C(378060) + o1->v1) & 0xffff), (double)(DIFF_WORDS(w0)[9] & 0xffff), (double)((uint64_t)p2 & 0xffff), (double)((uint64_t)p0 & 0xffff), (double)((UINT64_C(1017437) - UINT64_C(566250)) & 0xffff), (double)(*d1 & 0xffff), (double)(DIFF_WORDS(w0)[12] & 0xffff));
    {
        unsigned __int128 wide = diff_vwide(4, o1, -11, 17, -28, -17, (unsigned __int128)(*d0) << 64 | (*d1));
        s1 += (uint64_t)wide ^ (uint64_t)(wide >> 64);
        diff_triple t = diff_vtriple(3, o0, o0, o1);
        s1 += t.a ^ t.b ^ t.c;
    }
    *d1 += DIFF_WORDS(w0)[3];
    switch (*d0 % 4) {
    case 0: q0 = q0; break;
    case 1: q0 = diff_new_obj(); q0->v0 = ((uint64_t)s1 * q0->v2); q0->r0 = q0; break;
    case 2: p2 += f0(UINT64_C(938655), *d0, ((uint64_t)s0 * UINT64_C(474414))); break;
    default: p2 ^= q0->v2; break;
    }
    switch ((o0->r0 ? o0->r0->v0 : UINT64_C(5)) % 4) {
    case 0: q0 = o0; break;
    case 1: q0 = diff_new_obj(); q0->v0 = (q0->v0 >> 8); q0->r0 = o0; break;
    case 2: s1 += f0((*d1 * UINT64_C(914581)), DIFF_WORDS(w0)[8], DIFF_WORDS(w0)[3]); break;
    default: s1 ^= q0->v2; break;
    }
    p2 += f2(UINT64_C(694299), o0, o1);
    DIFF_REFS(a0)[4] = o0;
    diff_garbage(38);
    s0 += DIFF_REFS(a0)[4]->v0;
    {
        obj_ref DIFF_REF *slot = &o0->r1;
        diff_garbage(2);
        *slot = o1;
        s1 += o0->r1->v2 + (*slot == q0);
    }
    {
        diff_pair pair = diff_pair_step((diff_pair){o0, o0}, (*d1 * (uint64_t)p1));
        s1 += pair.a->v0 ^ pair.b->v2;
        o0 = pair.b;
    }
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

static uint64_t f4(int32_t p0, int16_t p1, uint8_t p2, obj_ref q0, obj_ref q1)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = ((q0->r1 ? q0->r1->v1 : UINT64_C(5)) >> 14);
    obj_ref o1 = diff_new_obj();
    o1->v0 = (uint64_t)p2;
    obj_ref o2 = diff_new_obj();
    o2->v1 = o0->v1;
    arr_ref w0 = diff_new_words(39);
    arr_ref a0 = diff_new_refs(2);
    uint64_t s0 = UINT64_C(123712);
    uint64_t s1 = DIFF_WORDS(w0)[31];
    {
        diff_pair pair = diff_pair_step_inline((diff_pair){q1, o0}, (UINT64_C(144970) * (UINT64_C(478427) >> 54)));
        p1 += pair.a->v0 ^ pair.b->v2;
        q1 = pair.b;
    }
    {
        static const void *const ops1[] = {&&add1, &&alloc1, &&call1, &&end1};
        static const uint8_t code1[] = {1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 2, 1, 2, 1, 2, 2, 1, 0, 1, 3};
        const uint8_t *pc1 = code1;
        obj_ref cur1 = o2;
        uint64_t made1 = 0;
        goto *ops1[*pc1++];
    add1:
        s1 = s1 * 31 + cur1->v0;
        goto *ops1[*pc1++];
    alloc1: {
        obj_ref node = diff_new_obj();
        node->v0 = s1 + made1++;
        node->r0 = cur1;
        cur1 = node;
        goto *ops1[*pc1++];
    }
    call1:
        (void)f2(o1->v0, o0, o2);
        goto *ops1[*pc1++];
    end1:
        for (uint64_t k = 0; k < made1; k++, cur1 = cur1->r0)
            s1 = diff_mix(s1, cur1->v0);
    }
    switch ((o1->v1 << 5) % 4) {
    case 0: o1 = o1; break;
    case 1: o1 = diff_new_obj(); o1->v0 = (uint64_t)p0; o1->r0 = o1; break;
    case 2: s1 += f1(((q0->v1 >> 16) ^ UINT64_C(871211)), (uint64_t)s1, (q1->v0 * UINT64_C(1026831)), q0, q0, q1); break;
    default: s1 ^= o1->v2; break;
    }
    s1 = diff_asm_add((q1->v0 + o1->v2), 9);
    for (uint64_t i = 0; i < 39; i++) {
        p2 = p2 * 31 + DIFF_WORDS(w0)[i];
    }
    switch (DIFF_WORDS(w0)[31] % 4) {
    case 0: o0 = o1; break;
    case 1: o0 = diff_new_obj(); o0->v0 = UINT64_C(627624); o0->r0 = o1; break;
    case 2: s0 += f0(DIFF_WORDS(w0)[5], ((uint64_t)s0 ^ (uint64_t)p0), DIFF_WORDS(w0)[0]); break;
    default: s0 ^= o0->v2; break;
    }
    s0 += f1(((UINT64_C(505212) << 14) + o1->v1), (o1->v0 << 20), ((uint64_t)s0 ^ (q1->v0 ^ (uint64_t)p0)), q1, o0, o0);
    for (uint64_t i = 0; i < 39; i++)
        DIFF_WORDS(w0)[i] = DIFF_WORDS(w0)[i] * 3 + i + s0;
    switch (((UINT64_C(453971) >> 52) * (uint64_t)p0) % 4) {
    case 0: o1 = o1; break;
    case 1: o1 = diff_new_obj(); o1->v0 = (uint64_t)s1; o1->r0 = o1; break;
    case 2: s1 += f0(UINT64_C(283104), (o2->v2 - (uint64_t)p1), (uint64_t)p1); break;
    default: s1 ^= o1->v2; break;
    }
    uint64_t h = UINT64_C(4);
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
    h = diff_mix(h, o2->v0);
    h = diff_mix(h, o2->v1);
    h = diff_mix(h, o2->v2);
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

static __attribute__((noinline)) uint64_t f5(uint64_t p0)
{
    obj_ref o0 = diff_new_obj();
    o0->v0 = UINT64_C(126718);
    obj_ref o1 = diff_new_obj();
    o1->v1 = ((UINT64_C(89960) >> 31) ^ (o0->v2 ^ (uint64_t)p0));
    arr_ref w0 = diff_new_words(42);
    arr_ref w1 = diff_new_words(6);
    arr_ref a0 = diff_new_refs(7);
    uint64_t DIFF_REF *d0 = &o0->v2;
    uint64_t s0 = DIFF_WORDS(w0)[29];
    uint64_t s1 = *d0;
    switch (UINT64_C(597028) % 4) {
    case 0: o0 = o0; break;
    case 1: o0 = diff_new_obj(); o0->v0 = DIFF_WORDS(w1)[2]; o0->r0 = o0; break;
    case 2: s1 += f0(o1->v0, UINT64_C(653870), (o0->v2 * *d0)); break;
    default: s1 ^= o0->v2; break;
    }
    s0 += diff_vla(UINT64_C(500162), o1);
    {
        jmp_buf jump;
        volatile uint64_t acc = *d0;
        int again = setjmp(jump);
        if (again == 0) {
            diff_garbage(6);
            diff_jump(jump, 4, acc);
        }
        s0 += acc + (uint64_t)again * UINT64_C(601270);
    }
    s0 += diff_vla((o0->v0 - o1->v2), o1);
    {
        jmp_buf jump;
        volatile uint64_t acc = (o0->r1 ? o0->r1->v0 : UINT64_C(5));
        int again = setjmp(jump);
        if (again == 0) {
            diff_garbage(25);
            acc ^= f1(*d0, DIFF_WORDS(w0)[32], ((uint64_t)p0 - (uint64_t)s1), o1, o1, o1);
            diff_jump(jump, 1, acc);
        }
        s0 += acc + (uint64_t)again * (uint64_t)s0;
    }
    {
        static const void *const ops2[] = {&&add2, &&alloc2, &&call2, &&end2};
        static const uint8_t code2[] = {1, 0, 0, 1, 2, 2, 0, 2, 0, 1, 2, 2, 1, 3};
        const uint8_t *pc2 = code2;
        obj_ref cur2 = o0;
        uint64_t made2 = 0;
        goto *ops2[*pc2++];
    add2:
        s0 = s0 * 31 + cur2->v0;
        goto *ops2[*pc2++];
    alloc2: {
        obj_ref node = diff_new_obj();
        node->v0 = s0 + made2++;
        node->r0 = cur2;
        cur2 = node;
        goto *ops2[*pc2++];
    }
    call2:
        (void)f4((uint64_t)p0, UINT64_C(145732), UINT64_C(1040871), o1, o0);
        goto *ops2[*pc2++];
    end2:
        for (uint64_t k = 0; k < made2; k++, cur2 = cur2->r0)
            s0 = diff_mix(s0, cur2->v0);
    }
    for (uint64_t i = 0; i < 6; i++)
        DIFF_WORDS(w1)[i] = DIFF_WORDS(w1)[i] * 3 + i + s1;
    {
        static const void *const ops3[] = {&&add3, &&alloc3, &&call3, &&end3};
        static const uint8_t code3[] = {2, 2, 2, 2, 0, 0, 2, 1, 0, 2, 1, 0, 1, 1, 0, 2, 0, 3};
        const uint8_t *pc3 = code3;
        obj_ref cur3 = o1;
        uint64_t made3 = 0;
        goto *ops3[*pc3++];
    add3:
        s1 = s1 * 31 + cur3->v0;
        goto *ops3[*pc3++];
    alloc3: {
        obj_ref node = diff_new_obj();
        node->v0 = s1 + made3++;
        node->r0 = cur3;
        cur3 = node;
        goto *ops3[*pc3++];
    }
    call3:
        (void)f1((uint64_t)s1, (UINT64_C(62991) << 38), ((uint64_t)s0 * UINT64_C(726244)), o1, o1, o1);
        goto *ops3[*pc3++];
    end3:
        for (uint64_t k = 0; k < made3; k++, cur3 = cur3->r0)
            s1 = diff_mix(s1, cur3->v0);
    }
    s1 += diff_vla((o0->v1 << 50), o1);
    {
        jmp_buf jump;
        volatile uint64_t acc = DIFF_WORDS(w1)[4];
        int again = setjmp(jump);
        if (again == 0) {
            acc ^= f2((o0->v1 - UINT64_C(291464)), o0, o0);
            acc ^= f0(*d0, (uint64_t)s1, (uint64_t)p0);
            acc ^= f3((uint64_t)s0, UINT64_C(750563), UINT64_C(204973), o0);
            diff_jump(jump, 0, acc);
        }
        s1 += acc + (uint64_t)again * (UINT64_C(401036) + UINT64_C(191918));
    }
    p0 += diff_vla(UINT64_C(411046), o1);
    {
        jmp_buf jump;
        volatile uint64_t acc = (o1->r1 ? o1->r1->v1 : UINT64_C(5));
        int again = setjmp(jump);
        if (again == 0) {
            acc ^= f3(*d0, DIFF_WORDS(w1)[5], (o0->r1 ? o0->r1->v0 : UINT64_C(5)), o1);
            diff_jump(jump, 2, acc);
        }
        p0 += acc + (uint64_t)again * DIFF_WORDS(w0)[13];
    }
    s1 += f3((UINT64_C(440686) << 23), (*d0 + (uint64_t)s0), (uint64_t)s0, o0);
    {
        static const void *const ops4[] = {&&add4, &&alloc4, &&call4, &&end4};
        static const uint8_t code4[] = {2, 1, 3};
        const uint8_t *pc4 = code4;
        obj_ref cur4 = o0;
        uint64_t made4 = 0;
        goto *ops4[*pc4++];
    add4:
        p0 = p0 * 31 + cur4->v0;
        goto *ops4[*pc4++];
    alloc4: {
        obj_ref node = diff_new_obj();
        node->v0 = p0 + made4++;
        node->r0 = cur4;
        cur4 = node;
        goto *ops4[*pc4++];
    }
    call4:
        (void)f3((uint64_t)s0, *d0, *d0, o0);
        goto *ops4[*pc4++];
    end4:
        for (uint64_t k = 0; k < made4; k++, cur4 = cur4->r0)
            p0 = diff_mix(p0, cur4->v0);
    }
    uint64_t h = UINT64_C(5);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, o1->v0);
    h = diff_mix(h, o1->v1);
    h = diff_mix(h, o1->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, diff_sum_words(w0));
    h = diff_mix(h, diff_sum_words(w1));
    return h;
}

__attribute__((noinline)) uint64_t f6(int16_t p0, int64_t p1, int16_t p2, int16_t p3, int64_t p4, int64_t p5, uint8_t p6, uint8_t p7, obj_ref q0, obj_ref q1)
{
    obj_ref o0 = diff_new_obj();
    o0->v0 = (q0->v1 >> 15);
    uint64_t s0 = (q0->r0 ? q0->r0->v2 : UINT64_C(5));
    uint64_t s1 = (q0->r1 ? q0->r1->v2 : UINT64_C(5));
    {
        uint64_t DIFF_REF *pick = &q0->v2;
        if (((uint64_t)p7 & 3) == 0)
            pick = &q0->v1;
        (void)f5(((uint64_t)p2 << 33));
        *pick += p6;
        p6 ^= *pick;
    }
    s1 ^= ((q1->v0 >> 61) - ((UINT64_C(102244) ^ q1->v1) - (uint64_t)p1));
    p6 ^= (((uint64_t)p5 ^ q1->v0) - (uint64_t)s1);
    {
        q0->r1 = diff_new_obj();
        q0->r1->v0 = q0->v1;
        diff_garbage(2);
        p7 += q0->r1->v0;
    }
    p7 ^= ((UINT64_C(969706) << 12) + UINT64_C(232640));
    s1 ^= ((uint64_t)s0 ^ q0->v0);
    q0 = diff_new_obj();
    q0->v0 = (((uint64_t)p2 - (uint64_t)s1) >> 45);
    q0->r0 = q0;
    p7 ^= ((UINT64_C(111454) ^ (((UINT64_C(317552) ^ (uint64_t)s0) - UINT64_C(219988)) >> 40)) << 4);
    uint64_t h = UINT64_C(6);
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
    return h;
}

__attribute__((noinline)) uint64_t f7(uint64_t p0, uint64_t p1, int32_t p2, uint32_t p3)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = (((uint64_t)p0 + (UINT64_C(125730) ^ UINT64_C(106925))) << 14);
    arr_ref w0 = diff_new_words(13);
    arr_ref a0 = diff_new_refs(4);
    uint64_t s0 = o0->v1;
    uint64_t s1 = (UINT64_C(766953) - (((uint64_t)p2 << 53) ^ (o0->v0 * o0->v0)));
    if (((o0->v1 * (uint64_t)p3) & 3) != 1) {
        if (((((uint64_t)p3 * o0->v2) - UINT64_C(931018)) & 3) != 1) {
            {
                uint64_t DIFF_REF *pick = ((o0->v1 * (uint64_t)p0) & 1) ? &o0->v1 : &DIFF_WORDS(w0)[6];
                diff_garbage(5);
                *pick += s0;
                s0 ^= *pick;
            }
        }
    }
    p3 += diff_vla((uint64_t)p0, o0);
    {
        jmp_buf jump;
        volatile uint64_t acc = (UINT64_C(859360) >> 48);
        int again = setjmp(jump);
        if (again == 0) {
            o0->v2 ^= (o0->r1 ? o0->r1->v0 : UINT64_C(5));
            diff_jump(jump, 1, acc);
        }
        p3 += acc + (uint64_t)again * DIFF_WORDS(w0)[5];
    }
    DIFF_REFS(a0)[3] = o0;
    diff_garbage(21);
    p2 += DIFF_REFS(a0)[3]->v1;
    switch (DIFF_WORDS(w0)[2] % 4) {
    case 0: o0 = o0; break;
    case 1: o0 = diff_new_obj(); o0->v0 = o0->v0; o0->r0 = o0; break;
    case 2: s0 += f1(UINT64_C(680530), DIFF_WORDS(w0)[2], o0->v2, o0, o0, o0); break;
    default: s0 ^= o0->v2; break;
    }
    p2 += diff_vsum(2, (uint64_t)s0, ((uint64_t)p2 >> 26));
    p2 += diff_vrefs(1, o0);
    p2 += diff_vdoubles(3, (double)((o0->r1 ? o0->r1->v0 : UINT64_C(5)) & 0xffff), (double)((o0->v1 ^ UINT64_C(541151)) & 0xffff), (double)((uint64_t)p0 & 0xffff));
    {
        unsigned __int128 wide = diff_vwide(3, o0, 35, -20, -28, (unsigned __int128)((UINT64_C(1020511) ^ (o0->v1 ^ (UINT64_C(219080) + (uint64_t)p0)))) << 64 | ((uint64_t)s0));
        p2 += (uint64_t)wide ^ (uint64_t)(wide >> 64);
        diff_triple t = diff_vtriple(1, o0);
        p2 += t.a ^ t.b ^ t.c;
    }
    DIFF_REFS(a0)[1] = o0;
    diff_garbage(9);
    p2 += DIFF_REFS(a0)[1]->v0;
    {
        obj_ref head = 0;
        for (uint64_t i = 0; i < 15; i++) {
            obj_ref node = diff_new_obj();
            node->r0 = head;
            node->v0 = p3 + i * 668;
            if (i % 3 == 0)
                (void)f6((((uint64_t)p0 * o0->v1) - o0->v0), UINT64_C(217183), ((UINT64_C(620388) >> 44) << 54), (o0->r1 ? o0->r1->v0 : UINT64_C(5)), ((uint64_t)p2 + (UINT64_C(264401) ^ (uint64_t)p2)), (uint64_t)p2, (o0->v2 + ((uint64_t)s1 * UINT64_C(490277))), DIFF_WORDS(w0)[7], o0, o0);
            head = node;
        }
        for (obj_ref node = head; node; node = node->r0) {
            p3 = diff_mix(p3, node->v0);
            if ((node->v0 & 3) == 2)
                diff_garbage(1);
        }
    }
    for (uint64_t i = 0; i < 13; i++)
        DIFF_WORDS(w0)[i] = DIFF_WORDS(w0)[i] * 3 + i + p3;
    s0 += f1(((uint64_t)p3 * UINT64_C(658112)), ((uint64_t)s0 >> 25), (UINT64_C(320893) ^ UINT64_C(289201)), o0, o0, o0);
    uint64_t h = UINT64_C(7);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

__attribute__((noinline)) uint64_t f8(int16_t p0, uint32_t p1, int64_t p2, uint8_t p3, int32_t p4, uint32_t p5, obj_ref q0, obj_ref q1)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = q1->v1;
    arr_ref w0 = diff_new_words(43);
    arr_ref a0 = diff_new_refs(6);
    uint64_t s0 = (DIFF_WORDS(w0)[32] ^ (uint64_t)p4);
    uint64_t s1 = ((UINT64_C(502059) * UINT64_C(706293)) * ((UINT64_C(901907) >> 55) + (q0->v2 * q0->v1)));
    {
        obj_ref DIFF_REF *slot = &DIFF_REFS(a0)[1];
        diff_garbage(1);
        *slot = diff_new_obj();
        (*slot)->v1 = q1->v2;
        diff_garbage(2);
        s0 += (*slot)->v1 ^ DIFF_REFS(a0)[1]->v0;
    }
    for (uint64_t DIFF_REF *p = DIFF_WORDS(w0), *end = p + 43; p != end; p++) {
        if ((*p & 3) == 0)
            s0 ^= f1(q1->v2, ((((uint64_t)p5 * UINT64_C(599993)) + (q1->v0 * q1->v1)) << 34), (UINT64_C(315887) * q1->v0), o0, q0, q0);
        *p = *p * 5 + s0;
    }
    q1 = diff_new_obj();
    q1->v0 = UINT64_C(164930);
    q1->r0 = q1;
    uint64_t h = UINT64_C(8);
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
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

static uint64_t rounds(uint64_t salt, int print)
{
    uint64_t total = 0;
    for (uint64_t round = 0; round < 5; round++) {
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(12670209) + round + salt * 977;
            uint64_t v = f6((root->r0 ? root->r0->v2 : UINT64_C(5)), (UINT64_C(1207) - (uint64_t)round), (uint64_t)round, root->v2, (root->r1 ? root->r1->v0 : UINT64_C(5)), ((uint64_t)round + root->v2), UINT64_C(894995), UINT64_C(673512), root, root);
            if (print)
                printf("f6 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(68814667) + round + salt * 977;
            uint64_t v = f7((UINT64_C(238585) << 61), (UINT64_C(125156) >> 34), ((UINT64_C(506802) - UINT64_C(893593)) ^ UINT64_C(465081)), (UINT64_C(510827) + UINT64_C(1024391)));
            if (print)
                printf("f7 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(1045111805) + round + salt * 977;
            uint64_t v = f8((root->r0 ? root->r0->v2 : UINT64_C(5)), root->v0, ((uint64_t)round * root->v1), (uint64_t)round, ((root->v0 << 58) << 18), ((uint64_t)round >> 37), root, root);
            if (print)
                printf("f8 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
    }
    return total;
}

static uint64_t thread_totals[1];
static void *mutator(void *index)
{
    uintptr_t t = (uintptr_t)index;
    thread_totals[t] = rounds(t + 1, 0);
    return 0;
}

int main(void)
{
    diff_start();
    pthread_t threads[1];
    for (uintptr_t t = 0; t < 1; t++)
        diff_thread_start(&threads[t], mutator, (void *)t);
    uint64_t total = rounds(0, 1);
    uint64_t deep = diff_recurse(708, diff_new_obj(), UINT64_C(883635053), 1, 2, 3);
    printf("recurse(708) = %016llx\n", (unsigned long long)deep);
    for (int t = 0; t < 1; t++) {
        pthread_join(threads[t], 0);
        printf("thread %d = %016llx\n", t, (unsigned long long)thread_totals[t]);
    }
    diff_stop();
    printf("checksum = %016llx\n", (unsigned long long)(total ^ deep));
    return 0;
}
