# Each layer globs its own folder, so adding a file never touches a shared list.
function(tack_glob out)
  set(files)
  foreach(dir ${ARGN})
    file(GLOB found CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${dir}/*.cpp")
    list(APPEND files ${found})
  endforeach()
  set(${out} ${files} PARENT_SCOPE)
endfunction()

# The LLVM-free front half, one library per layer (a layer links only what is below it):
#   tack_support (support + diag) <- tack_frontend, tack_ir <- tack_passes <- tack_sema
#   <- tack_driver (the compile pipeline, the target table, the device-free checks)
function(tack_layer name)
  cmake_parse_arguments(L "" "" "DIRS;DEPS" ${ARGN})
  tack_glob(srcs ${L_DIRS})
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>)
  target_compile_definitions(${name} PUBLIC TACK_VERSION="${TACK_VERSION_STRING}")
  if(L_DEPS)
    target_link_libraries(${name} PUBLIC ${L_DEPS})
  endif()
endfunction()

tack_layer(tack_support DIRS support diag)
tack_layer(tack_frontend DIRS frontend DEPS tack_support)
tack_layer(tack_ir DIRS ir DEPS tack_support)
tack_layer(tack_passes DIRS passes DEPS tack_ir)
tack_layer(tack_sema DIRS sema builtins DEPS tack_frontend tack_passes)
# tack.random is written in the kernel language (python/tack/random.py); the C++ side resolves
# `tack.random.X` from the same text, compiled in, so tackc and the C++ API see what Python sees.
set(tack_random_py "${PROJECT_SOURCE_DIR}/python/tack/random.py")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${tack_random_py}")
file(READ "${tack_random_py}" tack_random_text)
file(WRITE "${PROJECT_BINARY_DIR}/generated/random_source.inc.tmp"
  "// Generated from python/tack/random.py by cmake/TackTargets.cmake.\n"
  "R\"tack_src(${tack_random_text})tack_src\"\n")
configure_file("${PROJECT_BINARY_DIR}/generated/random_source.inc.tmp"
  "${PROJECT_BINARY_DIR}/generated/sema/random_source.inc" COPYONLY)
target_include_directories(tack_sema PRIVATE "${PROJECT_BINARY_DIR}/generated")
tack_layer(tack_driver DIRS driver DEPS tack_sema)
add_library(tack_front INTERFACE)
target_link_libraries(tack_front INTERFACE tack_driver)

if(TACK_FUZZ)
  add_subdirectory(tests/fuzz)
endif()
if(TACK_FRONT_ONLY)
  return()
endif()

if(TACK_LLVM)
  find_package(LLVM 19.1 REQUIRED CONFIG)
  message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")
  tack_glob(TACK_LLVM_SOURCES codegen/llvm)
  add_library(tack_llvm STATIC ${TACK_LLVM_SOURCES})
  target_include_directories(tack_llvm SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  target_compile_definitions(tack_llvm PRIVATE ${LLVM_DEFINITIONS})
  if(TACK_LLVM_STATIC)
    # Only what the CPU backend uses (codegen/llvm: IR, O3 passes, the host target, ORC/JITLink).
    llvm_map_components_to_libnames(TACK_LLVM_LIBS core passes native orcjit jitlink)
    target_link_libraries(tack_llvm PUBLIC tack_front PRIVATE ${TACK_LLVM_LIBS})
  else()
    target_link_libraries(tack_llvm PUBLIC tack_front PRIVATE LLVM)
  endif()
  set(TACK_CPU_DIR runtime/cpu)
else()
  # No LLVM: runtime/cpu_off stands in for the CPU backend (it explains why it is missing), and
  # an empty tack_llvm keeps every consumer's link line unchanged.
  message(STATUS "TACK_LLVM=OFF: building without the LLVM CPU backend")
  add_library(tack_llvm INTERFACE)
  set(TACK_CPU_DIR runtime/cpu_off)
endif()

tack_glob(TACK_CFAMILY_SOURCES codegen/cfamily)
add_library(tack_cfamily STATIC ${TACK_CFAMILY_SOURCES})
target_link_libraries(tack_cfamily PUBLIC tack_front)

if(TACK_FUZZ)  # the whole compile path (tests/fuzz/CMakeLists.txt has the other targets)
  add_executable(fuzz_compile tests/fuzz/fuzz_compile.cpp)
  target_link_libraries(fuzz_compile PRIVATE tack_llvm tack_cfamily)
  target_compile_options(fuzz_compile PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_compile PRIVATE -fsanitize=fuzzer)
endif()

find_package(Threads REQUIRED)
tack_glob(TACK_RUNTIME_SOURCES runtime runtime/graph runtime/gpu ${TACK_CPU_DIR} runtime/opencl runtime/level_zero
  runtime/cuda runtime/hip runtime/metal runtime/null cache api)
add_library(tack STATIC ${TACK_RUNTIME_SOURCES})
target_link_libraries(tack PUBLIC tack_front PRIVATE tack_llvm tack_cfamily Threads::Threads ${CMAKE_DL_LIBS})

add_subdirectory(tools/tackc)
if(TACK_LLVM AND EXISTS ${PROJECT_SOURCE_DIR}/benchmarks/CMakeLists.txt)
  add_subdirectory(benchmarks)
endif()
# bench_cuda needs no LLVM: scripts/gpu_check.sh builds it in a TACK_LLVM=OFF tree.
add_executable(bench_cuda ${PROJECT_SOURCE_DIR}/benchmarks/bench_cuda.cpp)
target_link_libraries(bench_cuda PRIVATE tack tack_llvm tack_cfamily)
if(TACK_BUILD_TESTS)
  enable_testing()
  add_subdirectory(tests)
endif()

# Install: tackc, the public headers, the libraries and a CMake package
# (find_package(Tack CONFIG REQUIRED); target Tack::tack).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tack DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(lib tack_support tack_frontend tack_ir tack_passes tack_sema tack_driver tack_front tack_llvm tack_cfamily tack)
  target_include_directories(${lib} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
install(TARGETS tack_support tack_frontend tack_ir tack_passes tack_sema tack_driver tack_front tack_llvm tack_cfamily tack
  EXPORT TackTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT TackTargets NAMESPACE Tack:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tack)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TackConfig.cmake.in
  ${PROJECT_BINARY_DIR}/TackConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tack)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TackConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/TackConfig.cmake ${PROJECT_BINARY_DIR}/TackConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tack)

if(TACK_PYTHON)
  include(cmake/TackPython.cmake)
endif()
