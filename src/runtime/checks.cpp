#include "runtime/checks.hpp"

#include <cstdint>

#include "driver/checks.hpp"

namespace tack::runtime {

namespace {

std::string who(const frontend::FunctionDef& fn) {
    return "Kernel '" + fn.name + "'";
}

}  // namespace

sema::ArgType array_type(const Array& a) {
    sema::ArgType t{true, a.dtype(), a.rank() - a.elem_rank()};
    const Shape& s = a.shape();
    if (a.elem_rank() >= 1) t.elem_rows = static_cast<int>(s[t.rank]);
    if (a.elem_rank() == 2) t.elem_cols = static_cast<int>(s[t.rank + 1]);
    t.is_texture = a.is_texture();
    return t;
}

std::vector<sema::ArgType> signature_of(std::span<const detail::Arg> args) {
    std::vector<sema::ArgType> sig;
    sig.reserve(args.size());
    for (const auto& a : args) {
        if (a.array) {
            sig.push_back(array_type(*a.array));
        } else {
            sema::ArgType t{false, a.scalar.dtype, 0};
            t.template_id = a.template_id;
            sig.push_back(t);
        }
    }
    return sig;
}

void check_atomic_alignment(const frontend::FunctionDef& fn, const driver::KernelFacts& facts,
                            std::span<const detail::Arg> args) {
    for (const auto& a : facts.atomics) {
        auto align = static_cast<uint64_t>(size_bytes(a.dtype));
        if (args[static_cast<size_t>(a.param)].array->address() % align == 0) continue;
        throw ValueError(who(fn) + ": atomic target parameter " +
                         fn.params[static_cast<size_t>(a.param)].name + " requires " +
                         std::to_string(align) + "-byte alignment");
    }
}

bool disjoint(const driver::KernelFacts& facts, std::span<const detail::Arg> args) {
    for (int w : facts.written_params) {
        const Array& written = *args[static_cast<size_t>(w)].array;
        uint64_t begin = written.span_begin(), end = written.span_end();  // once, not per pair
        for (size_t j = 0; j < args.size(); ++j) {
            const Array* other = args[j].array;
            if (int(j) == w || !other) continue;
            if (begin < other->span_end() && other->span_begin() < end) return false;
        }
    }
    return true;
}

}  // namespace tack::runtime
