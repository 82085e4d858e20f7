/* diff_shim.h — lets one differential-test program build two ways.
 *
 * Under corralc (__CORRAL_MANAGED__) references are CORRAL_REF pointers to
 * collected objects, and diff_start() starts a thread that collects without
 * pause until diff_stop(), and diff_thread_start() starts an attached
 * mutator. Under plain clang references are ordinary pointers to calloc'ed
 * memory, start/stop do nothing and threads are plain pthreads, so the two
 * builds must print the same thing. Objects and arrays have the same layout
 * in both.
 */
#ifndef DIFF_SHIM_H
#define DIFF_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DIFF_UNUSED __attribute__((unused))

#include <pthread.h>

#if defined(__CORRAL_MANAGED__)
#include <corral.h>
#include <stdatomic.h>
#define DIFF_REF CORRAL_REF
typedef corral_header diff_header;
typedef corral_array_header diff_array_header;
#else
#define DIFF_REF
typedef struct diff_header {
    const void *type;
} diff_header;
typedef struct diff_array_header {
    diff_header header;
    uint64_t length;
} diff_array_header;
#endif

/* The one object type: two reference fields and three words. With
 * DIFF_HEADERLESS_OBJ (gen.py's headerless shape, half of its programs) it
 * has no header in either build, and corral allocates it as a headerless
 * type (docs/headerless.md): its first reference field is at offset 0. */
typedef struct diff_obj DIFF_REF *obj_ref;
struct diff_obj {
#ifndef DIFF_HEADERLESS_OBJ
    diff_header header;
#endif
    obj_ref r0;
    obj_ref r1;
    uint64_t v0, v1, v2;
};
/* Arrays: elements follow the array header. */
typedef void DIFF_REF *arr_ref;
#define DIFF_WORDS(a) ((uint64_t DIFF_REF *)((char DIFF_REF *)(a) + sizeof(diff_array_header)))
#define DIFF_REFS(a) ((obj_ref DIFF_REF *)((char DIFF_REF *)(a) + sizeof(diff_array_header)))
#define DIFF_LENGTH(a) (((diff_array_header DIFF_REF *)(a))->length)

#if defined(__CORRAL_MANAGED__)
static const uint32_t diff_obj_refs[] = {offsetof(struct diff_obj, r0), offsetof(struct diff_obj, r1)};
#ifdef DIFF_HEADERLESS_OBJ
static const corral_type diff_obj_type =
    CORRAL_HEADERLESS_STRUCT_TYPE("diff_obj", struct diff_obj, diff_obj_refs);
#else
static const corral_type diff_obj_type = CORRAL_STRUCT_TYPE("diff_obj", struct diff_obj, diff_obj_refs);
#endif
static const corral_type diff_words_type = CORRAL_DATA_ARRAY_TYPE("u64[]", uint64_t);
static const corral_type diff_refs_type = CORRAL_REF_ARRAY_TYPE("obj[]");

static DIFF_UNUSED obj_ref diff_new_obj(void) { return corral_alloc(&diff_obj_type); }
static DIFF_UNUSED arr_ref diff_new_words(uint64_t n) { return corral_alloc_array(&diff_words_type, n); }
static DIFF_UNUSED arr_ref diff_new_refs(uint64_t n) { return corral_alloc_array(&diff_refs_type, n); }

/* Written by diff_stop on the main thread, read by the collector thread. */
static atomic_int diff_stop_flag;
static pthread_t diff_collector_thread;

/* Collects back to back, so every poll and call of the mutator races a GC.
 * With CORRAL_GC_GENERATIONAL=1 three in four are minor, so the pass's
 * write barriers, and the stores it leaves unbarriered, race minor
 * collections too (corral_collect_young is a full collection otherwise). */
static DIFF_UNUSED void *diff_collector(void *arg)
{
    (void)arg;
    for (unsigned long n = 0; !atomic_load_explicit(&diff_stop_flag, memory_order_relaxed); n++) {
        if (n % 4 == 3)
            corral_collect();
        else
            corral_collect_young();
    }
    return NULL;
}

static DIFF_UNUSED void diff_start(void)
{
    if (corral_init(NULL) != 0 || corral_thread_attach() != 0) {
        fprintf(stderr, "diff: corral start-up: %s\n", corral_last_error());
        exit(3);
    }
    if (corral_thread_create(&diff_collector_thread, diff_collector, NULL) != 0) {
        fprintf(stderr, "diff: corral_thread_create: %s\n", corral_last_error());
        exit(3);
    }
}

static DIFF_UNUSED void diff_stop(void)
{
    atomic_store_explicit(&diff_stop_flag, 1, memory_order_relaxed);
    pthread_join(diff_collector_thread, NULL);
}

/* Starts another mutator thread running managed code, with plain
 * pthread_create as programs written for clang do: corral-opt starts it
 * attached, through corral_pthread_create where inlining shows it the
 * routine, and corral_pthread_create_any where the routine stays a
 * parameter (-O0). */
static DIFF_UNUSED void diff_thread_start(pthread_t *thread, void *(*start)(void *), void *arg)
{
    if (pthread_create(thread, NULL, start, arg) != 0) {
        fprintf(stderr, "diff: pthread_create failed\n");
        exit(3);
    }
}
#else
static DIFF_UNUSED void *diff_calloc(size_t size)
{
    void *p = calloc(1, size);
    if (!p) {
        fprintf(stderr, "diff: out of memory\n");
        exit(3);
    }
    return p;
}
static DIFF_UNUSED obj_ref diff_new_obj(void) { return diff_calloc(sizeof(struct diff_obj)); }
static DIFF_UNUSED arr_ref diff_new_array(uint64_t n, size_t element)
{
    diff_array_header *a = diff_calloc(sizeof(diff_array_header) + n * element);
    a->length = n;
    return a;
}
static DIFF_UNUSED arr_ref diff_new_words(uint64_t n) { return diff_new_array(n, sizeof(uint64_t)); }
static DIFF_UNUSED arr_ref diff_new_refs(uint64_t n) { return diff_new_array(n, sizeof(obj_ref)); }
static DIFF_UNUSED void diff_start(void) {}
static DIFF_UNUSED void diff_stop(void) {}
static DIFF_UNUSED void diff_thread_start(pthread_t *thread, void *(*start)(void *), void *arg)
{
    if (pthread_create(thread, NULL, start, arg) != 0) {
        fprintf(stderr, "diff: pthread_create failed\n");
        exit(3);
    }
}
#endif

#endif /* DIFF_SHIM_H */
