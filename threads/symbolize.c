/* symbolize.c — "symbol+0xOFF (module)" for fatal errors: dladdr first, the
 * stackmap registry for managed code the dynamic symbol table does not name. */
#include "symbolize.h"

#include "stackmap.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct code_location {
    const char *module;  /* path of the loaded object, or NULL */
    uintptr_t module_base;
    const char *symbol;  /* dynamic symbol containing the address, or NULL */
    uintptr_t symbol_address;
} code_location;

static code_location locate(uintptr_t address)
{
    code_location where = {0};
    Dl_info info;
    memset(&info, 0, sizeof info);
    if (!dladdr((void *)address, &info))
        return where;
    if (info.dli_fname && info.dli_fname[0])
        where.module = info.dli_fname;
    where.module_base = (uintptr_t)info.dli_fbase;
    if (info.dli_sname && info.dli_saddr) {
        where.symbol = info.dli_sname;
        where.symbol_address = (uintptr_t)info.dli_saddr;
    }
    return where;
}

/* Names shown through its nearest managed function in the registry; false
 * when no registered function starts at or below lookup. */
static int describe_from_registry(uintptr_t lookup, uintptr_t shown, const code_location *where,
                                  char *buffer, size_t size)
{
    uintptr_t last_return_address;
    const char *origin;
    uintptr_t function = stackmap_registry_nearest_function(lookup, &last_return_address, &origin);
    if (!function)
        return 0;
    const char *source = where->module ? where->module : origin ? origin : "?";
    /* Past the last call site the address may belong to an unmanaged neighbour. */
    const char *caveat = shown > last_return_address ? ", past its last call site" : "";
    snprintf(buffer, size, "function 0x%" PRIxPTR "+0x%" PRIxPTR " (%s%s)", function,
             shown - function, source, caveat);
    return 1;
}

static void describe(uintptr_t lookup, uintptr_t shown, char *buffer, size_t size)
{
    if (!buffer || size == 0)
        return;
    code_location where = locate(lookup);
    if (where.symbol) {
        snprintf(buffer, size, "%s+0x%" PRIxPTR " (%s)", where.symbol,
                 shown - where.symbol_address, where.module ? where.module : "?");
        return;
    }
    if (describe_from_registry(lookup, shown, &where, buffer, size))
        return;
    if (where.module)
        snprintf(buffer, size, "0x%" PRIxPTR " (%s+0x%" PRIxPTR ")", shown, where.module,
                 shown - where.module_base);
    else
        snprintf(buffer, size, "0x%" PRIxPTR " (no module)", shown);
}

void corral_describe_code_address(uintptr_t address, char *buffer, size_t size)
{
    describe(address, address, buffer, size);
}

void corral_describe_return_address(uintptr_t address, char *buffer, size_t size)
{
    describe(address ? address - 1 : 0, address, buffer, size);
}
