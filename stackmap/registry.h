/* registry.h — the process-wide registry of parsed stackmaps: maps a return
 * address to the GC roots of its frame, for the stack walker (threads/).
 *
 * What this module guarantees
 *   - A table is added whole or not at all; records live forever once
 *     registered.
 *   - Lookups are lock-free (liburcu memb read-side) and may run concurrently
 *     with registration.
 *
 * Thread use: stackmap_registry_add*: any thread (serialised inside). Lookups:
 * any thread registered with liburcu memb (urcu_memb_register_thread),
 * including GC workers during a stop.
 */
#ifndef CORRAL_STACKMAP_REGISTRY_H
#define CORRAL_STACKMAP_REGISTRY_H

#include "parse.h"

#include <stddef.h>
#include <stdint.h>

/* Parses and validates every table in [bytes, bytes + length) and adds all
 * their records, or none of them. origin names the source in messages
 * ("executable", "jit module 3"); it is copied. Duplicate return addresses
 * (within the input or with earlier tables) are accepted when the records are
 * identical and rejected when they conflict. A function at address 0 (a table
 * taken from an unlinked object file) is rejected. Returns 0, or -1 with
 * "ORIGIN: offset N: what is wrong (expected ...)" in error. It may wait for
 * an RCU grace period, which a collection in progress delays: never call it
 * from a MANAGED thread (corral_register_stackmaps goes UNMANAGED first). */
int stackmap_registry_add(const uint8_t *bytes, size_t length, const char *origin,
                          char *error, size_t error_size);
/* A check of a parsed table before it is added: 0, or -1 with what is wrong
 * in error (the table is then not added). */
typedef int (*stackmap_table_check_fn)(const stackmap_table *table, const char *origin,
                                       char *error, size_t error_size);
/* Runs check on every table added so far, then makes every later
 * stackmap_registry_add run it too (NULL: no check). Returns 0, or -1 with
 * the first failure's message; the check is installed either way. Any
 * thread, like stackmap_registry_add. */
int stackmap_registry_set_check(stackmap_table_check_fn check, char *error, size_t error_size);
/* fork.c: held across fork() so the child never inherits a half-made index. */
void stackmap_registry_lock_for_fork(void);
void stackmap_registry_unlock_after_fork(void);
/* Registers the section linked into the executable between
 * __start_llvm_stackmaps and __stop_llvm_stackmaps (weak: absent means
 * nothing to register, returns 0). Origin "executable". */
int stackmap_registry_add_linked(char *error, size_t error_size);

/* Lock-free lookup; NULL when return_address has no record. The caller must
 * be registered with liburcu memb; it may hold no lock. */
const stackmap_record *stackmap_lookup(uintptr_t return_address);
/* The same inside a read-side critical section the caller already holds
 * (urcu_memb_read_lock ... urcu_memb_read_unlock), so a stack walk pays for
 * the read lock once instead of once per frame: the library's read lock is
 * an out-of-line call, about half the cost of a lookup. The caller must not
 * call stackmap_registry_add* inside that section (it waits for readers). */
const stackmap_record *stackmap_lookup_in_read_section(uintptr_t return_address);
/* Distinct return addresses registered so far. */
size_t stackmap_registry_record_count(void);

/* For error reports and thread starts, not stack walks (a binary search per
 * registered table; any thread, no RCU needed): the managed function with the
 * greatest address <= address, or 0 when none. Sets *last_return_address
 * to its highest registered return address and *origin to the origin of
 * the table it came from, each unless NULL. */
uintptr_t stackmap_registry_nearest_function(uintptr_t address, uintptr_t *last_return_address,
                                             const char **origin);

#endif /* CORRAL_STACKMAP_REGISTRY_H */
