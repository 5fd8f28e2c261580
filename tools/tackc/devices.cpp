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

void print_capabilities(const runtime::Backend& b) {
    std::printf("  dtypes: %s\n", or_none(b.supported_dtypes()).c_str());
    std::printf("  f64: %s\n", yes_no(b.supports_f64()));
    std::printf("  atomic dtypes: %s\n", or_none(b.supported_atomic_dtypes()).c_str());
    std::printf("  workgroups: %s\n", yes_no(b.supports_workgroups()));
    std::printf("  device reductions: %s\n", yes_no(b.supports_device_reductions()));
}

}  // namespace

int cmd_devices(const Args& args) {
    if (!args.empty()) throw std::runtime_error("takes no arguments");
    for (const runtime::BackendEntry* entry : runtime::backend_entries()) {
        std::string name(entry->name), display(driver::find_target(entry->name).display_name);
        try {
            auto backend = runtime::open_device(entry->name, {}, false);
            std::printf("%s (%s): available\n", name.c_str(), display.c_str());
            print_capabilities(*backend);
        } catch (const std::exception& e) {
            // Every tack::Error is also a std::exception (tack.hpp); no driver is not a failure.
            std::printf("%s (%s): unavailable: %s\n", name.c_str(), display.c_str(), e.what());
        }
    }
    return 0;
}

}  // namespace tack::tackc
