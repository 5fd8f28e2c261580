#include "runtime/level_zero/module.hpp"

#include <cstring>

#include "runtime/level_zero/device.hpp"
#include "tack/tack.hpp"

namespace tack::runtime::level_zero {

namespace {

constexpr char kMagic[8] = {'T', 'A', 'C', 'K', 'L', '0', 'A', '1'};

void put(std::vector<uint8_t>& out, const std::vector<uint8_t>& part) {
    uint64_t n = part.size();
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<uint8_t>(n >> (8 * i)));
    out.insert(out.end(), part.begin(), part.end());
}

bool take(std::span<const uint8_t>& in, std::vector<uint8_t>& part) {
    if (in.size() < 8) return false;
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i)
        n |= static_cast<uint64_t>(in[i]) << (8 * i);
    in = in.subspan(8);
    if (n > in.size()) return false;
    part.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n));
    in = in.subspan(n);
    return true;
}

std::string build_log(const ZeApi& api, ze_module_build_log_handle_t log) {
    if (!log) return {};
    size_t n = 0;
    std::string text;
    if (api.zeModuleBuildLogGetString(log, &n, nullptr) == ZE_RESULT_SUCCESS && n > 0) {
        text.resize(n);
        api.zeModuleBuildLogGetString(log, &n, text.data());
        while (!text.empty() && text.back() == '\0')
            text.pop_back();
    }
    api.zeModuleBuildLogDestroy(log);
    return text;
}

ze_result_t create_kernel(const ZeApi& api, ze_module_handle_t module, const std::string& entry,
                          ze_kernel_handle_t* kernel) {
    ze_kernel_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
    desc.pKernelName = entry.c_str();
    return api.zeKernelCreate(module, &desc, kernel);
}

}  // namespace

std::vector<uint8_t> encode_artifact(const Artifact& a) {
    std::vector<uint8_t> out(kMagic, kMagic + sizeof kMagic);
    put(out, a.native);
    put(out, a.spirv);
    return out;
}

std::optional<Artifact> decode_artifact(std::span<const uint8_t> bytes) {
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        return std::nullopt;
    bytes = bytes.subspan(sizeof kMagic);
    Artifact a;
    if (!take(bytes, a.native) || !take(bytes, a.spirv) || !bytes.empty()) return std::nullopt;
    return a;
}

LoadedModule create_from_spirv(const ZeApi& api, ze_context_handle_t context,
                               ze_device_handle_t device, const std::vector<uint8_t>& spirv,
                               const std::string& build_flags, const std::string& entry,
                               const std::string& source) {
    ze_module_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
    desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
    desc.inputSize = spirv.size();
    desc.pInputModule = spirv.data();
    desc.pBuildFlags = build_flags.c_str();
    LoadedModule out;
    ze_module_build_log_handle_t log = nullptr;
    ze_result_t r = api.zeModuleCreate(context, device, &desc, &out.module, &log);
    std::string text = build_log(api, log);
    if (r != ZE_RESULT_SUCCESS) {
        throw RuntimeError("Level Zero: zeModuleCreate failed: " + ze_result_name(r) +
                           "\nbuild log:\n" + text + "\nsource:\n" + source);
    }
    check(create_kernel(api, out.module, entry, &out.kernel), "zeKernelCreate");
    return out;
}

std::optional<LoadedModule> create_from_native(const ZeApi& api, ze_context_handle_t context,
                                               ze_device_handle_t device,
                                               const std::vector<uint8_t>& native,
                                               const std::string& entry) {
    if (native.empty()) return std::nullopt;
    ze_module_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
    desc.format = ZE_MODULE_FORMAT_NATIVE;
    desc.inputSize = native.size();
    desc.pInputModule = native.data();
    LoadedModule out;
    ze_module_build_log_handle_t log = nullptr;
    ze_result_t r = api.zeModuleCreate(context, device, &desc, &out.module, &log);
    build_log(api, log);
    if (r != ZE_RESULT_SUCCESS) return std::nullopt;
    if (create_kernel(api, out.module, entry, &out.kernel) != ZE_RESULT_SUCCESS) {
        api.zeModuleDestroy(out.module);
        return std::nullopt;
    }
    return out;
}

std::vector<uint8_t> native_binary(const ZeApi& api, ze_module_handle_t module) {
    size_t n = 0;
    if (api.zeModuleGetNativeBinary(module, &n, nullptr) != ZE_RESULT_SUCCESS || n == 0) return {};
    std::vector<uint8_t> bytes(n);
    if (api.zeModuleGetNativeBinary(module, &n, bytes.data()) != ZE_RESULT_SUCCESS) return {};
    bytes.resize(n);
    return bytes;
}

}  // namespace tack::runtime::level_zero
