/* computed_goto_setjmp_base.c — gen.py --seed 85130 --with
 * asm,chain,computed-goto,cut,derived-select,indirect-call,many-args,pair,
 * pointer-loop,setjmp,slot-helpers, unreduced. Found by scripts/difftest in
 * concurrent generational mode on 2026-11-27, and failing in every mode, at
 * every level, under the default polls,poison: "marking found a reference
 * 0x26d that is neither in the heap nor a large object", or with
 * CORRAL_GC_VERIFY=before "stack slot of a stopped thread ... holds 0x2bd".
 * clang gives every computed goto of a function one dispatch block, whose
 * phis take undef from the gotos of the other interpreters (cur2 is unset
 * while the first one runs). f4 calls setjmp, so the pass keeps its
 * references and the bases of derived ones in root slots; it built a phi
 * of bases with an undef incoming value and stored it there, and the
 * collector read what a register held. Fixed in polls/normalize.c: an
 * undef or poison reference is null (tests/polls/ir/setjmp_undef_phi.ll). */
/* generated: tests/diff/gen.py --seed 85130 --with=asm,chain,computed-goto,cut,derived-select,indirect-call,many-args,pair,pointer-loop,setjmp,slot-helpers */
#define DIFF_WITH_ASM 1
#define DIFF_WITH_CHAIN 1
#define DIFF_WITH_COMPUTED_GOTO 1
#define DIFF_WITH_CUT 1
#define DIFF_WITH_DERIVED_SELECT 1
#define DIFF_WITH_INDIRECT_CALL 1
#define DIFF_WITH_MANY_ARGS 1
#define DIFF_WITH_PAIR 1
#define DIFF_WITH_POINTER_LOOP 1
#define DIFF_WITH_SETJMP 1
#define DIFF_WITH_SLOT_HELPERS 1
#include "diff_helpers.h"

static uint64_t f0(int16_t p0, uint8_t p1, uint8_t p2, int32_t p3, uint64_t p4, int64_t p5, int32_t p6, uint32_t p7, int64_t p8, obj_ref q0)
{
    obj_ref o0 = diff_new_obj();
    o0->v1 = (uint64_t)p6;
    obj_ref o1 = diff_new_obj();
    o1->v0 = ((uint64_t)p8 * (q0->r0 ? q0->r0->v0 : UINT64_C(5)));
    uint64_t s0 = o1->v2;
    uint64_t s1 = ((UINT64_C(173017) >> 5) - UINT64_C(238213));
    {
        diff_pair pair = diff_pair_step((diff_pair){o1, q0}, ((uint64_t)p2 - o1->v1));
        s1 += pair.a->v0 ^ pair.b->v2;
        o1 = pair.b;
    }
    s0 ^= UINT64_C(334719);
    s1 += diff_vla(((uint64_t)p4 << 19), o0);
    {
        jmp_buf jump;
        volatile uint64_t acc = (uint64_t)s0;
        int again = setjmp(jump);
        if (again == 0) {
            diff_garbage(33);
            diff_garbage(27);
            diff_jump(jump, 0, acc);
        }
        s1 += acc + (uint64_t)again * (uint64_t)s1;
    }
    s1 ^= (((uint64_t)p7 >> 35) << 42);
    p7 ^= (o1->r0 ? o1->r0->v2 : UINT64_C(5));
    {
        uint64_t DIFF_REF *pick = (((UINT64_C(666762) * ((uint64_t)p8 ^ UINT64_C(339378))) + ((uint64_t)p8 * (o1->v2 * (uint64_t)p0))) & 1) ? &o0->v0 : &o1->v0;
        diff_garbage(5);
        *pick += s1;
        s1 ^= *pick;
    }
    {
        obj_ref cut = diff_new_obj();
        cut->v0 = ((UINT64_C(675103) + (uint64_t)p5) + UINT64_C(717279));
        cut->r0 = diff_new_obj();
        cut->r0->v1 = (o1->r0 ? o1->r0->v1 : UINT64_C(5));
        o1->r1 = cut;
    }
    diff_garbage(3);
    s1 += o1->r1 ? o1->r1->v0 : UINT64_C(7);
    o1->r1 = o1;
    uint64_t h = UINT64_C(0);
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
    return h;
}

static __attribute__((noinline)) uint64_t f1(int16_t p0)
{
    obj_ref o0 = diff_new_obj();
    o0->v1 = ((((UINT64_C(641713) >> 33) * UINT64_C(797943)) + UINT64_C(348293)) * (UINT64_C(159902) + (uint64_t)p0));
    obj_ref o1 = diff_new_obj();
    o1->v1 = ((uint64_t)p0 << 9);
    arr_ref w0 = diff_new_words(31);
    arr_ref a0 = diff_new_refs(1);
    uint64_t DIFF_REF *d0 = &DIFF_WORDS(w0)[16];
    uint64_t s0 = UINT64_C(861311);
    uint64_t s1 = o0->v2;
    s0 += f0((o1->r0 ? o1->r0->v0 : UINT64_C(5)), *d0, *d0, (*d0 * o0->v1), (*d0 - *d0), (o0->v0 * (uint64_t)s0), o1->v1, (o1->r1 ? o1->r1->v1 : UINT64_C(5)), o0->v1, o0);
    for (uint64_t i = 0; i < 31; i++)
        DIFF_WORDS(w0)[i] = DIFF_WORDS(w0)[i] * 3 + i + s0;
    s0 = diff_asm_add(o0->v2, 55);
    for (uint64_t i = 0; i < 31; i++) {
        if (i % 5 == 0)
            s1 ^= f0((o0->v0 >> 10), DIFF_WORDS(w0)[15], DIFF_WORDS(w0)[16], *d0, (o0->r0 ? o0->r0->v2 : UINT64_C(5)), *d0, (o1->v0 - *d0), (*d0 ^ o1->v0), (*d0 ^ UINT64_C(403136)), o1);
        s1 = s1 * 31 + DIFF_WORDS(w0)[i];
    }
    {
        obj_ref head = 0;
        for (uint64_t i = 0; i < 30; i++) {
            obj_ref node = diff_new_obj();
            node->r0 = head;
            node->v0 = s0 + i * 101;
            if (i % 8 == 0)
                diff_garbage(5);
            head = node;
        }
        for (obj_ref node = head; node; node = node->r0) {
            s0 = diff_mix(s0, node->v0);
            if ((node->v0 & 3) == 0)
                diff_garbage(1);
        }
    }
    {
        uint64_t DIFF_REF *pick = &o1->v2;
        if ((((uint64_t)p0 - (uint64_t)s0) & 3) == 0)
            pick = &DIFF_WORDS(w0)[6];
        diff_garbage(4);
        *pick += s0;
        s0 ^= *pick;
    }
    {
        uint64_t DIFF_REF *pick = ((UINT64_C(994748) ^ *d0) & 1) ? &o0->v1 : &o1->v1;
        diff_garbage(5);
        *pick += p0;
        p0 ^= *pick;
    }
    s1 = diff_asm_add((*d0 ^ UINT64_C(773048)), 66);
    p0 += f0(DIFF_WORDS(w0)[5], (UINT64_C(46643) << 39), ((uint64_t)s0 * *d0), (uint64_t)s1, ((uint64_t)s1 >> 54), UINT64_C(792364), o1->v1, DIFF_WORDS(w0)[13], UINT64_C(196014), o0);
    for (uint64_t i = 0; i < 31; i++)
        DIFF_WORDS(w0)[i] = DIFF_WORDS(w0)[i] * 3 + i + s1;
    if (((uint64_t)p0 & 3) != 1) {
        if (((UINT64_C(517447) << 5) & 3) != 1) {
            for (uint64_t DIFF_REF *p = DIFF_WORDS(w0), *end = p + 31; p != end; p++) {
                if ((*p & 3) == 3)
                    p0 ^= f0(o1->v1, (UINT64_C(253728) << 12), UINT64_C(865760), UINT64_C(689838), (o1->v1 << 33), (*d0 * *d0), UINT64_C(402388), (o0->v2 << 60), o1->v1, o1);
                *p = *p * 5 + p0;
            }
        }
    }
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
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

__attribute__((noinline)) uint64_t f2(uint32_t p0)
{
    obj_ref o0 = diff_new_obj();
    o0->v1 = (UINT64_C(255426) * UINT64_C(572320));
    obj_ref o1 = diff_new_obj();
    o1->v1 = (o0->r1 ? o0->r1->v0 : UINT64_C(5));
    obj_ref o2 = diff_new_obj();
    o2->v0 = ((UINT64_C(233805) >> 35) << 20);
    arr_ref w0 = diff_new_words(14);
    arr_ref w1 = diff_new_words(39);
    uint64_t DIFF_REF *d0 = &o1->v2;
    uint64_t DIFF_REF *d1 = &DIFF_WORDS(w1)[1];
    uint64_t s0 = DIFF_WORDS(w0)[5];
    uint64_t s1 = (o1->r0 ? o1->r0->v1 : UINT64_C(5));
    s1 ^= (uint64_t)s0;
    {
        obj_ref DIFF_REF *link = &o2->r0;
        for (int n = 0; *link && n < 2; n++)
            link = &(*link)->r0;
        (void)f0((*d1 * o2->v1), DIFF_WORDS(w0)[13], DIFF_WORDS(w0)[12], (*d1 << 60), DIFF_WORDS(w0)[2], (uint64_t)s0, UINT64_C(485763), (o2->v1 << 33), (o1->v0 ^ (uint64_t)p0), o0);
        obj_ref fresh = diff_new_obj();
        fresh->v0 = (uint64_t)p0;
        *link = fresh;
        diff_bump_field(&o1->v2, (uint64_t)p0);
    }
    {
        obj_ref cut = diff_new_obj();
        cut->v0 = (o0->v1 ^ (uint64_t)s1);
        cut->r0 = diff_new_obj();
        cut->r0->v1 = o0->v2;
        o0->r1 = cut;
    }
    diff_garbage(5);
    s1 += o0->r1 ? o0->r1->v0 : UINT64_C(7);
    o0->r1 = o1;
    s0 += diff_vla(DIFF_WORDS(w0)[4], o2);
    {
        jmp_buf jump;
        volatile uint64_t acc = (*d1 >> 10);
        int again = setjmp(jump);
        if (again == 0) {
            diff_garbage(14);
            diff_jump(jump, 4, acc);
        }
        s0 += acc + (uint64_t)again * (*d0 * o2->v1);
    }
    for (uint64_t DIFF_REF *p = DIFF_WORDS(w1), *end = p + 39; p != end; p++) {
        if ((*p & 3) == 3)
            diff_garbage(3);
        *p = *p * 5 + s1;
    }
    p0 ^= (o1->r0 ? o1->r0->v0 : UINT64_C(5));
    {
        obj_ref cut = diff_new_obj();
        cut->v0 = (o1->r1 ? o1->r1->v2 : UINT64_C(5));
        cut->r0 = diff_new_obj();
        cut->r0->v1 = UINT64_C(90658);
        o2->r1 = cut;
    }
    diff_garbage(5);
    s1 += o2->r1 ? o2->r1->v0 : UINT64_C(7);
    o2->r1 = o0;
    {
        obj_ref head = 0;
        for (uint64_t i = 0; i < 8; i++) {
            obj_ref node = diff_new_obj();
            node->r0 = head;
            node->v0 = p0 + i * 104;
            if (i % 6 == 0)
                (void)f1((uint64_t)p0);
            head = node;
        }
        for (obj_ref node = head; node; node = node->r0) {
            p0 = diff_mix(p0, node->v0);
            if ((node->v0 & 3) == 3)
                diff_garbage(1);
        }
    }
    uint64_t h = UINT64_C(2);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
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
    h = diff_mix(h, diff_sum_words(w0));
    h = diff_mix(h, diff_sum_words(w1));
    return h;
}

static __attribute__((noinline)) uint64_t f3(int32_t p0, obj_ref q0, obj_ref q1)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = UINT64_C(479199);
    obj_ref o1 = diff_new_obj();
    o1->v0 = (((uint64_t)p0 >> 22) + UINT64_C(204473));
    obj_ref o2 = diff_new_obj();
    o2->v0 = UINT64_C(819045);
    uint64_t s0 = (UINT64_C(800586) >> 24);
    uint64_t s1 = ((((q1->v0 ^ q0->v2) >> 6) - ((uint64_t)s0 ^ UINT64_C(675576))) + ((UINT64_C(457959) ^ (UINT64_C(419878) ^ (UINT64_C(515216) ^ q1->v1))) ^ UINT64_C(816713)));
    s0 ^= ((o1->v1 * (uint64_t)s1) * o1->v0);
    s0 += f2((o2->r0 ? o2->r0->v1 : UINT64_C(5)));
    q0 = diff_new_obj();
    q0->v0 = (uint64_t)p0;
    q0->r0 = q1;
    uint64_t h = UINT64_C(3);
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
    return h;
}

static __attribute__((noinline)) uint64_t f4(uint8_t p0, uint64_t p1, int64_t p2, obj_ref q0)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = (q0->r1 ? q0->r1->v1 : UINT64_C(5));
    obj_ref o1 = diff_new_obj();
    o1->v1 = UINT64_C(620057);
    obj_ref o2 = diff_new_obj();
    o2->v2 = ((o1->r0 ? o1->r0->v2 : UINT64_C(5)) - o1->v1);
    arr_ref w0 = diff_new_words(44);
    arr_ref w1 = diff_new_words(20);
    uint64_t DIFF_REF *d0 = &DIFF_WORDS(w0)[39];
    uint64_t DIFF_REF *d1 = &o1->v2;
    uint64_t s0 = *d1;
    uint64_t s1 = DIFF_WORDS(w0)[23];
    p2 += diff_vla((uint64_t)p0, o2);
    {
        jmp_buf jump;
        volatile uint64_t acc = o0->v0;
        int again = setjmp(jump);
        if (again == 0) {
            acc ^= f3((o0->r1 ? o0->r1->v1 : UINT64_C(5)), q0, o0);
            acc ^= f1((uint64_t)p2);
            diff_jump(jump, 0, acc);
        }
        p2 += acc + (uint64_t)again * ((uint64_t)p1 + *d1);
    }
    {
        static const void *const ops1[] = {&&add1, &&alloc1, &&call1, &&end1};
        static const uint8_t code1[] = {2, 1, 2, 0, 2, 1, 2, 1, 2, 1, 0, 2, 0, 0, 2, 1, 0, 2, 2, 0, 0, 2, 2, 3};
        const uint8_t *pc1 = code1;
        obj_ref cur1 = o1;
        uint64_t made1 = 0;
        goto *ops1[*pc1++];
    add1:
        p2 = p2 * 31 + cur1->v0;
        goto *ops1[*pc1++];
    alloc1: {
        obj_ref node = diff_new_obj();
        node->v0 = p2 + made1++;
        node->r0 = cur1;
        cur1 = node;
        goto *ops1[*pc1++];
    }
    call1:
        diff_garbage(5);
        goto *ops1[*pc1++];
    end1:
        for (uint64_t k = 0; k < made1; k++, cur1 = cur1->r0)
            p2 = diff_mix(p2, cur1->v0);
    }
    {
        static const void *const ops2[] = {&&add2, &&alloc2, &&call2, &&end2};
        static const uint8_t code2[] = {2, 3};
        const uint8_t *pc2 = code2;
        obj_ref cur2 = q0;
        uint64_t made2 = 0;
        goto *ops2[*pc2++];
    add2:
        p1 = p1 * 31 + cur2->v0;
        goto *ops2[*pc2++];
    alloc2: {
        obj_ref node = diff_new_obj();
        node->v0 = p1 + made2++;
        node->r0 = cur2;
        cur2 = node;
        goto *ops2[*pc2++];
    }
    call2:
        (void)f0(o1->v0, (uint64_t)p2, (uint64_t)s1, (q0->r1 ? q0->r1->v0 : UINT64_C(5)), (o2->r1 ? o2->r1->v0 : UINT64_C(5)), ((uint64_t)p2 * (uint64_t)p2), *d1, (uint64_t)p0, (o2->v1 >> 25), o1);
        goto *ops2[*pc2++];
    end2:
        for (uint64_t k = 0; k < made2; k++, cur2 = cur2->r0)
            p1 = diff_mix(p1, cur2->v0);
    }
    {
        static const void *const ops3[] = {&&add3, &&alloc3, &&call3, &&end3};
        static const uint8_t code3[] = {2, 2, 2, 0, 0, 2, 2, 2, 2, 0, 0, 3};
        const uint8_t *pc3 = code3;
        obj_ref cur3 = o0;
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
        (void)f3(((uint64_t)p1 >> 60), q0, q0);
        goto *ops3[*pc3++];
    end3:
        for (uint64_t k = 0; k < made3; k++, cur3 = cur3->r0)
            s1 = diff_mix(s1, cur3->v0);
    }
    s1 += diff_vla((UINT64_C(160309) + UINT64_C(1002721)), o1);
    {
        jmp_buf jump;
        volatile uint64_t acc = DIFF_WORDS(w0)[28];
        int again = setjmp(jump);
        if (again == 0) {
            o0->v1 ^= UINT64_C(336662);
            diff_jump(jump, 2, acc);
        }
        s1 += acc + (uint64_t)again * (*d1 ^ o0->v1);
    }
    {
        static const void *const ops4[] = {&&add4, &&alloc4, &&call4, &&end4};
        static const uint8_t code4[] = {1, 2, 0, 1, 2, 2, 1, 1, 2, 2, 2, 1, 1, 1, 2, 3};
        const uint8_t *pc4 = code4;
        obj_ref cur4 = o0;
        uint64_t made4 = 0;
        goto *ops4[*pc4++];
    add4:
        s0 = s0 * 31 + cur4->v0;
        goto *ops4[*pc4++];
    alloc4: {
        obj_ref node = diff_new_obj();
        node->v0 = s0 + made4++;
        node->r0 = cur4;
        cur4 = node;
        goto *ops4[*pc4++];
    }
    call4:
        (void)f3((o0->v2 + (uint64_t)p0), o1, o2);
        goto *ops4[*pc4++];
    end4:
        for (uint64_t k = 0; k < made4; k++, cur4 = cur4->r0)
            s0 = diff_mix(s0, cur4->v0);
    }
    {
        uint64_t (*volatile fp)(int16_t) = f1;
        s1 += fp((*d0 ^ UINT64_C(234049)));
    }
    *d1 += UINT64_C(328270);
    uint64_t h = UINT64_C(4);
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
    h = diff_mix(h, o2->v0);
    h = diff_mix(h, o2->v1);
    h = diff_mix(h, o2->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, *d1);
    h = diff_mix(h, diff_sum_words(w0));
    h = diff_mix(h, diff_sum_words(w1));
    return h;
}

static __attribute__((noinline)) uint64_t f5(int16_t p0, int64_t p1, int16_t p2, uint32_t p3, int32_t p4, obj_ref q0, obj_ref q1)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = (uint64_t)p3;
    obj_ref o1 = diff_new_obj();
    o1->v0 = ((uint64_t)p0 << 1);
    arr_ref w0 = diff_new_words(33);
    uint64_t DIFF_REF *d0 = &o0->v0;
    uint64_t s0 = UINT64_C(13580);
    uint64_t s1 = o1->v2;
    p4 += f1((uint64_t)p1);
    for (uint64_t i = 0; i < 33; i++) {
        if (i % 6 == 0)
            p4 ^= f1((q0->v0 + (uint64_t)p2));
        p4 = p4 * 31 + DIFF_WORDS(w0)[i];
    }
    *d0 += DIFF_WORDS(w0)[27];
    {
        uint64_t (*volatile fp)(uint32_t) = f2;
        p3 += fp(q0->v0);
    }
    if ((*d0 & 3) != 1) {
        if (((o1->r1 ? o1->r1->v0 : UINT64_C(5)) & 3) != 1) {
            {
                uint64_t (*volatile fp)(uint8_t, uint64_t, int64_t, obj_ref) = f4;
                p4 += fp(o0->v0, UINT64_C(129339), q1->v1, o0);
            }
        }
    }
    for (uint64_t i = 0; i < 33; i++) {
        p3 = p3 * 31 + DIFF_WORDS(w0)[i];
    }
    s0 += f3(q1->v2, o0, q1);
    p4 += f4((o0->r1 ? o0->r1->v2 : UINT64_C(5)), *d0, (*d0 + UINT64_C(203569)), o1);
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
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

static uint64_t f6(int16_t p0, int16_t p1, int32_t p2, uint32_t p3, obj_ref q0, obj_ref q1, obj_ref q2)
{
    obj_ref o0 = diff_new_obj();
    o0->v0 = (((uint64_t)p2 ^ (uint64_t)p3) + (UINT64_C(781956) ^ UINT64_C(89535)));
    arr_ref w0 = diff_new_words(16);
    arr_ref a0 = diff_new_refs(6);
    uint64_t s0 = ((uint64_t)p1 * (uint64_t)p1);
    uint64_t s1 = UINT64_C(175793);
    p3 += f4((UINT64_C(432510) + q1->v0), (uint64_t)s1, UINT64_C(976666), q0);
    for (uint64_t i = 0; i < 16; i++)
        DIFF_WORDS(w0)[i] = DIFF_WORDS(w0)[i] * 3 + i + p3;
    if ((((uint64_t)s0 + UINT64_C(581051)) & 3) != 1) {
        p3 += f4(DIFF_WORDS(w0)[3], (q2->r1 ? q2->r1->v0 : UINT64_C(5)), (uint64_t)p2, q2);
    }
    s1 += diff_vla(UINT64_C(700150), q0);
    {
        jmp_buf jump;
        volatile uint64_t acc = ((UINT64_C(429205) << 2) >> 58);
        int again = setjmp(jump);
        if (again == 0) {
            acc ^= f3((q2->v2 - q2->v2), q1, q1);
            diff_garbage(39);
            acc ^= f0((o0->v2 ^ UINT64_C(972238)), (q0->v2 * (uint64_t)p1), (q0->r1 ? q0->r1->v0 : UINT64_C(5)), ((uint64_t)s0 << 10), (UINT64_C(1038754) - (q1->v0 << 39)), (UINT64_C(502584) - UINT64_C(246780)), (q1->r0 ? q1->r0->v0 : UINT64_C(5)), q1->v1, (q2->v1 << 46), o0);
            diff_jump(jump, 2, acc);
        }
        s1 += acc + (uint64_t)again * (q0->v1 * UINT64_C(347007));
    }
    {
        obj_ref cut = diff_new_obj();
        cut->v0 = q0->v0;
        cut->r0 = diff_new_obj();
        cut->r0->v1 = (q1->r0 ? q1->r0->v1 : UINT64_C(5));
        o0->r1 = cut;
    }
    (void)f4((UINT64_C(804752) ^ UINT64_C(559239)), (o0->v2 ^ (q2->v1 >> 62)), ((uint64_t)p3 << 50), q2);
    s1 += o0->r1 ? o0->r1->v0 : UINT64_C(7);
    {
        obj_ref seen = o0->r1;
        s1 ^= (uint64_t)__atomic_compare_exchange_n(&o0->r1, &seen, (obj_ref)0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    s1 += f5(((uint64_t)s0 + UINT64_C(207919)), UINT64_C(77694), (q1->r1 ? q1->r1->v1 : UINT64_C(5)), UINT64_C(384909), UINT64_C(856361), q2, o0);
    uint64_t h = UINT64_C(6);
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
    h = diff_mix(h, diff_sum_words(w0));
    return h;
}

__attribute__((noinline)) uint64_t f7(int64_t p0, uint32_t p1, int16_t p2, uint8_t p3, uint64_t p4)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = ((UINT64_C(522726) - (uint64_t)p3) ^ ((uint64_t)p2 << 16));
    arr_ref w0 = diff_new_words(33);
    arr_ref w1 = diff_new_words(34);
    arr_ref a0 = diff_new_refs(2);
    uint64_t DIFF_REF *d0 = &DIFF_WORDS(w0)[9];
    uint64_t s0 = o0->v0;
    uint64_t s1 = ((UINT64_C(443672) << 35) << 12);
    for (uint64_t i = 0; i < 34; i++)
        DIFF_WORDS(w1)[i] = DIFF_WORDS(w1)[i] * 3 + i + p4;
    {
        diff_pair pair = diff_pair_step((diff_pair){o0, o0}, (o0->v1 ^ UINT64_C(58605)));
        s0 += pair.a->v0 ^ pair.b->v2;
        o0 = pair.b;
    }
    s0 ^= (uint64_t)s1;
    if ((UINT64_C(653651) & 3) != 1) {
        DIFF_REFS(a0)[1] = o0;
        diff_garbage(6);
        s0 += DIFF_REFS(a0)[1]->v1;
    }
    DIFF_REFS(a0)[1] = o0;
    diff_garbage(1);
    p3 += DIFF_REFS(a0)[1]->v1;
    {
        uint64_t DIFF_REF *pick = &o0->v0;
        if (((*d0 ^ UINT64_C(541709)) & 3) == 0)
            pick = &DIFF_WORDS(w1)[27];
        (void)f6(*d0, (uint64_t)p0, (UINT64_C(966673) << 60), UINT64_C(1045006), o0, o0, o0);
        *pick += s0;
        s0 ^= *pick;
    }
    p3 = diff_asm_add(*d0, 33);
    DIFF_REFS(a0)[0] = o0;
    diff_garbage(23);
    p3 += DIFF_REFS(a0)[0]->v0;
    uint64_t h = UINT64_C(7);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, *d0);
    h = diff_mix(h, diff_sum_words(w0));
    h = diff_mix(h, diff_sum_words(w1));
    return h;
}

static uint64_t f8(int16_t p0, int32_t p1, int16_t p2, int16_t p3, int64_t p4, uint32_t p5, int32_t p6)
{
    obj_ref o0 = diff_new_obj();
    o0->v2 = (((uint64_t)p3 ^ (UINT64_C(582247) ^ UINT64_C(538010))) << 22);
    uint64_t DIFF_REF *d0 = &o0->v0;
    uint64_t s0 = UINT64_C(953003);
    uint64_t s1 = ((UINT64_C(526972) - *d0) >> 53);
    s1 += f4((o0->v2 + UINT64_C(88740)), (o0->v2 >> 43), ((uint64_t)s1 + UINT64_C(495514)), o0);
    p6 ^= ((*d0 + *d0) + (o0->r0 ? o0->r0->v0 : UINT64_C(5)));
    s1 ^= o0->v0;
    {
        uint64_t DIFF_REF *pick = ((o0->v0 ^ o0->v1) & 1) ? &o0->v0 : &o0->v0;
        (void)f5((UINT64_C(365611) * *d0), UINT64_C(1017858), (uint64_t)s1, UINT64_C(1015274), (o0->r1 ? o0->r1->v2 : UINT64_C(5)), o0, o0);
        *pick += p5;
        p5 ^= *pick;
    }
    s0 ^= (o0->r0 ? o0->r0->v2 : UINT64_C(5));
    {
        static const void *const ops5[] = {&&add5, &&alloc5, &&call5, &&end5};
        static const uint8_t code5[] = {2, 2, 1, 0, 1, 1, 1, 1, 2, 2, 1, 0, 2, 3};
        const uint8_t *pc5 = code5;
        obj_ref cur5 = o0;
        uint64_t made5 = 0;
        goto *ops5[*pc5++];
    add5:
        s0 = s0 * 31 + cur5->v0;
        goto *ops5[*pc5++];
    alloc5: {
        obj_ref node = diff_new_obj();
        node->v0 = s0 + made5++;
        node->r0 = cur5;
        cur5 = node;
        goto *ops5[*pc5++];
    }
    call5:
        (void)f3((o0->v0 << 62), o0, o0);
        goto *ops5[*pc5++];
    end5:
        for (uint64_t k = 0; k < made5; k++, cur5 = cur5->r0)
            s0 = diff_mix(s0, cur5->v0);
    }
    {
        uint64_t DIFF_REF *pick = (o0->v0 & 1) ? &o0->v2 : &o0->v0;
        (void)f1(UINT64_C(497653));
        *pick += p5;
        p5 ^= *pick;
    }
    {
        diff_pair pair = diff_pair_step_inline((diff_pair){o0, o0}, (*d0 * o0->v1));
        p6 += pair.a->v0 ^ pair.b->v2;
        o0 = pair.b;
    }
    p6 ^= (*d0 * UINT64_C(536104));
    if (((uint64_t)s1 & 3) != 1) {
        s0 ^= (o0->r1 ? o0->r1->v0 : UINT64_C(5));
    }
    uint64_t h = UINT64_C(8);
    h = diff_mix(h, s0);
    h = diff_mix(h, s1);
    h = diff_mix(h, o0->v0);
    h = diff_mix(h, o0->v1);
    h = diff_mix(h, o0->v2);
    h = diff_mix(h, *d0);
    return h;
}

static uint64_t rounds(uint64_t salt, int print)
{
    uint64_t total = 0;
    for (uint64_t round = 0; round < 5; round++) {
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(281932678) + round + salt * 977;
            uint64_t v = f6(UINT64_C(900429), (root->r0 ? root->r0->v1 : UINT64_C(5)), (((((uint64_t)round - UINT64_C(892101)) + UINT64_C(505387)) + (((uint64_t)round >> 29) - UINT64_C(756119))) ^ (uint64_t)round), root->v2, root, root, root);
            if (print)
                printf("f6 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(1060572643) + round + salt * 977;
            uint64_t v = f7((root->r1 ? root->r1->v2 : UINT64_C(5)), (uint64_t)round, ((root->v0 ^ root->v1) >> 53), (root->r0 ? root->r0->v2 : UINT64_C(5)), (root->v1 * (uint64_t)round));
            if (print)
                printf("f7 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
        {
            obj_ref root = diff_new_obj();
            root->v1 = UINT64_C(382931573) + round + salt * 977;
            uint64_t v = f8(UINT64_C(643566), (root->r0 ? root->r0->v0 : UINT64_C(5)), ((uint64_t)round >> 62), UINT64_C(732694), (UINT64_C(695104) ^ root->v2), (root->r0 ? root->r0->v1 : UINT64_C(5)), (uint64_t)round);
            if (print)
                printf("f8 = %016llx\n", (unsigned long long)v);
            total = total * 1000003 + v;
        }
    }
    return total;
}

int main(void)
{
    diff_start();
    uint64_t total = rounds(0, 1);
    uint64_t deep = diff_recurse(1685, diff_new_obj(), UINT64_C(274212652), 1, 2, 3);
    printf("recurse(1685) = %016llx\n", (unsigned long long)deep);
    diff_stop();
    printf("checksum = %016llx\n", (unsigned long long)(total ^ deep));
    return 0;
}
