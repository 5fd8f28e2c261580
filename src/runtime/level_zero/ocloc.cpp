#include "runtime/level_zero/ocloc.hpp"

#include <cstdio>
#include <mutex>

#include "codegen/cfamily/dialect.hpp"

namespace tack::runtime::level_zero {

namespace {

#define TACK_X(name, ret, params) #name,
constexpr std::string_view kRequired[] = {TACK_OCLOC_FUNCTIONS(TACK_X)};
#undef TACK_X

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

const OclocApi* ocloc_api(std::string* why) {
    return gpu::load_api<OclocApi>(why);
}

std::span<const std::string_view> ocloc_required_functions() {
    return kRequired;
}

std::string opencl_build_options() {
    return "-cl-std=CL2.0 " + std::string(codegen::cfamily::level_zero_dialect().compile_options);
}

std::vector<std::string> ocloc_arguments(std::uint32_t device_id, const std::string& options) {
    char id[16];
    std::snprintf(id, sizeof id, "0x%x", device_id);
    return {"ocloc",     "compile",  "-file", std::string(kOclocSourceName), "-device", id,
            "-spv_only", "-options", options};
}

SpirvResult compile_to_spirv(const OclocApi& api, const std::string& source,
                             std::uint32_t device_id, const std::string& options) {
    std::vector<std::string> args = ocloc_arguments(device_id, options);
    std::vector<const char*> argv;
    for (const auto& a : args)
        argv.push_back(a.c_str());
    const auto* data = reinterpret_cast<const uint8_t*>(source.c_str());
    const uint64_t length = source.size() + 1;  // the terminating NUL is part of the source
    const char* name = kOclocSourceName.data();

    // oclocInvoke's thread safety is undocumented, so compilations are serialized; each costs
    // about 190 ms of library startup anyway (the seed, Max 1100, 2026-10-04).
    static std::mutex mutex;
    std::lock_guard guard(mutex);
    uint32_t num_outputs = 0;
    uint8_t** outputs = nullptr;
    uint64_t* lengths = nullptr;
    char** names = nullptr;
    int rc =
        api.oclocInvoke(static_cast<unsigned>(argv.size()), argv.data(), 1, &data, &length, &name,
                        0, nullptr, nullptr, nullptr, &num_outputs, &outputs, &lengths, &names);
    SpirvResult out;
    for (uint32_t i = 0; i < num_outputs; ++i) {
        std::string_view file = names[i] ? names[i] : "";
        if (ends_with(file, ".spv")) out.spirv.assign(outputs[i], outputs[i] + lengths[i]);
        if (ends_with(file, ".log"))
            out.log.append(reinterpret_cast<const char*>(outputs[i]), lengths[i]);
    }
    api.oclocFreeOutput(&num_outputs, &outputs, &lengths, &names);
    while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n'))
        out.log.pop_back();
    if (rc != 0 || out.spirv.empty()) {
        out.spirv.clear();
        out.log = "ocloc failed (code " + std::to_string(rc) + ")" +
                  (out.log.empty() ? std::string() : ":\n" + out.log);
    }
    return out;
}

}  // namespace tack::runtime::level_zero
