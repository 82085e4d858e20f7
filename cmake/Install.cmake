# Install rules: the public headers, libcorral.a and libcorral.so, the pass
# library (libcorral_polls.a, for JITs), corral-opt and corralc, the CMake
# package (find_package(corral) -> corral::corral) and pkg-config's corral.pc.
# Included from the top-level CMakeLists.txt, after src/ and polls/.
#
# corralc finds corral-opt, the headers and libcorral.a next to itself
# (<bindir>/corral-opt, <bindir>/../include, <bindir>/../lib), so the default
# layout keeps bin/, include/ and lib/ side by side: libdir is "lib" even on
# Debian, where GNUInstallDirs would pick lib/<multiarch> for /usr.
if(NOT DEFINED CMAKE_INSTALL_LIBDIR)
  set(CMAKE_INSTALL_LIBDIR lib CACHE PATH "Object code libraries (corralc expects ../lib)")
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(NOT CMAKE_INSTALL_LIBDIR STREQUAL "lib" OR NOT CMAKE_INSTALL_BINDIR STREQUAL "bin"
   OR NOT CMAKE_INSTALL_INCLUDEDIR STREQUAL "include")
  message(WARNING "corral: the installed corralc looks for ../include and ../lib next to its "
                  "bin/; with bindir=${CMAKE_INSTALL_BINDIR} libdir=${CMAKE_INSTALL_LIBDIR} "
                  "includedir=${CMAKE_INSTALL_INCLUDEDIR} pass it --runtime=PATH and -I")
endif()

set(CORRAL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/corral)

# ---- the runtime: corral::corral (static, what corralc links) and
# corral::corral_shared (for plain C embedders; see docs/embedding.md)
set_target_properties(corral_static PROPERTIES EXPORT_NAME corral)
set_target_properties(corral_shared PROPERTIES EXPORT_NAME corral_shared)
install(TARGETS corral_static corral_shared EXPORT corralTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(EXPORT corralTargets NAMESPACE corral:: DESTINATION ${CORRAL_INSTALL_CMAKEDIR})

# ---- the LLVM side: tools, and the pass library as corral::polls (defined
# by corralConfig.cmake itself, because it needs LLVM's CMake package).
set(CORRAL_INSTALLS_POLLS OFF)
if(CORRAL_BUILD_POLLS)
  set(CORRAL_INSTALLS_POLLS ON)
  install(TARGETS corral-opt corralc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(TARGETS corral_polls ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# ---- the CMake package
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/corralConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/corralConfig.cmake
  INSTALL_DESTINATION ${CORRAL_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/corralConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/corralConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/corralConfigVersion.cmake
  DESTINATION ${CORRAL_INSTALL_CMAKEDIR})

# ---- pkg-config: relocatable (prefix found from the .pc file's own place),
# so `cmake --install build --prefix DIR` works for any DIR.
file(RELATIVE_PATH CORRAL_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" CORRAL_PC_TO_PREFIX "${CORRAL_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/corral.pc.in ${CMAKE_BINARY_DIR}/cmake/corral.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmake/corral.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---- the user documentation
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
  FILES_MATCHING PATTERN "*.md")
