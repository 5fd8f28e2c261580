// tackc cache info|clear: the disk cache of compiled variants (DECISIONS "Disk cache").
#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "cache/disk_cache.hpp"
#include "commands.hpp"
#include "support/env.hpp"

namespace tack::tackc {

namespace {

// Why the cache the runtime would use is off, in the terms a user can act on: the setting, or
// DiskCache's own reason for refusing the directory (the text of its warning).
std::string disabled_reason(const cache::DiskCache& cache) {
    if (auto raw = support::env_string("TACK_CACHE_DIR"); raw && !support::env_cache_dir())
        return "TACK_CACHE_DIR is '" + *raw + "'";
    if (cache.dir().empty()) return "TACK_CACHE_DIR, XDG_CACHE_HOME and HOME are unset";
    return cache.refused_because();
}

void print_info(const cache::DiskCache& cache, const char* indent) {
    std::printf("%spath: %s\n", indent, cache.dir().empty() ? "(none)" : cache.dir().c_str());
    if (!cache.enabled()) {
        std::printf("%sstatus: disabled (%s)\n", indent, disabled_reason(cache).c_str());
        return;
    }
    cache::CacheInfo info = cache.info();
    std::printf("%sstatus: enabled\n%sentries: %llu\n%sbytes: %llu\n", indent, indent,
                static_cast<unsigned long long>(info.entries), indent,
                static_cast<unsigned long long>(info.total_bytes));
}

int cache_info(const cache::DiskCache& cache) {
    print_info(cache, "");
    return 0;
}

int cache_clear(const cache::DiskCache& cache) {
    if (!cache.enabled())
        throw std::runtime_error("disk cache is disabled (" + disabled_reason(cache) + ")");
    uint64_t removed = cache.clear();
    std::printf("removed %llu files from %s\n", static_cast<unsigned long long>(removed),
                cache.dir().c_str());
    return 0;
}

struct CacheAction {
    std::string_view name;
    int (*run)(const cache::DiskCache&);
};

constexpr CacheAction kActions[] = {{"info", cache_info}, {"clear", cache_clear}};

}  // namespace

void print_cache_info(const char* indent) {
    print_info(cache::DiskCache::from_environment(), indent);
}

int cmd_cache(const Args& args) {
    if (args.size() != 1) throw std::runtime_error("expected 'info' or 'clear'");
    for (const CacheAction& a : kActions) {
        if (a.name == args[0]) return a.run(cache::DiskCache::from_environment());
    }
    throw std::runtime_error("unknown cache action '" + args[0] + "'; use 'info' or 'clear'");
}

}  // namespace tack::tackc
