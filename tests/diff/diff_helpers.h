/* diff_helpers.h — the fixed part of every program gen.py writes: mixing,
 * garbage, array sums, the VLA frame and the deep recursion. Helpers for
 * optional shapes exist only when the program defines DIFF_WITH_<SHAPE>. */
#ifndef DIFF_HELPERS_H
#define DIFF_HELPERS_H

#include <stdarg.h>

#include "diff_shim.h"

static DIFF_UNUSED uint64_t diff_mix(uint64_t h, uint64_t x)
{
    return (h ^ x) * UINT64_C(0x100000001b3) + (x >> 29);
}

/* Dead objects between live ones, so every collection slides the live ones. */
static DIFF_UNUSED void diff_garbage(int count)
{
    for (int i = 0; i < count; i++) {
        obj_ref dead = diff_new_obj();
        dead->v0 = (uint64_t)i;
        if (i % 8 == 0)
            diff_new_words((uint64_t)i + 1);
    }
}

static DIFF_UNUSED uint64_t diff_sum_words(arr_ref words)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; i < DIFF_LENGTH(words); i++)
        sum = sum * 7 + DIFF_WORDS(words)[i] * (i + 1);
    return sum;
}

/* A managed varargs function with a result: static and called directly. */
static DIFF_UNUSED uint64_t diff_vsum(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    uint64_t sum = 0;
    for (int i = 0; i < count; i++)
        sum = diff_mix(sum, va_arg(ap, uint64_t));
    va_end(ap);
    diff_garbage(2);
    return sum;
}

/* A VLA live across an allocating call, next to a reference. */
static DIFF_UNUSED uint64_t diff_vla(uint64_t x, obj_ref ref)
{
    int n = (int)(x % 16) + 1;
    uint64_t values[n];
#ifdef DIFF_WITH_VLA_OVERALIGNED
    _Alignas(64) uint64_t aligned[4] = {x, x + 1, x + 2, x + 3};
#endif
    for (int i = 0; i < n; i++)
        values[i] = ref->v0 * 3 + (uint64_t)i + x;
    diff_garbage(n);
    uint64_t sum = ref->v1;
    for (int i = 0; i < n; i++)
        sum = diff_mix(sum, values[i]);
#ifdef DIFF_WITH_VLA_OVERALIGNED
    for (int i = 0; i < 4; i++)
        sum = diff_mix(sum, aligned[i]);
#endif
    return sum;
}

/* Walks the chain of nodes that the frames of diff_recurse hold. */
static DIFF_UNUSED uint64_t diff_sum_chain(obj_ref node)
{
    uint64_t sum = 0;
    for (; node; node = node->r0)
        sum = diff_mix(sum, node->v0 ^ node->v1);
    return sum;
}

/* Each frame holds its node, its caller's and a derived pointer across the
 * recursive call, and checks all three after it. */
static DIFF_UNUSED uint64_t diff_recurse(int depth, obj_ref chain, uint64_t seed, uint64_t a,
                                         uint64_t b, uint64_t c)
{
    obj_ref node = diff_new_obj();
    node->r0 = chain;
    node->v0 = (uint64_t)depth;
    node->v1 = seed;
    uint64_t DIFF_REF *field = &node->v2;
    *field = seed * 7 + a;
    if (depth % 64 == 0)
        diff_garbage(depth % 5 + 1);
    uint64_t below = depth ? diff_recurse(depth - 1, node, seed * UINT64_C(6364136223846793005) + 1, b,
                                          c, a + (uint64_t)depth)
                           : diff_sum_chain(node);
    uint64_t intact = node->r0 == chain && node->v0 == (uint64_t)depth && node->v1 == seed &&
                      *field == seed * 7 + a;
    return below * 31 + intact + *field;
}

#ifdef DIFF_WITH_VARARGS_REFS
/* References passed through varargs, read after an allocation. */
static uint64_t diff_vrefs(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    diff_garbage(4);
    uint64_t sum = 0;
    for (int i = 0; i < count; i++) {
        obj_ref ref = va_arg(ap, obj_ref);
        sum = diff_mix(sum, ref->v0 + ref->v1);
    }
    va_end(ap);
    return sum;
}
#endif

#ifdef DIFF_WITH_CALLBACKS_IN_MEMORY
/* fopencookie: stdio calls the write function from the struct of
 * callbacks it was given, with the thread in C; the function allocates.
 * keep is live across the whole stream. */
static ssize_t diff_cookie_write(void *cookie, const char *buffer, size_t size)
{
    uint64_t *sum = cookie;
    for (size_t i = 0; i < size; i++) {
        obj_ref digit = diff_new_obj();
        digit->v0 = (uint64_t)buffer[i];
        *sum = *sum * 31 + digit->v0;
    }
    diff_garbage(2);
    return (ssize_t)size;
}
static uint64_t diff_cookie(uint64_t x, obj_ref keep)
{
    uint64_t sum = 0;
    FILE *stream = fopencookie(&sum, "w", (cookie_io_functions_t){.write = diff_cookie_write});
    setvbuf(stream, NULL, _IONBF, 0);
    fprintf(stream, "%llu,%llu", (unsigned long long)(x & 0xfffff),
            (unsigned long long)(keep->v0 & 0xfff));
    fclose(stream);
    return sum ^ keep->v1;
}
#endif

#ifdef DIFF_WITH_COROUTINES
#include <ucontext.h>
/* rounds() (the program's, declared before this file) in a generator on a
 * stack of its own, switched with main's after each round while both hold
 * references: under corralc, swapcontext sets the managed frames of the
 * stack it leaves aside for collections to walk. */
static ucontext_t diff_main_context, diff_fiber_context;
static uint64_t diff_fiber_salt, diff_fiber_total;
static int diff_fiber_done;

static void diff_fiber(void)
{
    obj_ref mine = diff_new_obj();
    for (uint64_t i = 0; i < 3; i++) {
        mine->v0 += i + 1;
        diff_fiber_total = diff_fiber_total * 31 + rounds(diff_fiber_salt + i, 0) + mine->v0;
        swapcontext(&diff_fiber_context, &diff_main_context);
        diff_garbage(20);
    }
    diff_fiber_done = 1;
}

static uint64_t diff_rounds_on_fiber(int salt)
{
    enum { DIFF_FIBER_STACK = 1 << 20 };
    char *stack = malloc(DIFF_FIBER_STACK);
    diff_fiber_salt = (uint64_t)salt;
    getcontext(&diff_fiber_context);
    diff_fiber_context.uc_stack.ss_sp = stack;
    diff_fiber_context.uc_stack.ss_size = DIFF_FIBER_STACK;
    diff_fiber_context.uc_link = &diff_main_context;
    makecontext(&diff_fiber_context, diff_fiber, 0);
    obj_ref held = diff_new_obj();
    held->v1 = (uint64_t)salt;
    uint64_t total = 0;
    while (!diff_fiber_done) {
        swapcontext(&diff_main_context, &diff_fiber_context);
        total = total * 1000003 + rounds((uint64_t)salt * 7, 0) + held->v1;
    }
    free(stack);
    return total ^ diff_fiber_total;
}
#endif

#ifdef DIFF_WITH_FOREIGN_CALLERS
#include <semaphore.h>
#include <signal.h>
#include <time.h>
/* rounds() (the program's, declared before this file) on threads nobody
 * attached and after main: under corralc each of these functions is
 * entered through its entry, which attaches a C thread. */
static uint64_t diff_timer_total, diff_destructor_total;
static sem_t diff_timer_done;
static pthread_key_t diff_key;

/* On a thread glibc starts for the timer. */
static void diff_on_timer(union sigval value)
{
    diff_timer_total = rounds((uint64_t)value.sival_int, 0);
    sem_post(&diff_timer_done);
}
static uint64_t diff_rounds_on_timer_thread(int salt)
{
    sem_init(&diff_timer_done, 0, 0);
    struct sigevent event = {.sigev_notify = SIGEV_THREAD,
                             .sigev_notify_function = diff_on_timer,
                             .sigev_value.sival_int = salt};
    timer_t timer;
    if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) {
        perror("diff: timer_create");
        exit(3);
    }
    struct itimerspec once = {.it_value = {0, 1000000}};
    timer_settime(timer, 0, &once, NULL);
    while (sem_wait(&diff_timer_done) != 0)
        ;
    timer_delete(timer);
    return diff_timer_total;
}

/* After the thread's routine returned (and, under corralc, it detached). */
static void diff_destroy(void *salt)
{
    diff_destructor_total = rounds((uint64_t)(uintptr_t)salt, 0);
}
static void *diff_keyed_thread(void *salt)
{
    pthread_setspecific(diff_key, salt);
    return NULL;
}
static uint64_t diff_rounds_in_key_destructor(int salt)
{
    pthread_key_create(&diff_key, diff_destroy);
    pthread_t thread;
    diff_thread_start(&thread, diff_keyed_thread, (void *)(uintptr_t)salt);
    pthread_join(thread, NULL);
    pthread_key_delete(diff_key);
    return diff_destructor_total;
}

/* After main returned: the C library runs it before exiting, and the
 * destructor after it. */
static void diff_at_exit(void)
{
    printf("atexit = %016llx\n", (unsigned long long)rounds(3, 0));
}
__attribute__((destructor)) static void diff_at_unload(void)
{
    printf("destructor = %016llx\n", (unsigned long long)rounds(4, 0));
}
#endif

#ifdef DIFF_WITH_INDIRECT_VARARGS
/* snprintf through a pointer the compiler cannot see through. */
static int (*volatile diff_snprintf_pointer)(char *, size_t, const char *, ...) = snprintf;
static uint64_t diff_format_indirect(uint64_t x)
{
    char text[32];
    int length = diff_snprintf_pointer(text, sizeof text, "%llu", (unsigned long long)x);
    return (uint64_t)length * 131 + (uint64_t)text[0];
}
#endif

#ifdef DIFF_WITH_ASM
static uint64_t diff_asm_add(uint64_t x, uint64_t y)
{
    __asm__("addq %1, %0" : "+r"(x) : "r"(y));
    return x;
}
#endif

#ifdef DIFF_WITH_MUSTTAIL
/* Mutual tail calls with references in the arguments (the second on the
 * stack past the six argument registers), an object made at each level
 * and garbage at every other: the shape of a tail-calling interpreter. */
static uint64_t diff_tail_b(uint64_t x, uint64_t y, obj_ref a, uint64_t p, uint64_t q,
                            uint64_t s, uint64_t t, obj_ref b);
static __attribute__((noinline)) uint64_t diff_tail_a(uint64_t x, uint64_t y, obj_ref a,
                                                      uint64_t p, uint64_t q, uint64_t s,
                                                      uint64_t t, obj_ref b)
{
    y = y * 7 + a->v0 + b->v1 + p + q + s + t;
    if (x == 0)
        return y;
    obj_ref fresh = diff_new_obj();
    fresh->v0 = x;
    fresh->v1 = y & 0xffff;
    fresh->r0 = b;
    __attribute__((musttail)) return diff_tail_b(x >> 1, y, fresh, p, q, s, t, a);
}
static __attribute__((noinline)) uint64_t diff_tail_b(uint64_t x, uint64_t y, obj_ref a,
                                                      uint64_t p, uint64_t q, uint64_t s,
                                                      uint64_t t, obj_ref b)
{
    diff_garbage(1);
    y ^= a->v0 + (a->r0 ? a->r0->v1 : 0);
    __attribute__((musttail)) return diff_tail_a(x, y + 1, b, q, p, t, s, a);
}
#endif

#ifdef DIFF_WITH_VARARGS_DOUBLES
/* Doubles through a managed varargs call: on x86-64 the callee reads them
 * only when the caller's %al says vector registers were used. The values
 * are small integers, so the sum is exact in both builds. */
static __attribute__((noinline)) uint64_t diff_vdoubles(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    diff_garbage(2);
    double sum = 0;
    for (int i = 0; i < count; i++)
        sum = sum * 3 + va_arg(ap, double);
    va_end(ap);
    return (uint64_t)sum;
}
#endif

#ifdef DIFF_WITH_VARARGS_RESULTS
/* Varargs functions with results that are not static (corralc links an
 * executable as a whole program) and take references through "...". */
__attribute__((noinline)) unsigned __int128 diff_vwide(int skip, ...)
{
    va_list ap;
    va_start(ap, skip);
    obj_ref ref = va_arg(ap, obj_ref);
    uint64_t skipped = 0;
    for (int i = 0; i < skip; i++)
        skipped = diff_mix(skipped, (uint64_t)va_arg(ap, int));
    diff_garbage(3);
    /* Last: after up to four ints it fits the last two argument registers
     * or goes whole onto the stack. Plain clang-19 itself disagrees with
     * itself on an argument after one that went onto the stack. */
    unsigned __int128 wide = va_arg(ap, unsigned __int128);
    va_end(ap);
    return wide ^ ((unsigned __int128)ref->v0 << 64) ^ skipped;
}

typedef struct diff_triple {
    uint64_t a, b, c;
} diff_triple;

/* Returned in memory (sret). */
__attribute__((noinline)) diff_triple diff_vtriple(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    diff_triple t = {0, 0, (uint64_t)count};
    for (int i = 0; i < count; i++) {
        diff_garbage(2);
        obj_ref ref = va_arg(ap, obj_ref);
        t.a = diff_mix(t.a, ref->v1);
        t.b += ref->v2;
    }
    va_end(ap);
    return t;
}
#endif

#ifdef DIFF_WITH_SETJMP
#include <setjmp.h>

/* longjmp back to buf from depth frames further down, each holding an
 * object, after garbage (the collector thread moves everything meanwhile).
 * setjmp then returns 1..3. */
static __attribute__((noinline)) void diff_jump(jmp_buf buf, int depth, uint64_t salt)
{
    obj_ref held = diff_new_obj();
    held->v0 = salt;
    if (depth > 0)
        diff_jump(buf, depth - 1, salt * 3 + 1);
    diff_garbage((int)(salt % 40) + 1);
    longjmp(buf, 1 + (int)(held->v0 % 3));
}
#endif

#ifdef DIFF_WITH_PAIR
/* Two references passed and returned by value, in registers. */
typedef struct diff_pair {
    obj_ref a, b;
} diff_pair;

/* Allocates, then returns the pair swapped: both references are relocated in
 * the callee and again in the caller. The optimiser may inline this one. */
static diff_pair diff_pair_step_inline(diff_pair pair, uint64_t x)
{
    diff_garbage((int)(x % 7) + 1);
    pair.a->v0 += x;
    pair.b->v2 ^= x * 3;
    return (diff_pair){pair.b, pair.a};
}

/* The same through a real call, holding the result across another. */
static __attribute__((noinline)) diff_pair diff_pair_step(diff_pair pair, uint64_t x)
{
    diff_pair result = diff_pair_step_inline(pair, x);
    diff_garbage(1);
    return result;
}
#endif

#ifdef DIFF_WITH_STACK_SLOTS
/* Three references: returned and passed in memory (sret, byval) on x86-64. */
typedef struct diff_ref_triple {
    obj_ref a, b, c;
} diff_ref_triple;

/* Integers around a reference, passed in memory too. */
typedef struct diff_tagged {
    uint64_t tag;
    obj_ref node;
    uint64_t count;
} diff_tagged;

/* Writes a new object through an out-parameter, then collects maybe. */
static __attribute__((noinline)) void diff_make_into(obj_ref *out, uint64_t x)
{
    obj_ref fresh = diff_new_obj();
    fresh->v0 = x;
    *out = fresh;
    diff_garbage((int)(x % 5) + 1);
}

static __attribute__((noinline)) diff_ref_triple diff_ref_triple_make(obj_ref first, uint64_t x)
{
    diff_ref_triple triple = {first, diff_new_obj(), diff_new_obj()};
    triple.b->v1 = x;
    triple.c->v2 = x * 7;
    diff_garbage(1);
    return triple;
}

static __attribute__((noinline)) uint64_t diff_ref_triple_sum(diff_ref_triple triple)
{
    diff_garbage(2);
    return triple.a->v0 + triple.b->v1 * 3 + triple.c->v2 * 5;
}

static __attribute__((noinline)) uint64_t diff_tagged_sum(diff_tagged tagged)
{
    diff_garbage(1);
    return tagged.tag * 3 + (tagged.node ? tagged.node->v0 : UINT64_C(11)) + tagged.count;
}

/* The same helpers called through pointers the optimiser cannot see
 * through: at -O2 it would otherwise promote the out-parameter and the
 * struct arguments into registers, and no stack memory would be left. */
static void (*volatile diff_make_into_indirect)(obj_ref *, uint64_t) = diff_make_into;
static diff_ref_triple (*volatile diff_ref_triple_make_indirect)(obj_ref, uint64_t) =
    diff_ref_triple_make;
static uint64_t (*volatile diff_ref_triple_sum_indirect)(diff_ref_triple) = diff_ref_triple_sum;
static uint64_t (*volatile diff_tagged_sum_indirect)(diff_tagged) = diff_tagged_sum;
#endif

#ifdef DIFF_WITH_SLOT_HELPERS
/* The slot of the element with the largest v0 (the first when all are null):
 * a pointer into the array chosen by a loop, returned through a call, which
 * corral-opt can only honour by inlining the helper. */
static __attribute__((noinline)) obj_ref DIFF_REF *diff_fullest_slot(arr_ref refs)
{
    obj_ref DIFF_REF *best = &DIFF_REFS(refs)[0];
    for (uint64_t i = 1; i < DIFF_LENGTH(refs); i++) {
        obj_ref element = DIFF_REFS(refs)[i];
        if (element && (!*best || element->v0 > (*best)->v0))
            best = &DIFF_REFS(refs)[i];
    }
    return best;
}

/* Adds to a field through its address after garbage: a pointer into an
 * object passed to a call, held across a safepoint in the callee. */
static __attribute__((noinline)) void diff_bump_field(uint64_t DIFF_REF *field, uint64_t by)
{
    diff_garbage((int)(by % 3) + 1);
    *field += by;
}
#endif

#ifdef DIFF_WITH_CLEANUPS
/* What each thread's cleanups saw, in order (main prints its own). */
static _Thread_local uint64_t diff_cleaned;

/* A variable's __attribute__((cleanup)): allocates, then reads the object
 * the variable holds and the one it links to. */
static DIFF_UNUSED void diff_cleanup(obj_ref *slot)
{
    obj_ref made = diff_new_obj();
    made->v0 = 5;
    obj_ref held = *slot;
    diff_cleaned = diff_mix(diff_cleaned, held->v0 + made->v0 + (held->r0 ? held->r0->v0 : 3));
}
#endif

#endif /* DIFF_HELPERS_H */
