// tack::Module and tack::Kernel: the C++ front door to the compiler and the dispatch path.
#include <fstream>
#include <sstream>

#include "frontend/parser.hpp"
#include "runtime/errors.hpp"
#include "runtime/kernel_impl.hpp"
#include "runtime/registry.hpp"
#include "tack/tack.hpp"

namespace tack {

Module Module::from_source(std::string_view text, std::string_view path) {
    auto file = std::make_shared<diag::SourceFile>(std::string(path), std::string(text));
    frontend::ParseResult parsed =
        runtime::translate_compile_errors([&] { return frontend::parse_module(file); });
    if (!parsed.errors.empty()) runtime::throw_public(parsed.errors.front());
    auto impl = std::make_shared<runtime::ModuleImpl>();
    impl->file = file;
    impl->module = std::make_shared<const frontend::Module>(std::move(parsed.module));
    impl->env = std::make_shared<sema::ModuleEnvironment>(impl->module);
    Module m;
    m.impl_ = std::move(impl);
    return m;
}

Module Module::from_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw RuntimeError("Cannot read kernel source '" + path + "'");
    std::stringstream text;
    text << in.rdbuf();
    return from_source(text.str(), path);
}

Kernel Module::kernel(std::string_view name) const {
    const frontend::FunctionDef* fn = impl_ ? impl_->module->find(name) : nullptr;
    if (!fn) {
        throw NameError("Module '" + (impl_ ? impl_->file->path() : std::string()) +
                        "' has no kernel '" + std::string(name) + "'");
    }
    if (fn->def_kind != frontend::DefKind::Kernel) {
        throw TypeError("'" + std::string(name) + "' is a @tack.func, not a @tack.kernel");
    }
    return Kernel(std::make_shared<runtime::KernelImpl>(impl_, fn));
}

std::vector<std::string> Module::kernel_names() const {
    std::vector<std::string> names;
    if (!impl_) return names;
    for (const auto& f : impl_->module->functions) {
        if (f->def_kind == frontend::DefKind::Kernel) names.push_back(f->name);
    }
    return names;
}

std::optional<Scalar> Kernel::call(std::span<const detail::Arg> args) const {
    if (!impl_) throw ValueError("call of an empty tack::Kernel handle");
    return impl_->call(args);
}

const std::string& Kernel::name() const {
    static const std::string kEmpty;
    return impl_ ? impl_->name() : kEmpty;
}

std::size_t Kernel::num_variants(const Device& dev) const {
    if (!impl_) return 0;
    return impl_->num_variants(dev.valid() ? *dev.backend() : runtime::default_backend());
}

}  // namespace tack
