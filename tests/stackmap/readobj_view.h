/* readobj_view.h — llvm-readobj --stackmap's account of a StackMap table,
 * parsed: the independent reference the stackmap tests compare with. The
 * sample tables and readobj's text are embedded by tests/stackmap/CMakeLists.txt
 * (sample_data.c). */
#ifndef CORRAL_TESTS_STACKMAP_READOBJ_VIEW_H
#define CORRAL_TESTS_STACKMAP_READOBJ_VIEW_H

#include "stackmap/parse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char sample_spill_stackmap[], sample_spill_readobj[];
extern const size_t sample_spill_stackmap_size, sample_spill_readobj_size;
extern const unsigned char sample_registers_stackmap[], sample_registers_readobj[];
extern const size_t sample_registers_stackmap_size, sample_registers_readobj_size;

enum { MAX_VIEW_RECORDS = 64, MAX_VIEW_SLOTS = 64 };

/* llvm-readobj --stackmap's account of one table: the independent reference. */
typedef struct readobj_view {
    unsigned function_count, record_count;
    uint64_t stack_sizes[MAX_VIEW_RECORDS];  /* per record, from its function */
    uint64_t ids[MAX_VIEW_RECORDS];
    unsigned offsets[MAX_VIEW_RECORDS];
    /* distinct non-constant GC pointer locations of each record */
    stackmap_slot slots[MAX_VIEW_RECORDS][MAX_VIEW_SLOTS];
    unsigned slot_counts[MAX_VIEW_RECORDS];
} readobj_view;

static int view_slot_compare(const void *a, const void *b)
{
    const stackmap_slot *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    if (x->dwarf_reg != y->dwarf_reg)
        return x->dwarf_reg - y->dwarf_reg;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static void add_distinct_slot(stackmap_slot *slots, unsigned *count, stackmap_slot slot)
{
    for (unsigned i = 0; i < *count; i++)
        if (view_slot_compare(&slots[i], &slot) == 0)
            return;
    if (*count < MAX_VIEW_SLOTS)
        slots[(*count)++] = slot;
}

/* Reads one "#N: ..." location line; returns 1 for a slot, 0 for a constant. */
static int parse_view_location(const char *line, stackmap_slot *slot, long *constant)
{
    unsigned reg;
    int offset;
    if (sscanf(line, " #%*u: Indirect [R#%u + %d]", &reg, &offset) == 2) {
        *slot = (stackmap_slot){STACKMAP_SLOT_INDIRECT, (uint16_t)reg, offset};
        return 1;
    }
    if (sscanf(line, " #%*u: Register R#%u", &reg) == 1) {
        *slot = (stackmap_slot){STACKMAP_SLOT_REGISTER, (uint16_t)reg, 0};
        return 1;
    }
    if (sscanf(line, " #%*u: Constant %ld", constant) == 1)
        return 0;
    return -1;
}

static void parse_readobj(const char *text, readobj_view *view)
{
    memset(view, 0, sizeof *view);
    uint64_t function_stack[MAX_VIEW_RECORDS], function_records[MAX_VIEW_RECORDS];
    unsigned function = 0, record = 0, location = 0, deopt = 0;
    int in_record = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        unsigned long long address, stack, count, id;
        unsigned offset;
        if (sscanf(line, " Function address: %llu, stack size: %llu, callsite record count: %llu",
                   &address, &stack, &count) == 3 && function < MAX_VIEW_RECORDS) {
            function_stack[function] = stack;
            function_records[function++] = count;
        } else if (sscanf(line, " Record ID: %llu, instruction offset: %u", &id, &offset) == 2 &&
                   record < MAX_VIEW_RECORDS) {
            view->ids[record] = id;
            view->offsets[record] = offset;
            record++;
            in_record = 1;
            location = 0;
        } else if (in_record && line[strspn(line, " ")] == '#') {
            stackmap_slot slot;
            long constant = 0;
            int kind = parse_view_location(line, &slot, &constant);
            if (location == 2 && kind == 0)
                deopt = (unsigned)constant;
            if (location >= 3 + deopt && kind == 1)
                add_distinct_slot(view->slots[record - 1], &view->slot_counts[record - 1], slot);
            location++;
        }
    }
    view->function_count = function;
    view->record_count = record;
    unsigned r = 0;
    for (unsigned f = 0; f < function; f++)
        for (uint64_t i = 0; i < function_records[f] && r < MAX_VIEW_RECORDS; i++)
            view->stack_sizes[r++] = function_stack[f];
    for (unsigned i = 0; i < record; i++)
        qsort(view->slots[i], view->slot_counts[i], sizeof(stackmap_slot), view_slot_compare);
}

#endif /* CORRAL_TESTS_STACKMAP_READOBJ_VIEW_H */
