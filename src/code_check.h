/* code_check.h — refuses managed code built without a barrier the
 * configuration needs.
 *
 * The pass gives each call site's stackmap record a statepoint id that says
 * which barriers its module was built with (CORRAL_ABI_STATEPOINT_ID,
 * corral/abi.h). Code without the card barrier would hide old-to-young
 * references from minor collections (CORRAL_GC_GENERATIONAL=1); code without
 * the deletion barrier would let a concurrent minor collection free objects
 * still in use (CORRAL_GC_CONCURRENT=1). Neither fails at once: it corrupts
 * the heap later. So every table of stackmaps is checked when it is
 * registered, and a table with a record that lacks a needed barrier is
 * refused, naming the function and the corralc option that builds it.
 *
 * A module with no call site that can reach a safepoint gets one record
 * from the pass all the same (corral.module_barriers, polls/polls.c), so
 * every module corral-opt builds is checked. Not covered: plain C, which
 * uses corral_store_ref and corral_deletion_barrier by hand
 * (docs/managed-c.md).
 */
#ifndef CORRAL_CODE_CHECK_H
#define CORRAL_CODE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* corral_init, after the configuration is read: checks the tables
 * registered so far and every later one. Returns 0, or -1 with what is
 * wrong in error. */
int code_check_init(bool generational, bool concurrent, char *error, size_t error_size);

#endif /* CORRAL_CODE_CHECK_H */
