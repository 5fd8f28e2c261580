#include "runtime/gpu/loader.hpp"

#include <dlfcn.h>

#include "support/env.hpp"

namespace tack::runtime::gpu {

std::string fill_in(std::string_view pattern,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
    std::string out(pattern);
    for (const auto& [key, value] : values) {
        std::string mark = "{" + std::string(key) + "}";
        if (auto at = out.find(mark); at != std::string::npos) out.replace(at, mark.size(), value);
    }
    return out;
}

std::string unusable(const VendorLibrary& library, const std::string& tried,
                     const std::string& loaded, const std::string& symbol) {
    if (loaded.empty()) return fill_in(library.missing, {{"tried", tried}});
    return fill_in(library.lacks, {{"library", loaded}, {"symbol", symbol}});
}

std::optional<std::string> library_override(const char* env) {
    return support::env_library(env);
}

void* open_library(std::span<const char* const> sonames, std::span<const Symbol> symbols,
                   std::string* loaded, std::string* tried, std::string* lacking) {
    void* lib = nullptr;
    for (const char* name : sonames) {
        lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            *loaded = name;
            break;
        }
        const char* e = dlerror();
        *tried += std::string(tried->empty() ? "" : "; ") + (e ? e : name);
    }
    if (!lib) return nullptr;
    for (const Symbol& s : symbols) {
        *s.slot = dlsym(lib, s.name);
        if (!*s.slot && s.required && lacking->empty()) *lacking = s.name;
    }
    return lib;
}

}  // namespace tack::runtime::gpu
