#include "driver/targets.hpp"

#include <string>

#include "tack/tack.hpp"

namespace tack::driver {

namespace {

using enum DType;
constexpr DTypeSet kAll = DTypeSet::all();
constexpr DTypeSet kNoF64 = kAll.without(f64);
constexpr DTypeSet kCudaAtomics{i32, u32, i64, u64, f32, f64};

// DLDeviceType codes (dlpack.h).
constexpr std::uint64_t KiB = 1024, GiB = KiB * KiB * KiB;

constexpr int kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLROCM = 10, kDLROCMHost = 11,
              kDLCUDAManaged = 13, kDLOneAPI = 14;
constexpr int kHostMemory[] = {kDLCPU, kDLCUDAHost, kDLROCMHost};
constexpr int kCudaMemory[] = {kDLCUDA, kDLCUDAHost, kDLCUDAManaged};
constexpr int kRocmMemory[] = {kDLROCM, kDLROCMHost};
constexpr int kOneApiMemory[] = {kDLOneAPI};

constexpr std::string_view kOpenClSpaces[] = {"opencl"};
constexpr std::string_view kCudaSpaces[] = {"cuda", "cuda_pinned", "cuda_managed"};
constexpr std::string_view kHipSpaces[] = {"hip", "hip_pinned", "hip_managed"};
constexpr std::string_view kLevelZeroSpaces[] = {"level_zero"};

// Level Zero compiles OpenCL C to SPIR-V: the OpenCL dialect with Intel's workarounds
// (codegen/cfamily/opencl.cpp). PoCL's OpenCL (the CPU device Tack's OpenCL backend targets)
// samples in software, where Level Zero's GPUs have samplers. The OpenCL dialect can express
// 64-bit integer atomics (cl_khr_int64_*, which an OpenCL device may have); Intel's Level Zero
// devices refuse them, so that row leaves them out and `tackc inspect --target level_zero`
// refuses what dispatch would. Each hint starts with "Requires", the word the public tests look
// for. Private bytes bound one iteration's local arrays (sema refuses more, located at the
// array that passes the bound): the CPU takes arrays past 64 KiB from the heap and stops at
// 1 GiB, which each thread zero-fills on every iteration; CUDA's local memory is 512 KiB per
// thread (the programming guide's table of limits); HIP's per-thread stack at most 128 KiB - 16
// (hipDeviceSetLimit's hipLimitStackSize); Intel GPUs' scratch is 2 MiB per hardware thread,
// 64 KiB per work-item at SIMD32; Apple publishes no limit, so Metal takes Level Zero's. The
// OpenCL row is CUDA's, which a device narrows (PoCL: opencl/device.cpp). Columns: name,
// display name, dialect, textures, dtypes, atomic dtypes, device reductions, workgroups,
// private bytes, memory spaces, DLPack imports, DLPack export, install hint, DLPack refusal
// note.
// clang-format off
constexpr Target kTargets[] = {
    {"cpu", "CPU", "", TextureForm::Software, kAll, kAll, false, false, 1 * GiB, {}, kHostMemory, kDLCPU,
     "The CPU backend is part of every build; check the LLVM installation.", ""},
    {"cuda", "CUDA", "cuda", TextureForm::Hardware, kAll, kCudaAtomics, true, true, 512 * KiB,
     kCudaSpaces,
     kCudaMemory, kDLCUDA,
     "Requires an NVIDIA driver (libcuda.so) and NVRTC for the CUDA backend.", ""},
    {"hip", "HIP", "hip", TextureForm::Hardware, kAll, kCudaAtomics, true, true, 128 * KiB - 16,
     kHipSpaces,
     kRocmMemory, kDLROCM,
     "Requires ROCm (libamdhip64.so and hipRTC) and an AMD GPU for the HIP backend.", ""},
    {"level_zero", "Level Zero", "level_zero", TextureForm::Hardware, kAll, {i32, u32, f32}, true,
     true, 64 * KiB, kLevelZeroSpaces, kOneApiMemory, kDLOneAPI,
     "Requires the system libraries libze_loader.so (a Level Zero driver) and libocloc.so for the "
     "Level Zero backend; no pip package installs them.", ""},
    {"metal", "Metal", "metal", TextureForm::Hardware, kNoF64, {i32, u32, f32}, true, true, 64 * KiB,
     {}, {},
     kDLCPU, "Requires macOS and a Metal device (the Metal framework) for the Metal backend.",
     "Metal imports no DLPack memory zero-copy: its kernels read only MTLBuffers it allocated; "
     "use tack.from_dlpack(x, copy=True).", "MTLBuffer"},
    {"opencl", "OpenCL", "opencl", TextureForm::Software, kAll, {i32, u32, i64, u64, f32}, true,
     true, 512 * KiB, kOpenClSpaces, kHostMemory, kDLCPU,
     "Requires an OpenCL 1.2+ ICD (for example PoCL) for the OpenCL backend.", ""},
};
// clang-format on

}  // namespace

std::span<const Target> targets() {
    return kTargets;
}

const Target* target_named(std::string_view name) {
    for (const Target& t : kTargets) {
        if (t.name == name) return &t;
    }
    return nullptr;
}

const Target& find_target(std::string_view name) {
    if (const Target* t = target_named(name)) return *t;
    std::string names;
    for (std::size_t i = 0; i < std::size(kTargets); ++i)
        names += std::string(i == 0                         ? ""
                             : i + 1 == std::size(kTargets) ? " or "
                                                            : ", ") +
                 std::string(kTargets[i].name);
    throw ValueError("unknown inspect target '" + std::string(name) + "'. Use " + names + ".");
}

const Target& row_of(std::string_view name) {
    if (const Target* t = target_named(name)) return *t;
    static constexpr Target kUnlisted{
        "", "", "", TextureForm::Software, {}, {}, false, false, 1 * GiB, {}, {}, kDLCPU, ""};
    return kUnlisted;
}

Capabilities capabilities_of(const Target& target) {
    passes::TextureInHardware textures;
    if (target.textures == TextureForm::Hardware)
        textures = [](const std::array<std::int64_t, 3>&) { return true; };
    return {
        target.name,       target.display_name,  target.dtypes,      target.atomics & target.dtypes,
        target.workgroups, target.private_bytes, std::move(textures)};
}

}  // namespace tack::driver
