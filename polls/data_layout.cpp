/* data_layout.cpp — reads and sets a module's data layout without LLVM's
 * fatal errors.
 *
 * C++ because the LLVM-C API has no way to do either: LLVMGetDataLayoutStr
 * returns a C string (a layout holding a NUL byte reads short) and
 * LLVMSetDataLayout calls report_fatal_error on a malformed layout, which
 * would kill a JIT using the pass library (found by fuzz_corral_opt: a
 * layout "e...:\0..." read short as "e...:", and the pass's "-ni:1" made it
 * "Trailing separator"). This is the only C++ in corral; keep it small.
 * Built like LLVM itself (-fno-rtti -fno-exceptions).
 */
#include "data_layout.h"

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>

#include <cstdlib>
#include <cstring>

/* A malloc'd copy of what the message says, for the C side to free(). */
static char *copy_message(const std::string &text)
{
    char *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy)
        std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

extern "C" char *data_layout_string(LLVMModuleRef module, char **error)
{
    const std::string &layout = llvm::unwrap(module)->getDataLayoutStr();
    *error = nullptr;
    if (layout.find('\0') != std::string::npos) {
        *error = copy_message("the module's data layout holds a NUL byte");
        return nullptr;
    }
    return copy_message(layout);
}

extern "C" int data_layout_set(LLVMModuleRef module, const char *layout, char **error)
{
    llvm::Expected<llvm::DataLayout> parsed = llvm::DataLayout::parse(layout);
    *error = nullptr;
    if (!parsed) {
        *error = copy_message(llvm::toString(parsed.takeError()));
        return -1;
    }
    llvm::unwrap(module)->setDataLayout(*parsed);
    return 0;
}
