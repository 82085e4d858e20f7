/* code_check.c — refuses managed code built without a barrier the
 * configuration needs (code_check.h). */
#include "code_check.h"

#include <stdint.h>
#include <stdio.h>

#include "corral/abi.h"
#include "stackmap/registry.h"
#include "symbolize.h"

/* The barriers the configuration needs (CORRAL_ABI_STATEPOINT_*_BARRIER).
 * Written by code_check_init before the check is installed; read by the
 * check under the registry's lock, which orders it. */
static uint64_t needed_barriers;

/* The barriers a record's code was built with: none for an id the pass did
 * not give (another compiler's statepoints, or an older corral). */
static uint64_t barriers_of(const stackmap_record *record)
{
    if ((record->id & CORRAL_ABI_STATEPOINT_ID_TAG_MASK) != CORRAL_ABI_STATEPOINT_ID)
        return 0;
    return record->id & ~(uint64_t)CORRAL_ABI_STATEPOINT_ID_TAG_MASK;
}

static int check_table(const stackmap_table *table, const char *origin, char *error,
                       size_t error_size)
{
    for (size_t i = 0; i < table->record_count; i++) {
        const stackmap_record *record = &table->records[i];
        /* gcroot frames are refused when a minor collection meets them. */
        if (record->id == CORRAL_ABI_GCROOT_STATEPOINT_ID)
            continue;
        uint64_t missing = needed_barriers & ~barriers_of(record);
        if (!missing)
            continue;
        char function[256];
        corral_describe_code_address(record->function_address, function, sizeof function);
        bool cards = missing & CORRAL_ABI_STATEPOINT_CARD_BARRIER;
        snprintf(error, error_size,
                 "%s: function %s was compiled without the %s that %s needs (statepoint id "
                 "%#llx): build it with corralc%s",
                 origin, function, cards ? "card-marking write barrier" : "deletion barrier",
                 cards ? "CORRAL_GC_GENERATIONAL=1" : "CORRAL_GC_CONCURRENT=1",
                 (unsigned long long)record->id,
                 cards ? " without --no-write-barrier" : " --satb-barrier");
        return -1;
    }
    return 0;
}

int code_check_init(bool generational, bool concurrent, char *error, size_t error_size)
{
    needed_barriers = (generational ? CORRAL_ABI_STATEPOINT_CARD_BARRIER : 0) |
                      (concurrent ? CORRAL_ABI_STATEPOINT_SATB_BARRIER : 0);
    return stackmap_registry_set_check(needed_barriers ? check_table : NULL, error, error_size);
}
