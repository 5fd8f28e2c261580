#include "runtime/registry.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/fork_guard.hpp"
#include "support/env.hpp"

namespace tack::runtime {

namespace {

struct Registry {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<Backend>, std::less<>> plain;  // one per name
    std::shared_ptr<Backend> default_device;
    std::atomic<std::uint64_t> default_generation{1};  // bumped when the default changes
    std::vector<std::weak_ptr<Backend>> live;
};

Registry& registry() {
    static Registry* r = new Registry();  // never destroyed: arrays may outlive main()
    return *r;
}

std::string join(const std::vector<std::string>& parts, const char* none) {
    if (parts.empty()) return none;
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : ", ") + p;
    return out;
}

std::vector<std::string> sorted_names() {
    std::vector<std::string> names;
    for (const BackendEntry* e : backend_entries())
        names.emplace_back(e->name);
    std::sort(names.begin(), names.end());
    return names;
}

// CONTRACT C2: unknown options are refused before the backend is constructed, so a misspelled
// option is never silently dropped.
void check_options(const BackendEntry& entry, const DeviceOptions& options) {
    std::vector<std::string> bad;
    for (const auto& [key, value] : options) {
        auto& accepted = entry.device_options;
        if (std::find(accepted.begin(), accepted.end(), key) == accepted.end()) bad.push_back(key);
    }
    if (bad.empty()) return;
    std::vector<std::string> accepted(entry.device_options.begin(), entry.device_options.end());
    throw ValueError("The '" + std::string(entry.name) +
                     "' backend does not accept the option(s) " + join(bad, "") +
                     ". Accepted: " + join(accepted, "none") + ".");
}

// DECISIONS "Debug mode": `debug` is an option of every device, not of one backend, so it is
// taken out here before the backend's own options are checked.
std::optional<bool> take_debug_option(DeviceOptions& options) {
    auto it = options.find("debug");
    if (it == options.end()) return std::nullopt;
    const bool* on = std::get_if<bool>(&it->second.value());
    if (!on) throw ValueError("The 'debug' option takes True or False");
    bool value = *on;
    options.erase(it);
    return value;
}

std::shared_ptr<Backend> construct(const BackendEntry& entry, const DeviceOptions& options,
                                   std::optional<bool> debug) {
    require_unforked(entry.name);
    std::shared_ptr<Backend> b = entry.create(options);
    if (entry.name != "cpu") note_device_driver_opened();
    b->set_debug(debug.value_or(support::env_debug()));
    std::lock_guard lock(registry().mutex);
    auto& live = registry().live;
    std::erase_if(live, [](const std::weak_ptr<Backend>& w) { return w.expired(); });
    live.push_back(b);
    return b;
}

}  // namespace

const BackendEntry* find_backend(std::string_view name) {
    for (const BackendEntry* e : backend_entries()) {
        if (e->name == name) return e;
    }
    return nullptr;
}

std::shared_ptr<Backend> open_device(std::string_view name, const DeviceOptions& given,
                                     bool fresh) {
    const BackendEntry* entry = find_backend(name);
    if (!entry) {
        throw ValueError("Unknown architecture: '" + std::string(name) +
                         "'. Available: " + join(sorted_names(), "none"));
    }
    DeviceOptions options = given;
    std::optional<bool> debug = take_debug_option(options);
    check_options(*entry, options);
    if (fresh || !given.empty()) return construct(*entry, options, debug);
    {
        std::lock_guard lock(registry().mutex);
        auto it = registry().plain.find(name);
        if (it != registry().plain.end()) return it->second;
    }
    // Constructed outside the lock (a backend may take time to start); the first one stored
    // wins if two threads race.
    std::shared_ptr<Backend> b = construct(*entry, options, std::nullopt);
    std::lock_guard lock(registry().mutex);
    auto [it, inserted] = registry().plain.emplace(std::string(name), b);
    return it->second;
}

// Hardening defect 6: a thread launching on the default device while another re-initializes
// used to hold a bare reference to a backend the registry had just dropped ("pure virtual
// method called"). Each thread now holds the default it uses: one atomic load per call when
// nothing changed; the previous pin survives one change, so a reference taken before it stays
// valid through the call that took it. A thread keeps an old default alive until it next asks.
Backend& default_backend() {
    struct Pin {
        std::uint64_t generation = 0;
        std::shared_ptr<Backend> current, previous;
    };
    thread_local Pin pin;
    std::uint64_t g = registry().default_generation.load(std::memory_order_acquire);
    if (g != pin.generation || !pin.current) {
        pin.previous = std::move(pin.current);
        pin.current = default_backend_ptr();
        pin.generation = g;
    }
    return *pin.current;
}

std::shared_ptr<Backend> default_backend_ptr() {
    {
        std::lock_guard lock(registry().mutex);
        if (registry().default_device) return registry().default_device;
    }
    std::shared_ptr<Backend> cpu = open_device("cpu", {}, false);
    std::lock_guard lock(registry().mutex);
    if (!registry().default_device) registry().default_device = cpu;
    return registry().default_device;
}

void set_default_backend(std::shared_ptr<Backend> backend) {
    std::lock_guard lock(registry().mutex);
    registry().default_device = std::move(backend);
    registry().default_generation.fetch_add(1, std::memory_order_acq_rel);
}

namespace {

std::vector<std::shared_ptr<Backend>> live_backends() {
    std::vector<std::shared_ptr<Backend>> live;
    std::lock_guard lock(registry().mutex);
    for (auto& w : registry().live) {
        if (auto b = w.lock()) live.push_back(std::move(b));
    }
    return live;
}

}  // namespace

std::vector<std::unique_ptr<QueueMark>> mark_all() {
    std::vector<std::unique_ptr<QueueMark>> marks;
    for (auto& b : live_backends())
        if (auto m = b->mark_queue()) marks.push_back(std::move(m));
    return marks;
}

void synchronize_all() {
    std::vector<std::shared_ptr<Backend>> live;
    {
        std::lock_guard lock(registry().mutex);
        for (auto& w : registry().live) {
            if (auto b = w.lock()) live.push_back(std::move(b));
        }
    }
    for (auto& b : live) {
        if (lost_to_fork(*b)) continue;  // a fork child cannot have queued work there
        b->synchronize();
    }
}

}  // namespace tack::runtime
