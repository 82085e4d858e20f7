/* test_vec.c — base/vec.h: pushes keep every element in order, growth
 * doubles from 16, reserving keeps what is there, unordered removal moves
 * the last element into the gap, VEC_FREE empties, and an impossible size
 * is a fatal error naming the caller's line. */
#include <stdint.h>

#include "run_program.h"
#include "tap.h"
#include "vec.h"

typedef struct range {
    uintptr_t start, end;
} range;

static bool power_of_two(size_t n)
{
    return n && (n & (n - 1)) == 0;
}

static void test_push(void)
{
    VEC(int) numbers = {0};
    ok(!numbers.items && numbers.count == 0 && numbers.capacity == 0, "{0} is an empty array");
    VEC_PUSH(numbers, 7);
    is_int(numbers.capacity, 16, "the first push makes room for 16");
    bool in_order = true, capacity_doubles = true;
    for (int i = 1; i < 1000; i++) {
        VEC_PUSH(numbers, 7 + i);
        capacity_doubles &= power_of_two(numbers.capacity) && numbers.capacity >= numbers.count;
    }
    for (int i = 0; i < 1000; i++)
        in_order &= numbers.items[i] == 7 + i;
    is_int(numbers.count, 1000, "1000 pushes, 1000 elements");
    ok(in_order, "every element kept, in push order");
    ok(capacity_doubles && numbers.capacity == 1024, "capacity doubles: 1024 for 1000 (got %zu)",
       numbers.capacity);
    VEC_FREE(numbers);
    ok(!numbers.items && numbers.count == 0 && numbers.capacity == 0, "VEC_FREE empties it");
    VEC_PUSH(numbers, 1);
    ok(numbers.count == 1 && numbers.items[0] == 1, "and it can be used again");
    VEC_FREE(numbers);
}

static void test_struct_elements(void)
{
    VEC(range) ranges = {0};
    for (uintptr_t i = 0; i < 100; i++)
        VEC_PUSH(ranges, ((range){i * 4096, i * 4096 + 100}));
    bool intact = true;
    for (uintptr_t i = 0; i < 100; i++)
        intact &= ranges.items[i].start == i * 4096 && ranges.items[i].end == i * 4096 + 100;
    ok(ranges.count == 100 && intact, "struct elements are copied whole");
    VEC_FREE(ranges);
}

static void test_reserve(void)
{
    VEC(void *) pointers = {0};
    for (uintptr_t i = 1; i <= 20; i++)
        VEC_PUSH(pointers, (void *)(i * 8));
    VEC_RESERVE(pointers, 5000);
    ok(pointers.capacity >= 5000 && power_of_two(pointers.capacity),
       "VEC_RESERVE(5000): capacity %zu", pointers.capacity);
    bool kept = pointers.count == 20;
    for (uintptr_t i = 1; i <= 20; i++)
        kept &= pointers.items[i - 1] == (void *)(i * 8);
    ok(kept, "reserving keeps the elements and the count");
    size_t capacity = pointers.capacity;
    void **items = pointers.items;
    VEC_RESERVE(pointers, 10);
    ok(pointers.capacity == capacity && pointers.items == items,
       "reserving less than the capacity changes nothing");
    VEC_FREE(pointers);

    /* An array kept as separate fields, as in a struct other code reads. */
    uint64_t *words = NULL;
    size_t word_capacity = 0;
    ARRAY_RESERVE(words, word_capacity, 3);
    ok(words && word_capacity == 16, "ARRAY_RESERVE on separate fields: 16 for 3");
    words[15] = 42;
    ARRAY_RESERVE(words, word_capacity, 100);
    ok(word_capacity == 128 && words[15] == 42, "grows to 128 for 100, keeping the contents");
    free(words);
}

static void test_remove_unordered(void)
{
    VEC(int) numbers = {0};
    for (int i = 0; i < 5; i++)
        VEC_PUSH(numbers, i);
    VEC_REMOVE_UNORDERED(numbers, 1);
    ok(numbers.count == 4 && numbers.items[1] == 4 && numbers.items[0] == 0 &&
           numbers.items[2] == 2 && numbers.items[3] == 3,
       "removing element 1 of 0..4 moves 4 into its place");
    VEC_REMOVE_UNORDERED(numbers, 3);
    ok(numbers.count == 3 && numbers.items[2] == 2, "removing the last element just drops it");
    VEC_FREE(numbers);
}

static void reserve_too_much(void *context)
{
    (void)context;
    uint64_t *words = NULL;
    size_t capacity = 0;
    ARRAY_RESERVE(words, capacity, SIZE_MAX / 4);
    printf("survived: %p\n", (void *)words);
}

static void test_impossible_size(void)
{
    run_result result = run_child(reserve_too_much, NULL, 30);
    bool died = !result.timed_out && WIFSIGNALED(result.status) &&
                WTERMSIG(result.status) == SIGABRT;
    ok(died && output_matches(result.output, "^corral: fatal: an array of [0-9]+ elements of 8 "
                                             "bytes is too large$"),
       "SIZE_MAX / 4 words: a fatal error, not a wrapped size");
    if (!ok(output_matches(result.output, "^  at .*tests/base/test_vec\\.c:[0-9]+$"),
            "the report names the caller's file and line, not vec.c's"))
        show_output(&result);
    free(result.output);
}

int main(void)
{
    plan(17);
    test_push();
    test_struct_elements();
    test_reserve();
    test_remove_unordered();
    test_impossible_size();
    return done_testing();
}
