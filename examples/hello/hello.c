/* hello.c — corral from plain C: four threads build linked lists in the
 * collected heap, holding them in handles, while collections move them.
 *
 *   cc hello.c $(pkg-config --cflags --libs corral) -o hello && ./hello
 *
 * The rules it shows (docs/embedding.md has them all):
 *   - every thread that touches the heap is attached;
 *   - plain C keeps references across anything that may GC in handles;
 *   - a long loop calls corral_poll(), so other threads' GCs can start;
 *   - blocking calls (pthread_join here) run UNMANAGED.
 */
#include <corral.h>
#include <pthread.h>
#include <stdio.h>

typedef struct cell {
    corral_header header; /* every object starts with its type */
    struct cell *next;    /* a reference field */
    long value;
} cell;

static const uint32_t cell_refs[] = {offsetof(cell, next)};
static const corral_type cell_type = CORRAL_STRUCT_TYPE("cell", cell, cell_refs);

enum { THREADS = 4, CELLS = 100000, ROUNDS = 20 };

/* Builds a list of CELLS cells, ROUNDS times, keeping only the last. */
static void *worker(void *arg)
{
    long *sum = arg;
    if (corral_thread_attach() != 0)
        return NULL;
    corral_handle_scope scope = corral_handle_scope_open();
    corral_handle list = corral_handle_new(NULL);
    for (int round = 0; round < ROUNDS; round++) {
        *list = NULL; /* the previous list becomes garbage */
        for (long i = 1; i <= CELLS; i++) {
            cell *c = corral_alloc(&cell_type); /* may GC: *list may move */
            c->value = i;
            c->next = *list; /* so read the handle after allocating */
            *list = c;
            corral_poll();
        }
    }
    *sum = 0;
    for (cell *c = *list; c; c = c->next) /* no allocation: raw pointers are fine */
        *sum += c->value;
    corral_handle_scope_close(scope);
    corral_thread_detach();
    return NULL;
}

static void count_collections(const corral_gc_info *info, void *context)
{
    (void)info;
    __atomic_fetch_add((unsigned long *)context, 1, __ATOMIC_RELAXED);
}

int main(void)
{
    corral_options options = {.gc_threads = 4};
    if (corral_init(&options) != 0 || corral_thread_attach() != 0)
        return 1;
    unsigned long collections = 0;
    corral_set_gc_callback(count_collections, &collections);

    pthread_t threads[THREADS];
    long sums[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, worker, &sums[t]);
    corral_enter_unmanaged(); /* joining blocks: let collections run without us */
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    corral_leave_unmanaged();

    int right = 1;
    for (int t = 0; t < THREADS; t++)
        right &= sums[t] == (long)CELLS * (CELLS + 1) / 2;
    corral_stats stats;
    corral_get_stats(&stats);
    printf("hello: %s: %d threads, %lu collections, %.1f MiB moved\n", right ? "ok" : "WRONG",
           THREADS, collections, (double)stats.bytes_moved / (1 << 20));
    corral_thread_detach();
    corral_shutdown();
    return right ? 0 : 1;
}
