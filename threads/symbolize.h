/* symbolize.h — names for code addresses in fatal errors and diagnostics.
 *
 * "symbol+0xOFF (module)" from the dynamic symbol table (dladdr); where that
 * has no symbol (a static function, an executable linked without -rdynamic,
 * a JIT buffer) it falls back to the stackmap registry:
 * "function 0xADDR+0xOFF (module or stackmap origin)". Slow and not
 * async-signal-safe (dladdr takes the loader lock): for error paths only.
 * Thread use: any thread; needs no RCU registration.
 */
#ifndef CORRAL_SYMBOLIZE_H
#define CORRAL_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

/* Describes the instruction at address. Always NUL-terminates buffer. */
void corral_describe_code_address(uintptr_t address, char *buffer, size_t size);

/* Describes a return address: looks up address - 1 (the call itself) so a
 * call that ends its function is not blamed on the next one, and prints the
 * offset of address. Use this for frames found by a stack walk. */
void corral_describe_return_address(uintptr_t address, char *buffer, size_t size);

#endif /* CORRAL_SYMBOLIZE_H */
