#include "runtime/level_zero/options.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tack::runtime::level_zero {

namespace {

constexpr std::string_view kKeys[] = {"driver", "device", "context"};

void** field(ExternalContext& c, std::string_view key) {
    if (key == "driver") return &c.driver;
    if (key == "device") return &c.device;
    if (key == "context") return &c.context;
    return nullptr;
}

[[noreturn]] void fail(const std::string& detail) {
    throw ValueError(
        "external_context requires a mapping of non-null Level Zero handles {'driver', "
        "'device', 'context'}; " +
        detail);
}

// "driver=0x1,device=0x2,context=0x3"; values in any base strtoull accepts.
ExternalContext parse_text(std::string_view text) {
    ExternalContext c;
    while (!text.empty()) {
        size_t comma = text.find(',');
        std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        size_t eq = item.find('=');
        std::string key(item.substr(0, eq));
        void** slot = field(c, key);
        if (eq == std::string_view::npos || !slot) fail("got an unknown entry '" + key + "'");
        std::string value(item.substr(eq + 1));
        char* end = nullptr;
        unsigned long long v = std::strtoull(value.c_str(), &end, 0);
        if (value.empty() || *end != '\0') fail("'" + key + "' is not an address: '" + value + "'");
        *slot = reinterpret_cast<void*>(static_cast<uintptr_t>(v));
    }
    return c;
}

}  // namespace

std::optional<ExternalContext> parse_external_context(const DeviceOptions& options) {
    auto it = options.find("external_context");
    if (it == options.end()) return std::nullopt;
    ExternalContext c;
    const auto& value = it->second.value();
    if (const auto* p = std::get_if<void*>(&value)) {
        if (!*p) fail("got a null pointer");
        c = *static_cast<const ExternalContext*>(*p);
    } else if (const auto* s = std::get_if<std::string>(&value)) {
        c = parse_text(*s);
    } else {
        fail("got a value of another type");
    }
    std::string missing;
    for (std::string_view key : kKeys) {
        if (*field(c, key)) continue;
        missing += std::string(missing.empty() ? "" : ", ") + std::string(key);
    }
    if (!missing.empty()) fail("missing or null: " + missing);
    return c;
}

}  // namespace tack::runtime::level_zero
