# The Python extension `tack._tack` (nanobind), built from the same tree as the C++ core.
#
# Two ways in: a development build (-DTACK_PYTHON=ON) copies the extension next to the pure-Python
# package in python/tack/ so that PYTHONPATH=python works; scikit-build-core (`pip install .`)
# installs it into the wheel's `tack` package (component tack_python, nothing else).
include_guard(GLOBAL)

find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
if(NOT nanobind_DIR)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
    OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE nanobind_ROOT
    RESULT_VARIABLE nanobind_found)
  if(NOT nanobind_found EQUAL 0)
    message(FATAL_ERROR "TACK_PYTHON needs nanobind in ${Python_EXECUTABLE} (pip install nanobind)")
  endif()
endif()
find_package(nanobind CONFIG REQUIRED)

file(GLOB TACK_PYTHON_SOURCES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/python/bindings/*.cpp")
# NOMINSIZE: the binding call path is measured in microseconds; keep the project's -O2.
# GNU ld and lld spell "drop unused needed libraries" and "keep static archives' symbols local"
# as below; Apple's ld64 has -dead_strip_dylibs for the first and needs nothing for the second
# (two-level namespaces: a module's references bind to the library they were linked against).
if(APPLE)
  set(TACK_LINK_AS_NEEDED -Wl,-dead_strip_dylibs)
  set(TACK_LINK_ARCHIVES_PRIVATE "")
else()
  set(TACK_LINK_AS_NEEDED -Wl,--as-needed)
  set(TACK_LINK_ARCHIVES_PRIVATE -Wl,--exclude-libs,ALL)
endif()
nanobind_add_module(_tack NOMINSIZE ${TACK_PYTHON_SOURCES})
target_include_directories(_tack PRIVATE "${PROJECT_SOURCE_DIR}/python/bindings")
# tackc's commands, for `python -m tack` and the wheel's `tackc` script (bindings/cli.cpp).
target_link_libraries(_tack PRIVATE tackc_commands)

# With the shared libLLVM the CPU code generator lives in a module of its own, _tack_llvm.so,
# opened when a CPU backend starts (src/codegen/llvm/module_api.hpp): mapping libLLVM and its
# libraries was half of `import tack`. The loader's objects come ahead of the static libraries
# on the link line, so the generator in libtack_llvm.a is never pulled into the extension, and
# --as-needed then drops libLLVM from its needed libraries. A static LLVM goes into the module
# (the wheel asks for that, pyproject.toml) or, by default, into the extension itself.
if(TACK_LLVM AND NOT TACK_LLVM_STATIC)
  set(TACK_LLVM_LAZY_DEFAULT ON)
else()
  set(TACK_LLVM_LAZY_DEFAULT OFF)
endif()
option(TACK_LLVM_LAZY "Python extension: load the LLVM CPU code generator on first use"
  ${TACK_LLVM_LAZY_DEFAULT})
if(TACK_LLVM_LAZY)
  add_library(tack_llvm_loader OBJECT ${PROJECT_SOURCE_DIR}/src/codegen/llvm_loader/loader.cpp)
  target_link_libraries(tack_llvm_loader PUBLIC tack_front)
  add_library(_tack_llvm MODULE ${PROJECT_SOURCE_DIR}/src/codegen/llvm/module/module.cpp)
  set_target_properties(_tack_llvm PROPERTIES PREFIX "" SUFFIX ".so")
  target_link_options(_tack_llvm PRIVATE ${TACK_LINK_ARCHIVES_PRIVATE})
  # The module carries the LLVM components it uses (static archives): opening libLLVM.so and
  # binding its ~100k exported symbols took 9 of the 12 ms of a CPU backend's start (2026-12,
  # 2-core VM: backend start 12 -> 3 ms, the first compile unchanged). It takes the generator's
  # objects rather than libtack_llvm.a, whose link interface would bring libLLVM.so back next to
  # the archives (two copies of LLVM's globals in one module). tackc, the tests and C++ users
  # keep the shared libLLVM.
  if(NOT TACK_LLVM_STATIC AND TARGET LLVMCore)
    option(TACK_LLVM_MODULE_STATIC "Link LLVM statically into _tack_llvm.so" ON)
  else()
    set(TACK_LLVM_MODULE_STATIC OFF)
  endif()
  if(TACK_LLVM_MODULE_STATIC)
    llvm_map_components_to_libnames(TACK_LLVM_MODULE_LIBS core passes native orcjit jitlink)
    target_sources(_tack_llvm PRIVATE $<TARGET_OBJECTS:tack_llvm>)
    target_link_libraries(_tack_llvm PRIVATE tack_front ${TACK_LLVM_MODULE_LIBS})
    target_link_options(_tack_llvm PRIVATE ${TACK_LINK_AS_NEEDED})
  else()
    target_link_libraries(_tack_llvm PRIVATE tack_llvm)
    # A static LLVM names libraries (libz3, ...) that nothing here calls: not recorded as needed.
    if(TACK_LLVM_STATIC)
      target_link_options(_tack_llvm PRIVATE ${TACK_LINK_AS_NEEDED})
    endif()
  endif()
  target_link_libraries(_tack PRIVATE tack_llvm_loader tack ${CMAKE_DL_LIBS})
  target_link_options(_tack PRIVATE ${TACK_LINK_AS_NEEDED})
  add_dependencies(_tack _tack_llvm)
else()
  target_link_libraries(_tack PRIVATE tack)
endif()
# The core's static libraries stay private to the extension: nothing outside calls them, so
# their ~2,000 symbols are not exported, the loader binds none of them at import, and calls
# between them are direct instead of through the PLT (measured: a third of the extension's
# relocations, and every core call of a launch went through a PLT stub).
target_link_options(_tack PRIVATE ${TACK_LINK_ARCHIVES_PRIVATE})
if(TACK_LLVM_STATIC)
  # The static LLVM stays private the same way (another LLVM in the process, e.g. PoCL's or
  # llvmlite's, keeps its own), and libraries LLVMSupport lists but nothing here calls (libz3,
  # ...) are not recorded as needed.
  target_link_options(_tack PRIVATE ${TACK_LINK_AS_NEEDED})
endif()

if(SKBUILD)
  install(TARGETS _tack LIBRARY DESTINATION tack COMPONENT tack_python)
  if(TACK_LLVM_LAZY)
    install(TARGETS _tack_llvm LIBRARY DESTINATION tack COMPONENT tack_python)
  endif()
else()
  option(TACK_PYTHON_INPLACE "Copy the extension into python/tack for PYTHONPATH=python" ON)
  if(TACK_PYTHON_INPLACE)
    add_custom_command(TARGET _tack POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E copy_if_different $<TARGET_FILE:_tack>
              "${PROJECT_SOURCE_DIR}/python/tack/$<TARGET_FILE_NAME:_tack>"
      COMMENT "Copying the Python extension into python/tack")
    if(TACK_LLVM_LAZY)
      add_custom_command(TARGET _tack_llvm POST_BUILD
        COMMAND ${CMAKE_COMMAND} -E copy_if_different $<TARGET_FILE:_tack_llvm>
                "${PROJECT_SOURCE_DIR}/python/tack/$<TARGET_FILE_NAME:_tack_llvm>"
        COMMENT "Copying the CPU code generator module into python/tack")
    endif()
  endif()
endif()
