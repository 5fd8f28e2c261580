#pragma once
// A small loader for the relocatable objects our own code generator writes, so that a variant
// read from the disk cache (or just compiled) runs without JITLink. Measured on the 2-core Xeon
// VM (2026-12): JITLink took 0.23 ms for a new process's first saxpy object, most of a
// warm-cache first call (issue 13's target: 0.5 ms from Python).
//
// It handles exactly what LLVM emits for a kernel on an x86-64 ELF host (.text, .rodata*,
// optional .data/.bss/.eh_frame, RELA relocations of the 64, PC32, PLT32, PC64 and GOTPCREL
// kinds, libc/libm functions looked up in the process) and says "not mine" (nullptr) for
// anything else (another architecture or format, TLS, COMDAT groups, constructors, an unknown
// relocation, a symbol out of reach), in which case the caller uses JITLink. It never trusts
// the bytes: every offset, size and index is checked, so a damaged object is refused, not run.

#include <cstdint>
#include <memory>
#include <span>

#include "codegen/llvm/llvm_codegen.hpp"

namespace tack::codegen::llvm_cpu {

/// The object mapped and relocated in memory of its own (freed with the result), or nullptr
/// when the object is not one this loader handles.
std::unique_ptr<LoadedObject> load_elf_object(std::span<const uint8_t> object);

}  // namespace tack::codegen::llvm_cpu
