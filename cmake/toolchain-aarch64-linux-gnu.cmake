# Cross build for AArch64 Linux on an x86-64 Debian 12 host (scripts/test
# --target aarch64 uses it; scripts/install-deps installs what it needs):
# clang-19 --target=aarch64-linux-gnu with the Debian cross C library
# (libc6-dev-arm64-cross) and GNU binutils for AArch64, liburcu from the arm64
# multiarch packages, and tests run under qemu-aarch64-static. The LLVM pass
# and its tools are host programs: the cross build takes them from a native
# build (CORRAL_HOST_TOOLS_DIR, its bin/ folder) instead of building them.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CORRAL_CROSS_TRIPLE aarch64-linux-gnu)
set(CORRAL_CROSS_DEBIAN_ARCH arm64)

set(CMAKE_C_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET ${CORRAL_CROSS_TRIPLE})
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_CXX_COMPILER_TARGET ${CORRAL_CROSS_TRIPLE})
set(CMAKE_ASM_COMPILER clang-19)
set(CMAKE_ASM_COMPILER_TARGET ${CORRAL_CROSS_TRIPLE})
# libcorral.a's post-build step links its objects into one (ld -r) and
# localizes hidden symbols: the target's binutils do both.
set(CMAKE_LINKER ${CORRAL_CROSS_TRIPLE}-ld)
set(CMAKE_OBJCOPY ${CORRAL_CROSS_TRIPLE}-objcopy)
set(CMAKE_AR ${CORRAL_CROSS_TRIPLE}-ar)
set(CMAKE_RANLIB ${CORRAL_CROSS_TRIPLE}-ranlib)

# Headers and libraries: the cross C library, then the arm64 multiarch tree.
set(CMAKE_FIND_ROOT_PATH /usr/${CORRAL_CROSS_TRIPLE} /usr/lib/${CORRAL_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${CORRAL_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# ctest and add_test run target programs through the emulator. The loader,
# libc and liburcu all come from the arm64 multiarch packages (libc6:arm64):
# not "-L /usr/aarch64-linux-gnu", whose ld.so would load the multiarch
# libc.so.6 of another build (liburcu's dependency), and then the first
# pthread_create loops forever in the stack cache.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)

set(CORRAL_BUILD_POLLS OFF CACHE BOOL "The pass and tools are host programs: see CORRAL_HOST_TOOLS_DIR")
# The pass as a library is built for the target all the same: corral-demo's
# JIT links it, with the build machine's LLVM headers and the target's
# libLLVM (libllvm19:arm64); its one C++ file uses the cross libstdc++
# (libstdc++-12-dev-arm64-cross), which clang finds beside the cross GCC.
set(CORRAL_BUILD_PASS_LIBRARY ON CACHE BOOL "corral-demo's JIT links the pass library")
