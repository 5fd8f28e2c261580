#pragma once
// CUDA C -> PTX with NVRTC (seed "CUDA, Compilation").

#include <span>
#include <string>

namespace tack::runtime::cuda {

/// Exactly the seed's options (the disk cache's target names them): keep denormals, IEEE
/// division and square root, contraction the contract permits (the generator spells a product
/// outside a sum __fmul_rn, since NVRTC fuses across statements), and more vectorization.
/// Never --use_fast_math; no architecture: PTX for NVRTC's default virtual architecture, which
/// the driver JIT-compiles in cuModuleLoadData.
std::span<const char* const> nvrtc_options();

/// "13.0" of the loaded NVRTC, or "" when it is absent.
std::string nvrtc_version();

/// PTX for `source`. The first compile in a process warns on stderr when NVRTC is older than 13
/// (12.0 miscompiled the lattice Boltzmann example on an H100, density off by up to 1.6e-2;
/// not reduced, so there is no workaround to apply). NVRTC 12 left the compiling thread in the
/// C locale: the thread's locale is restored. RuntimeError with the log and the source on
/// failure; the program is destroyed on both paths.
std::string compile_ptx(const std::string& source, const std::string& kernel);

/// The warning text for an NVRTC major version, or "" from 13 on (tested).
std::string nvrtc_version_warning(int major, int minor);

}  // namespace tack::runtime::cuda
