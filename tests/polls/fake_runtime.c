/* fake_runtime.c — the runtime entry points the pass calls, faked, so the
 * pass and corralc can be tested end to end without libcorral.
 *
 * It also checks the contract from the runtime's side: every poll slow-path
 * call and every transition anchor must return to an address that has a
 * stackmap record (the statepoint), and transitions must pair up.
 * Allocation is malloc; nothing is ever collected or moved.
 */
#include "fake_runtime.h"

#include <corral.h>
#include <corral/jit.h>
#include <corral/shadow_stack.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

/* The page a poll reads; word 0 non-zero means "stop". */
volatile uint64_t corral_poll_page[512] __attribute__((aligned(4096)));
__thread corral_tlab corral_thread_tlab __attribute__((tls_model("initial-exec")));

fake_runtime_counters fake_counters;

extern const uint8_t __start_llvm_stackmaps[] __attribute__((weak));
extern const uint8_t __stop_llvm_stackmaps[] __attribute__((weak));

static uint32_t read_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t read_u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint16_t read_u16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Walks one StackMap v3 table; returns its end, or NULL if malformed.
 * Counts records and whether return_address is one of them. */
static const uint8_t *scan_table(const uint8_t *p, const uint8_t *end, uintptr_t return_address,
                                 fake_stackmap_summary *summary)
{
    if (end - p < 16 || p[0] != 3)
        return NULL;
    uint32_t functions = read_u32(p + 4), constants = read_u32(p + 8), records = read_u32(p + 12);
    const uint8_t *function_table = p + 16;
    const uint8_t *record = function_table + 24 * (size_t)functions + 8 * (size_t)constants;
    if (record > end)
        return NULL;
    summary->tables++;
    summary->functions += functions;
    for (uint32_t f = 0; f < functions; f++) {
        const uint8_t *entry = function_table + 24 * (size_t)f;
        uint64_t address = read_u64(entry), count = read_u64(entry + 16);
        for (uint64_t r = 0; r < count; r++) {
            if (record + 16 > end)
                return NULL;
            uint32_t offset = read_u32(record + 8);
            uint16_t locations = read_u16(record + 14);
            if (return_address && address + offset == return_address)
                summary->found = 1;
            record += 16 + 12 * (size_t)locations;
            record += (8 - ((uintptr_t)record & 7)) & 7;
            uint16_t live_outs = read_u16(record + 2);
            record += 4 + 4 * (size_t)live_outs;
            record += (8 - ((uintptr_t)record & 7)) & 7;
            summary->records++;
        }
    }
    (void)records;
    return record;
}

fake_stackmap_summary fake_stackmaps_scan(uintptr_t return_address)
{
    fake_stackmap_summary summary = {0};
    if (!__start_llvm_stackmaps || !__stop_llvm_stackmaps) {
        summary.malformed = 1;
        return summary;
    }
    summary.version = __start_llvm_stackmaps[0];
    const uint8_t *p = __start_llvm_stackmaps;
    while (p && p < __stop_llvm_stackmaps) {
        /* Tables from several objects are concatenated, 8-byte aligned. */
        while (p < __stop_llvm_stackmaps && *p == 0)
            p++;
        if (p >= __stop_llvm_stackmaps)
            break;
        p = scan_table(p, __stop_llvm_stackmaps, return_address, &summary);
        if (!p)
            summary.malformed = 1;
    }
    return summary;
}

static void check_return_address(uintptr_t return_address, uint64_t *unrecorded)
{
    fake_stackmap_summary summary = fake_stackmaps_scan(return_address);
    if (!summary.found)
        (*unrecorded)++;
}

void corral_poll_slow(void)
{
    fake_counters.poll_slow_calls++;
    check_return_address((uintptr_t)__builtin_return_address(0), &fake_counters.unrecorded_polls);
    if (fake_counters.disarm_after_polls &&
        fake_counters.poll_slow_calls >= fake_counters.disarm_after_polls)
        corral_poll_page[0] = 0;
}

void corral_transition_to_unmanaged(void *return_address, void *frame_address)
{
    (void)frame_address;
    fake_counters.to_unmanaged++;
    if (fake_counters.depth++ != 0)
        fake_counters.bad_nesting++;
    check_return_address((uintptr_t)return_address, &fake_counters.unrecorded_anchors);
}

void corral_transition_to_managed(void)
{
    fake_counters.to_managed++;
    if (--fake_counters.depth != 0)
        fake_counters.bad_nesting++;
}

void CORRAL_REF *corral_alloc_slow(const corral_type *type, uint64_t length)
{
    fake_counters.alloc_slow_calls++;
    size_t bytes = type->size + (size_t)length * type->element_size;
    corral_array_header *object = calloc(1, bytes < sizeof *object ? sizeof *object : bytes);
    if (!object) {
        fprintf(stderr, "fake runtime: out of memory\n");
        abort();
    }
    object->header.type = type;
    if (type->flags & CORRAL_TYPE_ARRAY)
        object->length = length;
    return (void CORRAL_REF *)object;
}

void corral_collect(void)
{
    fake_counters.collections++;
}

int corral_thread_attach(void)
{
    return 0;
}

void corral_thread_detach(void)
{
}

/* A managed main's last call: nothing to leave here, no thread is attached. */
void corral_main_returns(void)
{
}

/* A managed landing pad's first call: no thread to bring back. */
void corral_landing_pad_entered(void *stack_pointer)
{
    (void)stack_pointer;
}

/* The entries of external managed functions ask this: never, no thread
 * here is UNMANAGED, so they tail-call the function. */
int corral_callback_needs_entry(void)
{
    return 0;
}

void *corral_call_managed(void *(*fn)(void *), void *arg)
{
    return fn(arg);
}

/* What the pass calls for getcontext, swapcontext and setcontext: no stack
 * here has anything for a collection to walk, so the library's own. */
int corral_getcontext(void *context)
{
    return getcontext(context);
}

int corral_swapcontext(void *save, const void *target)
{
    return swapcontext(save, target);
}

int corral_setcontext(const void *target)
{
    return setcontext(target);
}

/* setjmp in managed code: the chain of frames keeping references, put
 * back at a second return (nothing moves here, so that is all). */
__thread corral_shadow_stack_entry *corral_frame_roots_head;

void corral_setjmp_save(void *state)
{
    memcpy(state, &corral_frame_roots_head, sizeof corral_frame_roots_head);
}

void corral_setjmp_returned(void *state, int result, const char *function_name)
{
    (void)function_name;
    if (result)
        memcpy(&corral_frame_roots_head, state, sizeof corral_frame_roots_head);
}

void fake_arm_polls(uint64_t disarm_after)
{
    fake_counters.disarm_after_polls = fake_counters.poll_slow_calls + disarm_after;
    corral_poll_page[0] = 1;
}

void fake_disarm_polls(void)
{
    corral_poll_page[0] = 0;
}

const fake_runtime_counters *fake_get_counters(void)
{
    return &fake_counters;
}
