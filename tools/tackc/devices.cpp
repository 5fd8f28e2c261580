// tackc devices: every backend compiled in, opened once, with its capabilities or the reason
// it cannot run here.
#include <cstdio>
#include <exception>
#include <string>

#include "commands.hpp"
#include "driver/targets.hpp"
#include "runtime/registry.hpp"

namespace tack::tackc {

namespace {

const char* yes_no(bool b) {
    return b ? "yes" : "no";
}

std::string or_none(DTypeSet set) {
    return set.empty() ? "none" : to_string(set);
}

void print_capabilities(const runtime::Backend& b, const char* indent) {
    std::printf("%s  dtypes: %s\n", indent, or_none(b.supported_dtypes()).c_str());
    std::printf("%s  f64: %s\n", indent, yes_no(b.supports_f64()));
    std::printf("%s  atomic dtypes: %s\n", indent, or_none(b.supported_atomic_dtypes()).c_str());
    std::printf("%s  workgroups: %s\n", indent, yes_no(b.supports_workgroups()));
    std::printf("%s  device reductions: %s\n", indent, yes_no(b.supports_device_reductions()));
}

}  // namespace

void print_devices(const char* indent) {
    for (const runtime::BackendEntry* entry : runtime::backend_entries()) {
        std::string name(entry->name), display(driver::find_target(entry->name).display_name);
        try {
            auto backend = runtime::open_device(entry->name, {}, false);
            std::printf("%s%s (%s): available\n", indent, name.c_str(), display.c_str());
            print_capabilities(*backend, indent);
        } catch (const std::exception& e) {
            // Every tack::Error is also a std::exception (tack.hpp); no driver is not a failure.
            std::printf("%s%s (%s): unavailable: %s\n", indent, name.c_str(), display.c_str(),
                        e.what());
        }
    }
}

int cmd_devices(const Args& args) {
    if (!args.empty()) throw std::runtime_error("takes no arguments");
    print_devices("");
    return 0;
}

}  // namespace tack::tackc
