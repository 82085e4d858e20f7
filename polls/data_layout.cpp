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
extern "C" {
#include "util.h" /* xstrdup, xstrndup: a copy for the C side to free() */
}

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>

extern "C" char *data_layout_string(LLVMModuleRef module, char **error)
{
    const std::string &layout = llvm::unwrap(module)->getDataLayoutStr();
    *error = nullptr;
    if (layout.find('\0') != std::string::npos) {
        *error = xstrdup("the module's data layout holds a NUL byte");
        return nullptr;
    }
    return xstrndup(layout.data(), layout.size());
}

extern "C" int data_layout_set(LLVMModuleRef module, const char *layout, char **error)
{
    llvm::Expected<llvm::DataLayout> parsed = llvm::DataLayout::parse(layout);
    *error = nullptr;
    if (!parsed) {
        std::string reason = llvm::toString(parsed.takeError());
        *error = xstrndup(reason.data(), reason.size());
        return -1;
    }
    llvm::unwrap(module)->setDataLayout(*parsed);
    return 0;
}
