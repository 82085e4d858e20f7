/* symbolize.c — "symbol+0xOFF (module)" for fatal errors and thread dumps:
 * the module's own ELF symbol table first (it names static and unexported
 * functions, which executables mostly are), then dladdr's dynamic symbols,
 * then the stackmap registry for managed code neither names. */
#include "symbolize.h"

#include "stackmap/registry.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ------------------------------------------------ ELF symbol tables */

typedef struct elf_function {
    uintptr_t start, size; /* run-time addresses */
    const char *name;      /* in the module's copied string table */
} elf_function;

typedef struct module_symbols {
    char path[512];
    elf_function *functions; /* sorted by start */
    size_t count;
    char *strings;
} module_symbols;

enum { MODULE_CACHE = 16 };
/* Symbol tables read so far. Writers and readers: symbolising threads,
 * under symbols_lock (symbolising is rare: fatal reports, thread dumps). */
static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static module_symbols modules[MODULE_CACHE];
static size_t module_count;

static int compare_functions(const void *a, const void *b)
{
    uintptr_t x = ((const elf_function *)a)->start, y = ((const elf_function *)b)->start;
    return x < y ? -1 : x > y;
}

/* Copies the function symbols of an ELF file's .symtab; base is where the
 * module is loaded (the bias for position-independent objects). */
static void read_symbol_table(module_symbols *module, const uint8_t *file, size_t size,
                              uintptr_t base)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)file;
    if (size < sizeof *header || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_shoff >= size ||
        header->e_shoff + (size_t)header->e_shnum * sizeof(Elf64_Shdr) > size)
        return;
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(file + header->e_shoff);
    uintptr_t bias = header->e_type == ET_DYN ? base : 0;
    for (unsigned i = 0; i < header->e_shnum; i++) {
        const Elf64_Shdr *symtab = &sections[i];
        if (symtab->sh_type != SHT_SYMTAB || symtab->sh_link >= header->e_shnum)
            continue;
        const Elf64_Shdr *strtab = &sections[symtab->sh_link];
        if (symtab->sh_offset + symtab->sh_size > size || strtab->sh_offset + strtab->sh_size > size)
            return;
        module->strings = malloc(strtab->sh_size + 1);
        size_t count = symtab->sh_size / sizeof(Elf64_Sym);
        module->functions = malloc((count + 1) * sizeof *module->functions);
        if (!module->strings || !module->functions)
            return;
        memcpy(module->strings, file + strtab->sh_offset, strtab->sh_size);
        module->strings[strtab->sh_size] = '\0';
        const Elf64_Sym *symbols = (const Elf64_Sym *)(file + symtab->sh_offset);
        for (size_t k = 0; k < count; k++) {
            if (ELF64_ST_TYPE(symbols[k].st_info) != STT_FUNC || !symbols[k].st_value ||
                symbols[k].st_name >= strtab->sh_size)
                continue;
            module->functions[module->count++] = (elf_function){
                symbols[k].st_value + bias, symbols[k].st_size, module->strings + symbols[k].st_name};
        }
        qsort(module->functions, module->count, sizeof *module->functions, compare_functions);
        return;
    }
}

static module_symbols *module_for(const char *path, uintptr_t base)
{
    for (size_t i = 0; i < module_count; i++)
        if (strcmp(modules[i].path, path) == 0)
            return &modules[i];
    if (module_count == MODULE_CACHE)
        return NULL;
    module_symbols *module = &modules[module_count++];
    snprintf(module->path, sizeof module->path, "%s", path);
    /* The main program's dli_fname may be a bare name: read it through /proc. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat info;
    if (fd < 0 || fstat(fd, &info) != 0) {
        if (fd >= 0)
            close(fd);
        return module;
    }
    void *file = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED)
        return module;
    read_symbol_table(module, file, (size_t)info.st_size, base);
    munmap(file, (size_t)info.st_size);
    return module;
}

/* The function containing address according to its module's .symtab. */
static bool symtab_lookup(const code_location *where, uintptr_t address, const char **name,
                          uintptr_t *start)
{
    if (!where->module)
        return false;
    pthread_mutex_lock(&symbols_lock);
    module_symbols *module = module_for(where->module, where->module_base);
    bool found = false;
    if (module && module->count) {
        size_t low = 0, high = module->count;
        while (high - low > 1) {
            size_t middle = (low + high) / 2;
            if (module->functions[middle].start <= address)
                low = middle;
            else
                high = middle;
        }
        const elf_function *f = &module->functions[low];
        if (f->start <= address && (f->size == 0 || address < f->start + f->size)) {
            *name = f->name;
            *start = f->start;
            found = true;
        }
    }
    pthread_mutex_unlock(&symbols_lock);
    return found;
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
    const char *name;
    uintptr_t start;
    if (symtab_lookup(&where, lookup, &name, &start)) {
        /* An external managed function whose entry took its name (polls/callbacks.c). */
        if (strncmp(name, "corral.managed.", 15) == 0)
            name += 15;
        snprintf(buffer, size, "%s+0x%" PRIxPTR " (%s)", name, shown - start, where.module);
        return;
    }
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
