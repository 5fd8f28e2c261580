#include "support/env.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "diag/diagnostic.hpp"

namespace tack::support {
namespace {

std::string trimmed(std::string_view text) {
    auto is_space = [](unsigned char c) { return std::isspace(c) != 0; };
    while (!text.empty() && is_space(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && is_space(text.back()))
        text.remove_suffix(1);
    return std::string(text);
}

std::string lowered(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// Mirrors Python's int(): optional sign, decimal digits, surrounding spaces. The message is
// Python's own, since the contract says `init` raises the ValueError int() would.
long long parse_python_int(const std::string& raw) {
    std::string text = trimmed(raw);
    const char* begin = text.data();
    if (!text.empty() && text[0] == '+') ++begin;
    long long value = 0;
    auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
    if (begin == end || end != text.data() + text.size()) {
        diag::raise(diag::ErrorKind::ValueError,
                    "invalid literal for int() with base 10: '" + raw + "'");
    }
    if (ec == std::errc::result_out_of_range) return text[0] == '-' ? -1 : 1LL << 40;
    return value;
}

}  // namespace

std::optional<std::string> env_library(const char* name) {
    auto value = env_string(name);
    if (!value || value->empty()) return std::nullopt;
    return value;
}

std::optional<std::string> env_string(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

namespace {

// A boolean flag's value: anything but its off spellings (empty included) is on.
bool flag_is_on(const std::string& value) {
    static constexpr std::string_view kOff[] = {"", "0", "false", "no", "off"};
    std::string text = lowered(trimmed(value));
    return std::find(std::begin(kOff), std::end(kOff), text) == std::end(kOff);
}

}  // namespace

bool env_flag(const char* name) {
    auto value = env_string(name);
    return value && flag_is_on(*value);
}

std::optional<long long> env_integer(const char* name) {
    auto value = env_string(name);
    if (!value || value->empty()) return std::nullopt;
    try {
        return parse_python_int(*value);
    } catch (const diag::CompileError& e) {  // say which variable, then what int() says
        diag::raise(diag::ErrorKind::ValueError,
                    std::string(name) + " must be an integer: " + e.first().message);
    }
}

std::optional<int> env_cpu_threads() {
    auto n = env_integer("TACK_CPU_THREADS");
    if (!n) return std::nullopt;
    return static_cast<int>(std::clamp<long long>(*n, 1, 1 << 16));
}

CpuPolicy env_cpu_policy() {
    auto value = env_string("TACK_CPU_POLICY");
    if (!value || value->empty() || *value == "v2") return CpuPolicy::V2;
    if (*value == "v1") return CpuPolicy::V1;
    diag::raise(diag::ErrorKind::ValueError,
                "Unknown TACK_CPU_POLICY '" + *value + "'. Accepted values: v1, v2");
}

std::optional<double> env_cpu_margin() {
    auto value = env_string("TACK_CPU_MARGIN");
    if (!value || value->empty()) return std::nullopt;
    std::string text = trimmed(*value);
    char* end = nullptr;
    double margin = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(margin) ||
        margin <= 0.0) {
        diag::raise(diag::ErrorKind::ValueError,
                    "TACK_CPU_MARGIN must be a positive number, got '" + *value + "'");
    }
    return margin;
}

namespace {

// A variable with two spellings (case and surrounding blanks ignored): unset, empty or `off`
// is false, `on` is true; anything else is a ValueError that lists both.
bool env_choice(const char* name, std::string_view off, std::string_view on) {
    auto value = env_string(name);
    if (!value) return false;
    std::string v = lowered(trimmed(*value));
    if (v.empty() || v == off) return false;
    if (v == on) return true;
    diag::raise(diag::ErrorKind::ValueError, "Unknown " + std::string(name) + " '" + *value +
                                                 "'. Accepted values: " + std::string(off) + ", " +
                                                 std::string(on));
}

}  // namespace

bool env_hip_pool_allocator() {
    return env_choice("TACK_HIP_ALLOCATOR", "cache", "pool");
}

std::optional<bool> env_cpu_lanes() {
    static constexpr std::string_view kOff[] = {"0", "false", "no", "off"};
    static constexpr std::string_view kOn[] = {"1", "true", "yes", "on"};
    auto value = env_string("TACK_CPU_LANES");
    if (!value) return std::nullopt;
    std::string v = lowered(trimmed(*value));
    if (v.empty() || v == "auto") return std::nullopt;
    if (std::find(std::begin(kOff), std::end(kOff), v) != std::end(kOff)) return false;
    if (std::find(std::begin(kOn), std::end(kOn), v) != std::end(kOn)) return true;
    diag::raise(diag::ErrorKind::ValueError, "Unknown TACK_CPU_LANES '" + *value +
                                                 "'. Accepted values: auto, 0, 1 (or off, on)");
}

bool env_madvise_hugepage() {
    auto value = env_string("TACK_MADVISE_HUGEPAGE");
    return !value || trimmed(*value).empty() || flag_is_on(*value);
}

bool env_cpu_loader_orc() {
    return env_choice("TACK_CPU_LOADER", "auto", "orc");
}

bool env_debug() {
    return env_flag("TACK_DEBUG");
}

bool env_print_after_all() {
    return env_flag("TACK_PRINT_AFTER_ALL");
}

bool env_time_compile() {
    return env_flag("TACK_TIME_COMPILE");
}

bool env_profile() {
    return env_flag("TACK_PROFILE");
}

std::optional<std::string> env_cache_dir() {
    if (auto dir = env_string("TACK_CACHE_DIR")) {
        std::string text = trimmed(*dir);
        if (text.empty() || lowered(text) == "off") return std::nullopt;
        return text;
    }
    if (auto xdg = env_string("XDG_CACHE_HOME"); xdg && !xdg->empty()) return *xdg + "/tack";
    if (auto home = env_string("HOME"); home && !home->empty()) return *home + "/.cache/tack";
    return std::nullopt;
}

}  // namespace tack::support
