#pragma once
// The one dlopen loader every vendor API goes through (STYLE habit 5): an API struct lists its
// functions once as X-macros of (name, return type, parameters) and names its library's row of
// gpu/libraries.cpp (where to look, what to say when something is missing), and load_api<Api>()
// resolves it once per process. A missing library or symbol is an
// explanation, never a link error or a crash.
//
//   struct CuApi {
//       TACK_GPU_API(TACK_CU_FUNCTIONS, TACK_CU_OPTIONAL_FUNCTIONS)  // pointers, symbols(),
//       library static constexpr std::string_view kLibrary = "cuda";         // its
//       gpu/libraries.cpp row
//   };

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/gpu/libraries.hpp"

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
/// An API struct's members from its lists of required and optional entry points: one pointer
/// per entry, symbols() for the loader, and `library` (the soname that loaded).
#define TACK_GPU_API(REQUIRED, OPTIONAL)                           \
    TACK_GPU_POINTERS(REQUIRED)                                    \
    TACK_GPU_POINTERS(OPTIONAL)                                    \
    std::string library;                                           \
    void symbols(std::vector<::tack::runtime::gpu::Symbol>& out) { \
        REQUIRED(TACK_GPU_REQUIRED)                                \
        OPTIONAL(TACK_GPU_OPTIONAL)                                \
    }
/// An empty list, for an API without optional entry points.
#define TACK_GPU_NONE(X)
/// `&& name` per entry: `true LIST(TACK_GPU_PRESENT)` says whether every entry resolved.
#define TACK_GPU_PRESENT(name, ret, params) &&name

/// The hardware-texture entry points, whose shape CUDA's driver API and HIP share (texture.cpp):
/// create a 3-D array (the one call whose parameters differ), free it, copy into it on a stream,
/// make a texture object over it, destroy the object. A vendor names its types and functions; a
/// driver that lacks any of the five samples in software.
#define TACK_GPU_TEXTURE_FUNCTIONS(X, Result, Stream, Array, Object, Copy3D, ResourceDesc,     \
                                   TextureDesc, create_array, create_params, free_array, copy, \
                                   create_object, destroy_object)                              \
    X(create_array, Result, create_params)                                                     \
    X(free_array, Result, (Array))                                                             \
    X(copy, Result, (const Copy3D*, Stream))                                                   \
    X(create_object, Result, (Object*, const ResourceDesc*, const TextureDesc*, const void*))  \
    X(destroy_object, Result, (Object))

/// dlopens the first of `sonames` that loads (its name in `*loaded`, the dlerror()s joined in
/// `*tried` otherwise) and resolves `symbols`. Returns the handle, or nullptr when no soname
/// loaded; `*lacking` names the first required symbol that did not resolve ("" when none).
void* open_library(std::span<const char* const> sonames, std::span<const Symbol> symbols,
                   std::string* loaded, std::string* tried, std::string* lacking);

/// The library named by the environment variable `env` (support::env_library), else nullopt.
std::optional<std::string> library_override(const char* env);

/// `pattern` with each "{key}" replaced by its value.
std::string fill_in(std::string_view pattern,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> values);

/// Why `library` did not load (`tried`: its dlerror()s), or which required `symbol` the file
/// `loaded` lacks.
std::string unusable(const VendorLibrary& library, const std::string& tried,
                     const std::string& loaded, const std::string& symbol);

/// The row an API struct names (Api::kLibrary), or the one it is (tests' APIs: Api::kRow).
template <class Api>
const VendorLibrary& library_of() {
    if constexpr (requires { Api::kRow; }) {
        return Api::kRow;
    } else {
        return vendor_library(Api::kLibrary);
    }
}

/// The API loaded once per process, or nullptr with `*why` set (unusable()). Where the row's
/// environment variable names a file, only that file is tried.
template <class Api>
const Api* load_api(std::string* why) {
    struct Loaded {
        Api api;
        std::string error;
        Loaded() {
            std::vector<Symbol> symbols;
            api.symbols(symbols);
            std::string tried, lacking;
            const VendorLibrary& row = library_of<Api>();
            std::optional<std::string> path = library_override(row.env);
            const char* only[] = {path ? path->c_str() : nullptr};
            std::span<const char* const> names = row.sonames;
            if (path) names = only;
            if (!open_library(names, symbols, &api.library, &tried, &lacking))
                error = unusable(row, tried, "", "");
            else if (!lacking.empty())
                error = unusable(row, "", api.library, lacking);
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
