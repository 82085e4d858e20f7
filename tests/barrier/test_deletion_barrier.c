/* The deletion barrier from plain C (corral/barrier.h) under
 * CORRAL_GC_VERIFY=satb: corral_store_ref logs the reference it overwrites
 * (null stores too), corral_deletion_barrier logs what a memcpy or memset
 * is about to overwrite, the log of a thread that detaches before the next
 * collection is kept, and a chunk's worth of logged references is kept
 * whole. Each overwrite that skips the barrier is caught and named. Each
 * case runs in its own forked child (corral_init runs once per process). */
#include <corral.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "corral_test.h"

#define SATB "CORRAL_GC_VERIFY=satb CORRAL_LOG=verify "

typedef struct node {
    corral_header header;
    corral_ref next;
    long value;
} node;

static const uint32_t node_refs[] = {offsetof(node, next)};
static const corral_type node_type = CORRAL_STRUCT_TYPE("node", node, node_refs);
static const corral_type ref_array_type = CORRAL_REF_ARRAY_TYPE("ref[]");

static corral_ref *elements(corral_ref array)
{
    return (corral_ref *)((char *)array + sizeof(corral_array_header));
}

/* A list of length nodes; the caller holds it before the next allocation. */
static corral_handle new_list(int length)
{
    corral_handle head = corral_handle_new(NULL);
    for (int i = 0; i < length; i++) {
        node *fresh = corral_alloc(&node_type);
        fresh->value = i;
        corral_store_ref(fresh, &fresh->next, *head);
        *head = fresh;
    }
    return head;
}

typedef enum overwrite {
    STORE_NULL,          /* corral_store_ref(list, &list->next, NULL) */
    RAW_STORE,           /* list->next = NULL: the bug */
    MEMSET_WITH_BARRIER, /* corral_deletion_barrier, then memset of an array */
    RAW_MEMSET,          /* memset alone: the bug */
    MEMCPY_WITH_BARRIER, /* corral_deletion_barrier, then memcpy over an array */
    MANY_STORES,         /* 1000 null stores: several log chunks */
} overwrite;

/* Builds a list and an array of lists, collects (the window opens: both
 * are the snapshot), cuts them off, collects again (it closes). */
static void cut_after_collection(overwrite how)
{
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle list = new_list(4);
    corral_handle array = corral_handle_new(corral_alloc_array(&ref_array_type, 1000));
    for (int i = 0; i < 1000; i++) {
        /* Only the array holds the element lists. */
        corral_handle_scope inner = corral_handle_scope_open();
        corral_handle element = new_list(2);
        corral_store_ref(*array, &elements(*array)[i], *element);
        corral_handle_scope_close(inner);
    }
    corral_handle other = corral_handle_new(corral_alloc_array(&ref_array_type, 1000));
    corral_collect();
    printf("after a collection the barrier is %s\n", corral_barrier.satb_active ? "on" : "off");
    node *head = *list;
    corral_ref *slots = elements(*array);
    switch (how) {
    case STORE_NULL:
        corral_store_ref(head, &head->next, NULL);
        break;
    case RAW_STORE:
        head->next = NULL;
        break;
    case MEMSET_WITH_BARRIER:
        corral_deletion_barrier(*array, slots, 1000 * sizeof(corral_ref));
        memset(slots, 0, 1000 * sizeof(corral_ref));
        break;
    case RAW_MEMSET:
        memset(slots, 0, 1000 * sizeof(corral_ref));
        break;
    case MEMCPY_WITH_BARRIER:
        corral_deletion_barrier(*array, slots, 1000 * sizeof(corral_ref));
        memcpy(slots, elements(*other), 1000 * sizeof(corral_ref));
        corral_write_barrier_range(*array, slots, 1000 * sizeof(corral_ref));
        break;
    case MANY_STORES:
        for (int i = 0; i < 1000; i++)
            corral_store_ref(*array, &slots[i], NULL);
        break;
    }
    corral_collect();
    printf("not caught\n");
    corral_handle_scope_close(scope);
}

typedef struct overwrite_run {
    const char *settings;
    overwrite how;
} overwrite_run;

static void overwrite_case(void *context)
{
    const overwrite_run *run = context;
    test_start(run->settings, true);
    cut_after_collection(run->how);
    corral_thread_detach();
}

/* A thread overwrites, then detaches before the next collection. */
static void *overwrite_and_detach(void *context)
{
    if (corral_thread_attach() != 0)
        return NULL;
    corral_ref *holder = context;
    node *head = *holder;
    corral_store_ref(head, &head->next, NULL);
    corral_thread_detach();
    return head;
}

static void detached_thread_case(void *context)
{
    (void)context;
    test_start(SATB, true);
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle list = new_list(3);
    corral_collect();
    pthread_t thread;
    void *result = NULL;
    /* The thread runs while this one is parked in the join. */
    corral_enter_unmanaged();
    pthread_create(&thread, NULL, overwrite_and_detach, list);
    pthread_join(thread, &result);
    corral_leave_unmanaged();
    printf("the other thread %s\n", result ? "stored" : "could not attach");
    corral_collect();
    printf("not caught\n");
    corral_handle_scope_close(scope);
    corral_thread_detach();
}

typedef struct expectation {
    const char *name;
    overwrite how;
    bool caught;
} expectation;

static void check_case(const char *name, void (*body)(void *), void *context, bool caught)
{
    run_result result = run_child(body, context, 60);
    bool passed;
    if (caught)
        passed = WIFSIGNALED(result.status) &&
                 strstr(result.output, "after a collection the barrier is on") &&
                 output_matches(result.output,
                                "corral: verify satb gc 2: object 0x[0-9a-f]+ of type (node|ref\\[\\]) "
                                "was reachable when gc 1 ended, and neither that moment's roots "
                                "nor the references overwritten since reach it") &&
                 !strstr(result.output, "not caught");
    else
        passed = exited_ok(&result) && strstr(result.output, "not caught") &&
                 !strstr(result.output, "could not attach") &&
                 output_matches(result.output, "verify satb gc 2: [0-9]+ snapshot objects, "
                                               "[1-9][0-9]* references logged, 0 not reached");
    ok(passed, "%s", name);
    if (!passed)
        show_output(&result);
    free(result.output);
}

int main(void)
{
    plan(8);
    static const expectation cases[] = {
        {"corral_store_ref of null logs the reference it overwrites", STORE_NULL, false},
        {"a raw store over a reference is named", RAW_STORE, true},
        {"corral_deletion_barrier before a memset logs the array's references",
         MEMSET_WITH_BARRIER, false},
        {"a memset without it is named", RAW_MEMSET, true},
        {"corral_deletion_barrier before a memcpy", MEMCPY_WITH_BARRIER, false},
        {"1000 logged references (several chunks) are all kept", MANY_STORES, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(cases[i].name, overwrite_case, &(overwrite_run){SATB, cases[i].how},
                   cases[i].caught);
    check_case("a thread's log survives its detach before the next collection",
               detached_thread_case, NULL, false);

    /* Without the check nothing turns the barrier on, and nothing is checked. */
    run_result off = run_child(overwrite_case, &(overwrite_run){"CORRAL_LOG=verify", RAW_STORE},
                               60);
    ok(exited_ok(&off) && strstr(off.output, "after a collection the barrier is off") &&
           strstr(off.output, "not caught") && !strstr(off.output, "verify satb"),
       "without CORRAL_GC_VERIFY=satb the barrier stays off");
    free(off.output);
    return done_testing();
}
