#pragma once
// The one dlopen loader every vendor API goes through (STYLE habit 5): an API struct lists its
// functions once as an X-macro of (name, return type, parameters), declares where to look
// (sonames) and what to say when something is missing, and load_api<Api>() resolves it once per
// process. A missing library or symbol is an explanation, never a link error or a crash.
//
//   struct CuApi {
//       TACK_GPU_POINTERS(TACK_CU_FUNCTIONS)                // ret (*name) params = nullptr;
//       static constexpr const char* kSonames[] = {"libcuda.so.1"};
//       static constexpr const char* kEnv = "TACK_CUDA_LIBRARY";    // a path tried instead
//       static std::string missing(const std::string& tried);
//       void symbols(std::vector<gpu::Symbol>& out) { TACK_CU_FUNCTIONS(TACK_GPU_REQUIRED) }
//       std::string library;
//   };

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tack::runtime::gpu {

/// One entry point: where its address goes, and whether the API is unusable without it.
struct Symbol {
    const char* name;
    void** slot;
    bool required;
};

/// Declares one function-pointer member per X-macro entry.
#define TACK_GPU_POINTER(name, ret, params) ret(*name) params = nullptr;
#define TACK_GPU_POINTERS(LIST) LIST(TACK_GPU_POINTER)
/// Inside an API's symbols(out): appends each entry, required or optional.
#define TACK_GPU_REQUIRED(name, ret, params) \
    out.push_back({#name, reinterpret_cast<void**>(&this->name), true});
#define TACK_GPU_OPTIONAL(name, ret, params) \
    out.push_back({#name, reinterpret_cast<void**>(&this->name), false});

/// dlopens the first of `sonames` that loads (its name in `*loaded`, the dlerror()s joined in
/// `*tried` otherwise) and resolves `symbols`. Returns the handle, or nullptr when no soname
/// loaded; `*lacking` names the first required symbol that did not resolve ("" when none).
void* open_library(std::span<const char* const> sonames, std::span<const Symbol> symbols,
                   std::string* loaded, std::string* tried, std::string* lacking);

/// The library named by the environment variable `env` (support::env_library), else nullopt.
std::optional<std::string> library_override(const char* env);

/// The API loaded once per process, or nullptr with `*why` set from Api::missing(tried) or
/// Api::lacks(library, symbol). Where Api::kEnv names a file, only that file is tried.
template <class Api>
const Api* load_api(std::string* why) {
    struct Loaded {
        Api api;
        std::string error;
        Loaded() {
            std::vector<Symbol> symbols;
            api.symbols(symbols);
            std::string tried, lacking;
            std::optional<std::string> path = library_override(Api::kEnv);
            const char* only[] = {path ? path->c_str() : nullptr};
            std::span<const char* const> names = Api::kSonames;
            if (path) names = only;
            if (!open_library(names, symbols, &api.library, &tried, &lacking))
                error = Api::missing(tried);
            else if (!lacking.empty())
                error = Api::lacks(api.library, lacking);
        }
    };
    static const Loaded* loaded = new Loaded();  // never unloaded: kernels may outlive main()
    if (!loaded->error.empty()) {
        if (why) *why = loaded->error;
        return nullptr;
    }
    return &loaded->api;
}

/// Names of `Api`'s entry points, required ones first when `required` (tests and tools).
template <class Api>
std::vector<std::string_view> api_function_names(bool required) {
    Api api;
    std::vector<Symbol> symbols;
    api.symbols(symbols);
    std::vector<std::string_view> names;
    for (const Symbol& s : symbols)
        if (s.required == required) names.emplace_back(s.name);
    return names;
}

}  // namespace tack::runtime::gpu
