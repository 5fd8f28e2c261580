#include "runtime/checks.hpp"

#include <cstdint>

#include "driver/checks.hpp"

namespace tack::runtime {

namespace {

std::string who(const frontend::FunctionDef& fn) {
    return "Kernel '" + fn.name + "'";
}

}  // namespace

sema::Type array_type(const Array& a) {
    if (a.is_texture()) return sema::Type::texture();
    int rank = a.rank() - a.elem_rank();
    const Shape& s = a.shape();
    sema::Shape element;
    if (a.elem_rank() >= 1) element.rows = static_cast<int>(s[rank]);
    if (a.elem_rank() == 2) element.cols = static_cast<int>(s[rank + 1]);
    return sema::Type::array(a.dtype(), rank, element);
}

std::vector<sema::Type> signature_of(std::span<const detail::Arg> args) {
    std::vector<sema::Type> sig;
    sig.reserve(args.size());
    for (const auto& a : args) {
        if (a.array) {
            sig.push_back(array_type(*a.array));
        } else if (a.template_id >= 0) {
            sig.push_back(sema::Type::of_template(a.template_id));
        } else {
            sig.push_back(sema::Type::scalar(a.scalar.dtype));
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
