/* arch.h — the one place that picks the architecture's header.
 *
 * Everything corral's C code knows about the machine sits in one small header
 * per architecture, with the same names in each (docs/platforms.md has the
 * list and the porting notes): the stackmap's DWARF register numbers, frame
 * arithmetic for the stack walker, the caller's SP at a runtime entry, the
 * spin-wait hint, and the registers a signal handler reports. The assembly
 * side is threads/segment_<arch>.S, chosen by CMake (CORRAL_ARCH).
 */
#ifndef CORRAL_ARCH_H
#define CORRAL_ARCH_H

#if defined(__x86_64__)
#include "arch_x86_64.h"
#elif defined(__aarch64__)
#include "arch_aarch64.h"
#else
#error "corral runs on x86-64 and AArch64 Linux; docs/platforms.md says how to port it"
#endif

#endif /* CORRAL_ARCH_H */
