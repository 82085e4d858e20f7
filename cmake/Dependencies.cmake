# Finds corral's dependencies; a missing one stops configure naming the
# Debian package that provides it.

macro(corral_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "corral needs ${what}: install the Debian package '${package}' "
                        "(scripts/install-deps installs everything)")
  endif()
endmacro()

find_package(Threads)
corral_require(Threads_FOUND "POSIX threads" "libc6-dev")

find_package(PkgConfig)
corral_require(PKG_CONFIG_FOUND "pkg-config" "pkg-config")

pkg_check_modules(URCU QUIET IMPORTED_TARGET liburcu>=0.13)
corral_require(URCU_FOUND "liburcu >= 0.13 (memb flavour)" "liburcu-dev")
pkg_check_modules(URCU_CDS QUIET IMPORTED_TARGET liburcu-cds>=0.13)
corral_require(URCU_CDS_FOUND "liburcu-cds >= 0.13" "liburcu-dev")

if(CORRAL_BUILD_POLLS)
  # A bare "19" fails LLVM's version check; 19.1 matches every 19.1.x.
  find_package(LLVM 19.1 CONFIG QUIET
               HINTS /usr/lib/llvm-19/lib/cmake/llvm /usr/lib/llvm-19/cmake)
  corral_require(LLVM_FOUND "LLVM 19.1 with its CMake package" "llvm-19-dev")
  find_program(CORRAL_CLANG NAMES clang-19 clang HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
  find_program(CORRAL_CLANG NAMES clang-19)
  corral_require(CORRAL_CLANG "clang 19" "clang-19")
  find_program(CORRAL_OBJCOPY NAMES llvm-objcopy llvm-objcopy-19 HINTS ${LLVM_TOOLS_BINARY_DIR})
  corral_require(CORRAL_OBJCOPY "llvm-objcopy 19" "llvm-19")
  message(STATUS "corral: LLVM ${LLVM_PACKAGE_VERSION}, clang ${CORRAL_CLANG}")
elseif(CORRAL_BUILD_PASS_LIBRARY)
  # A cross build's pass library, for corral-demo's JIT: the build machine's
  # LLVM 19 headers (the C API and the few C++ headers polls/ uses are the
  # same for every target) and the target's libLLVM from Debian's multiarch
  # package. LLVM's CMake package is not used: it names the build machine's
  # library.
  find_path(CORRAL_LLVM_INCLUDE_DIR llvm-c/Core.h PATHS /usr/lib/llvm-19/include
            NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  corral_require(CORRAL_LLVM_INCLUDE_DIR "LLVM 19's headers" "llvm-19-dev")
  find_library(CORRAL_LLVM_LIBRARY NAMES LLVM-19 PATHS /usr/lib/${CORRAL_CROSS_TRIPLE}
               NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  corral_require(CORRAL_LLVM_LIBRARY "LLVM 19's library for ${CORRAL_CROSS_TRIPLE}"
                 "libllvm19:${CORRAL_CROSS_DEBIAN_ARCH}")
  add_library(LLVM SHARED IMPORTED)
  set_target_properties(LLVM PROPERTIES IMPORTED_LOCATION ${CORRAL_LLVM_LIBRARY})
  set(LLVM_INCLUDE_DIRS ${CORRAL_LLVM_INCLUDE_DIR})
  message(STATUS "corral: the pass library with ${CORRAL_LLVM_LIBRARY}")
endif()

pkg_check_modules(BDWGC QUIET IMPORTED_TARGET bdw-gc)
