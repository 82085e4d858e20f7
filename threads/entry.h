/* entry.h — how runtime functions that may collect record their caller.
 *
 * A runtime function reachable from managed code by a statepoint call (the
 * poll slow path, allocation slow path, corral_collect, ...) is noinline and
 * noipa, so its own frame pointer locates the caller: return address, SP =
 * frame address + 16, RBP = the saved word at the frame address. It records
 * that as the thread's anchor only when the caller is managed code; C callers
 * (interpreters using handles) leave the anchor of the enclosing managed
 * code, if any, in place.
 */
#ifndef CORRAL_ENTRY_H
#define CORRAL_ENTRY_H

#include "thread.h"

/* noipa is GCC's; clang has no interprocedural pass that breaks frame
 * addresses once inlining is off. */
#if defined(__clang__)
#define CORRAL_RUNTIME_ENTRY __attribute__((noinline, disable_tail_calls))
#else
#define CORRAL_RUNTIME_ENTRY __attribute__((noinline, noipa))
#endif

/* Opens an entry in the current function; pair with RUNTIME_LEAVE. */
#define RUNTIME_ENTER(thread)                                                          \
    bool entered_from_managed_ = (thread)->in_managed_code;                            \
    if (entered_from_managed_) {                                                       \
        (thread)->anchor = FRAME_ANCHOR_OF_CALLER();                                   \
        (thread)->in_managed_code = false;                                             \
    }

#define RUNTIME_LEAVE(thread)                                                          \
    do {                                                                               \
        if (entered_from_managed_) {                                                   \
            (thread)->anchor.return_address = 0;                                       \
            (thread)->in_managed_code = true;                                          \
        }                                                                              \
    } while (0)

#endif /* CORRAL_ENTRY_H */
