/* data_layout.h — a module's data layout, read and set without LLVM's fatal
 * errors (data_layout.cpp: the LLVM-C API has neither). */
#ifndef CORRAL_POLLS_DATA_LAYOUT_H
#define CORRAL_POLLS_DATA_LAYOUT_H

#include <llvm-c/Core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The module's whole data layout string (malloc'd), or NULL with *error
 * (malloc'd) when it cannot be handled as a C string (a NUL byte in it). */
char *data_layout_string(LLVMModuleRef module, char **error);

/* Parses LAYOUT and makes it the module's: 0, or -1 with LLVM's reason in
 * *error (malloc'd) and the module unchanged. */
int data_layout_set(LLVMModuleRef module, const char *layout, char **error);

#ifdef __cplusplus
}
#endif

#endif
