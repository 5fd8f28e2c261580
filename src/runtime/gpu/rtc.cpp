#include "runtime/gpu/rtc.hpp"

#include "runtime/errors.hpp"

namespace tack::runtime::gpu {

std::vector<std::string> rtc_symbol_names(std::string_view prefix, std::string_view output) {
    std::vector<std::string> names;
#define TACK_GPU_RTC_NAME(member, suffix, ret, params) \
    names.push_back(std::string(prefix) + fill_in(suffix, {{"out", output}}));
    TACK_GPU_RTC_FUNCTIONS(TACK_GPU_RTC_NAME)
#undef TACK_GPU_RTC_NAME
    return names;
}

std::vector<std::uint8_t> rtc_compile(const RtcCalls& api, std::string_view tool,
                                      const std::string& source, const std::string& file,
                                      std::span<const char* const> options,
                                      const std::string& kernel) {
    RtcProgram prog = nullptr;
    std::string who = "Kernel '" + kernel + "': " + std::string(tool);
    if (int r = api.create_program(&prog, source.c_str(), file.c_str(), 0, nullptr, nullptr))
        throw RuntimeError(who + " could not create a program: " + api.error_string(r));
    int rc = api.compile_program(prog, static_cast<int>(options.size()), options.data());
    std::vector<std::uint8_t> out;
    std::string log;
    std::size_t n = 0;
    if (rc == 0 && api.output_size(prog, &n) == 0 && n > 0) {
        out.resize(n);
        api.output(prog, reinterpret_cast<char*>(out.data()));
    } else if (rc != 0 && api.log_size(prog, &n) == 0 && n > 0) {
        log.assign(n, '\0');
        api.log(prog, log.data());
        while (!log.empty() && log.back() == '\0')
            log.pop_back();
    }
    api.destroy_program(&prog);
    if (rc != 0)
        throw RuntimeError(who + " failed: " + api.error_string(rc) + "\n" + log + "\nsource:\n" +
                           source);
    return out;
}

}  // namespace tack::runtime::gpu
